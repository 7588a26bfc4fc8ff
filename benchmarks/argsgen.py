"""Seeded tool-call arguments for any input schema: valid ones built from the schema,
invalid ones made by one mutation of a valid one.

The generator understands what tool schemas use (``properties``/``required``/``type``/
``enum``/``const``, numeric and length bounds, ``items``, ``anyOf``/``oneOf`` (the first
branch), ``allOf``, ``dependentRequired``, local ``$ref``); it does not solve ``pattern``
or ``format``: such strings come from the schema's ``examples``/``default`` when it has
them, optional ones are left out, and required ones get a plain word. Labels are only
an intention (:attr:`Generated.intended_valid`): the benchmark lets schemacore decide.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

__all__ = ["Generated", "generate"]

_WORDS = (
    "alpha",
    "bravo",
    "cedar",
    "delta",
    "ember",
    "falcon",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kestrel",
    "lumen",
    "maple",
    "nectar",
    "onyx",
    "pepper",
    "quartz",
)
# Well-formed values for the formats tool schemas use, so format-annotated strings
# look like what a model sends (formats are annotations for every peer anyway).
_FORMATS = {
    "date-time": "2025-01-31T12:30:00Z",
    "date": "2025-01-31",
    "time": "12:30:00Z",
    "uri": "https://example.com/item/1",
    "url": "https://example.com/item/1",
    "email": "ada@example.com",
    "uuid": "3f2b6c1e-8a4d-4f7e-9b1a-2c3d4e5f6a7b",
    "hostname": "host.example.com",
    "ipv4": "192.0.2.7",
}
# One sample of every JSON type, for "wrong type" mutations.
_SAMPLES: tuple[tuple[str, Any], ...] = (
    ("string", "not-the-right-type"),
    ("integer", 42),
    ("number", 2.5),
    ("boolean", True),
    ("null", None),
    ("array", ["x"]),
    ("object", {"x": 1}),
)
_MAX_DEPTH = 6  # recursive schemas: stop adding optional parts below this

Path = tuple[str | int, ...]
# A change: where, and the value to put there (or DELETE to remove the member).
Change = tuple[Path, Any]
DELETE = object()


@dataclass(frozen=True)
class Generated:
    instance: Any
    intended_valid: bool
    how: str  # "valid", or the mutation: "wrong type at /a/0", "missing required /b", ...


class _Gen:
    def __init__(self, root: Any, rng: random.Random) -> None:
        self.root = root
        self.rng = rng

    # -- schema resolution ---------------------------------------------------------

    def _pointer(self, ref: str) -> Any:
        target = self.root
        for token in ref[2:].split("/") if ref != "#" else ():
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            target = target[int(token)] if isinstance(target, list) else target[token]
        return target

    def resolve(self, schema: Any, hops: int = 0) -> dict[str, Any]:
        """``schema`` as one flat object: local ``$ref`` followed, ``allOf`` and the
        first ``anyOf``/``oneOf`` branch merged in (properties and required unioned)."""
        if not isinstance(schema, dict):
            return {} if schema is not False else {"not": {}}
        out = {k: v for k, v in schema.items() if k not in ("$ref", "allOf", "anyOf", "oneOf")}
        parts: list[Any] = []
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and hops < 20:
            parts.append(self._pointer(ref))
        parts += schema.get("allOf") or []
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                parts.append(schema[key][0])
        for part in parts:
            flat = self.resolve(part, hops + 1)
            for key, value in flat.items():
                if key == "properties":
                    out["properties"] = {**value, **out.get("properties", {})}
                elif key == "required":
                    out["required"] = list(dict.fromkeys([*out.get("required", []), *value]))
                else:
                    out.setdefault(key, value)
        return out

    @staticmethod
    def types(schema: dict[str, Any], fallback: str = "string") -> list[str]:
        declared = schema.get("type")
        if isinstance(declared, str):
            return [declared]
        if isinstance(declared, list) and declared:
            return [str(t) for t in declared]
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            return ["object"]
        if "items" in schema or "minItems" in schema:
            return ["array"]
        if "minimum" in schema or "maximum" in schema or "exclusiveMinimum" in schema:
            return ["number"]
        return [fallback]

    @staticmethod
    def unsolved(schema: dict[str, Any]) -> bool:
        """A string this generator cannot make valid on its own (a pattern with no
        example, default, enum or const to copy)."""
        return (
            "pattern" in schema
            and "enum" not in schema
            and "const" not in schema
            and not schema.get("examples")
            and not isinstance(schema.get("default"), str)
        )

    # -- valid values --------------------------------------------------------------

    def make(self, schema: Any, depth: int = 0) -> Any:
        """A value meant to be valid; at the root (depth 0) an object unless the schema
        says otherwise: tool arguments are one (``{}`` admits anything, an agent sends
        ``{}``)."""
        s = self.resolve(schema)
        rng = self.rng
        if "const" in s:
            return copy.deepcopy(s["const"])
        if isinstance(s.get("enum"), list) and s["enum"]:
            return copy.deepcopy(rng.choice(s["enum"]))
        types = self.types(s, "object" if depth == 0 else "string")
        kind = rng.choice([t for t in types if t != "null"] or types)
        if kind == "object":
            return self._object(s, depth)
        if kind == "array":
            return self._array(s, depth)
        if kind == "string":
            return self._string(s)
        if kind in ("integer", "number"):
            return self._number(s, kind == "integer")
        if kind == "boolean":
            return rng.random() < 0.5
        return None

    def _object(self, s: dict[str, Any], depth: int) -> dict[str, Any]:
        props: dict[str, Any] = s.get("properties") or {}
        required = [r for r in s.get("required") or [] if isinstance(r, str)]
        chosen = [
            name
            for name in props
            if name in required
            or (
                depth < _MAX_DEPTH
                and self.rng.random() < 0.5
                and not self.unsolved(self.resolve(props[name]))
            )
        ]
        chosen += [name for name in required if name not in chosen]
        dependent = s.get("dependentRequired") or {}
        for name in list(chosen):
            chosen += [d for d in dependent.get(name, ()) if d not in chosen]
        out = {name: self.make(props.get(name, {}), depth + 1) for name in chosen}
        extra = s.get("additionalProperties")
        if isinstance(extra, dict) and not props and depth < _MAX_DEPTH:
            for _ in range(self.rng.randint(0, 2)):
                out[f"x_{self.rng.choice(_WORDS)}"] = self.make(extra, depth + 1)
        for name in props:  # minProperties: top up from the optional ones
            if len(out) >= int(s.get("minProperties", 0)):
                break
            out.setdefault(name, self.make(props[name], depth + 1))
        return out

    def _array(self, s: dict[str, Any], depth: int) -> list[Any]:
        lo = int(s.get("minItems", 0))
        hi = int(s.get("maxItems", lo + 3))
        count = self.rng.randint(lo, max(lo, min(hi, lo + (3 if depth < _MAX_DEPTH else 0))))
        items = s.get("items", {})
        out: list[Any] = []
        for _ in range(count * 4):
            if len(out) == count:
                break
            value = self.make(items, depth + 1)
            if not s.get("uniqueItems") or value not in out:
                out.append(value)
        return out

    def _string(self, s: dict[str, Any]) -> str:
        for example in [*(s.get("examples") or []), s.get("default")]:
            if isinstance(example, str):
                return example
        fmt = s.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt]
        lo = int(s.get("minLength", 1))
        hi = int(s.get("maxLength", max(lo, 40)))
        target = self.rng.randint(lo, max(lo, min(hi, lo + 30)))
        out = self.rng.choice(_WORDS)
        while len(out) < target:
            out = f"{out} {self.rng.choice(_WORDS)}"
        return out[: max(target, lo)]

    def _number(self, s: dict[str, Any], integer: bool) -> int | float:
        lo = float(s.get("minimum", -1e9))
        hi = float(s.get("maximum", 1e9))
        if isinstance(s.get("exclusiveMinimum"), int | float):
            lo = max(lo, float(s["exclusiveMinimum"]) + (1 if integer else 0.01))
        if isinstance(s.get("exclusiveMaximum"), int | float):
            hi = min(hi, float(s["exclusiveMaximum"]) - (1 if integer else 0.01))
        # Small values, as a model sends them; within the bounds when there are any.
        lo, hi = max(lo, min(0.0, hi)), min(hi, max(100.0, lo))
        step = s.get("multipleOf")
        if isinstance(step, int | float) and step > 0:
            k = self.rng.randint(int(-(-lo // step)), max(int(-(-lo // step)), int(hi // step)))
            return k * step if not integer else int(k * step)
        if integer:
            return self.rng.randint(int(-(-lo // 1)), max(int(-(-lo // 1)), int(hi // 1)))
        return round(self.rng.uniform(lo, hi), 2)

    # -- invalid values: one mutation of a valid one -------------------------------

    def mutations(self, schema: Any, value: Any, path: Path) -> dict[str, list[Change]]:
        """Every change that should break ``value`` (at ``path``), by kind."""
        s = self.resolve(schema)
        found: dict[str, list[Change]] = {}

        def add(kind: str, at: Path, replacement: Any) -> None:
            found.setdefault(kind, []).append((at, replacement))

        if "type" in s and "enum" not in s and "const" not in s:
            types = self.types(s)
            allowed = set(types) | ({"integer"} if "number" in types else set())
            wrong = [v for t, v in _SAMPLES if t not in allowed]
            if wrong:
                add("wrong type", path, self.rng.choice(wrong))
        if isinstance(s.get("enum"), list):
            add("out of range", path, "not-one-of-the-choices")
        for key, delta in (("minimum", -1), ("maximum", 1)):
            bound = s.get(key)
            if isinstance(bound, int | float) and isinstance(value, int | float):
                add("out of range", path, bound + delta)
        if isinstance(value, str):
            if isinstance(s.get("maxLength"), int) and s["maxLength"] < 10_000:
                add("out of range", path, "y" * (s["maxLength"] + 1))
            if int(s.get("minLength", 0)) > 0:
                add("out of range", path, "")
        if isinstance(value, dict):
            props = s.get("properties") or {}
            for name in s.get("required") or []:
                if name in value:
                    add("missing required", (*path, name), DELETE)
            closing = ("additionalProperties", "unevaluatedProperties")
            if any(s.get(k) is False for k in closing) and not s.get("patternProperties"):
                add("extra property", (*path, "unexpected_property"), "surplus")
            for name, sub in value.items():
                if name in props:
                    for kind, changes in self.mutations(props[name], sub, (*path, name)).items():
                        found.setdefault(kind, []).extend(changes)
        elif isinstance(value, list) and value:
            at = self.rng.randrange(len(value))
            for kind, changes in self.mutations(s.get("items", {}), value[at], (*path, at)).items():
                found.setdefault(kind, []).extend(changes)
        return found


def _apply(instance: Any, at: Path, replacement: Any) -> Any:
    if not at:
        return copy.deepcopy(replacement)
    out = copy.deepcopy(instance)
    parent = out
    for token in at[:-1]:
        parent = parent[token]
    if replacement is DELETE:
        del parent[at[-1]]
    else:
        parent[at[-1]] = copy.deepcopy(replacement)
    return out


def _where(at: Path) -> str:
    return "/" + "/".join(str(t) for t in at)


def generate(schema: Any, rng: random.Random, valid: int, invalid: int) -> list[Generated]:
    """``valid`` instances meant to be valid, then up to ``invalid`` mutated ones (fewer
    when the schema leaves nothing to break, as ``{}`` does)."""
    gen = _Gen(schema, rng)
    out = [Generated(gen.make(schema), True, "valid") for _ in range(valid)]
    for _ in range(invalid):
        base = gen.make(schema)
        found = gen.mutations(schema, base, ())
        if not found:
            continue
        kind = rng.choice(sorted(found))  # each kind as likely, wherever it applies
        at, replacement = rng.choice(found[kind])
        out.append(Generated(_apply(base, at, replacement), False, f"{kind} at {_where(at)}"))
    return out
