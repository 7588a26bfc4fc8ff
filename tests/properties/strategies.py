"""Hypothesis strategies: Draft 2020-12 schemas and JSON instances.

``documents()`` draws a schema document using every assertion and applicator keyword
of the validation, applicator and unevaluated vocabularies, boolean subschemas,
nesting, annotations, and ``$defs`` with ``$ref`` to them. Generated documents are
valid against the meta-schema and free of in-place reference cycles by construction:

* definition ``dI`` may reference only definitions ``dJ`` with ``J > I``;
* ``"#"`` (the document root) may be referenced only below a keyword that moves to
  a child of the instance (``items``, ``properties``, ...), so every cycle through the
  root consumes one level of the instance.

No ``$id`` is generated, so moving a schema under ``$defs`` never changes how its
references resolve. ``hostile_documents()`` mixes in arbitrary JSON at keyword
positions, for properties that must hold even for invalid schemas.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "NAMES",
    "PATTERNS",
    "ambiguous_patterns",
    "documents",
    "fresh_copy",
    "harvest",
    "hostile_documents",
    "hostile_patterns",
    "instances_for",
    "json_texts",
    "json_values",
    "lift_defs",
    "number_twins",
    "numeric_schemas",
    "recursive_chains",
    "share_equal_subschemas",
    "shared_resources",
]

# "\ud800" (a lone surrogate) and "²" (a digit to str.isdigit, not to JSON Pointer):
# locations holding them must be written, percent-encoded, and read back as names.
NAMES = ["a", "b", "c", "foo", "x1", "\ud800", "²"]
# Small, safe ECMA-262 patterns (no catastrophic backtracking on short inputs).
PATTERNS = ["^a", "b$", "^[a-c]+$", "\\d", "^$", "x|y", "^.{2,}$", "[A-Z]", "^(ab)*$", "o"]
TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"]
FORMATS = ["email", "date", "uri", "ipv4", "regex", "uuid"]

_keys = st.sampled_from(NAMES) | st.text(alphabet="abcxo1_", max_size=3)
# Integral floats past 2**53, where the shortest repr is another integer than the
# float's own value (json.loads gives 2.0**60 for "1152921504606846976.0").
_big_integral_floats = st.builds(
    lambda mantissa, exponent: float(mantissa * 2**exponent),
    st.integers(-(2**53), 2**53),
    st.integers(1, 900),
)
_numbers = (
    st.integers(-5, 5)
    | st.integers()
    | st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.5, 1e-9, 1e300, -1e300, 3.0, 2.0**60, 4.02])
    | st.floats(allow_nan=False, allow_infinity=False)
    | _big_integral_floats
    # Longer than Python writes as text (sys.get_int_max_str_digits): messages that
    # quote one, alone or inside a const/enum container, must describe it instead.
    | st.sampled_from([1, -1]).map(lambda sign: sign * 10**5000)
)
_strings = st.sampled_from(NAMES) | st.text(alphabet="abcxyoAB01 \u00e9\U0001f600", max_size=5)
_scalars = st.none() | st.booleans() | _numbers | _strings


class _Float(float):
    """A float subclass whose repr is no number literal, like numpy.float64's."""

    def __repr__(self) -> str:
        return f"f64({float(self)!r})"


class _Int(int):
    def __repr__(self) -> str:
        return f"i64({int(self)})"


def _twin(number: int | float) -> list[Any]:
    """Other Python spellings of the JSON number ``number``."""
    twins: list[Any] = [_Int(number) if isinstance(number, int) else _Float(number)]
    if isinstance(number, float) and number.is_integer():
        twins.append(int(number))
    elif isinstance(number, int) and float(number) == number:
        twins.append(float(number))
    return twins


@st.composite
def number_twins(draw: st.DrawFn) -> tuple[Any, Any]:
    """(a number, an equal JSON number spelt otherwise: an int for an integral float,
    a float for an int it holds exactly, or an int/float subclass)."""
    number = draw(
        _numbers.filter(lambda n: not isinstance(n, int) or abs(n) < 10**300) | _big_integral_floats
    )
    return number, draw(st.sampled_from(_twin(number)))


def json_values(max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Any JSON value: finite floats, string keys, small nesting."""
    return st.recursive(
        _scalars,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=4)
        ),
        max_leaves=max_leaves,
    )


_small = st.integers(0, 4)
_bounds = st.integers(-5, 5) | st.sampled_from([0.5, 2.5, -1.5, 1e300])
_multiples = st.sampled_from(
    [1, 2, 3, 16, 16.0, 2**60, 0.5, 1.5, 0.1, 0.01, 0.0001, 1e-300, 1e300]
) | st.integers(1, 7)
_name_lists = st.lists(st.sampled_from(NAMES), unique=True, max_size=3)

# Keywords whose values hold no subschema.
_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "type": st.sampled_from(TYPES)
    | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True),
    "enum": st.lists(json_values(4), min_size=1, max_size=3),
    "const": json_values(4),
    "multipleOf": _multiples,
    "maximum": _bounds,
    "exclusiveMaximum": _bounds,
    "minimum": _bounds,
    "exclusiveMinimum": _bounds,
    "maxLength": _small,
    "minLength": _small,
    "pattern": st.sampled_from(PATTERNS),
    "maxItems": _small,
    "minItems": _small,
    "uniqueItems": st.booleans(),
    "maxContains": _small,
    "minContains": _small,
    "maxProperties": _small,
    "minProperties": _small,
    "required": _name_lists,
    "dependentRequired": st.dictionaries(st.sampled_from(NAMES), _name_lists, max_size=2),
    "format": st.sampled_from(FORMATS),
    "title": st.text(max_size=3),
    "description": st.text(max_size=3),
    "default": json_values(3),
    "examples": st.lists(json_values(3), max_size=2),
    "deprecated": st.booleans(),
    "readOnly": st.booleans(),
    "writeOnly": st.booleans(),
    "$comment": st.text(max_size=3),
}

# Keywords whose subschemas apply to a child of the instance.
_DESCENDING = {
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "prefixItems",
    "items",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
}
# Keywords whose subschemas apply to the instance itself.
_IN_PLACE = {"dependentSchemas", "allOf", "anyOf", "oneOf", "not", "if", "then", "else"}
_KEYWORDS = sorted(_VALUES) + sorted(_DESCENDING | _IN_PLACE) + ["$ref"]
# Assertions are drawn more often than annotations.
_WEIGHTED = _KEYWORDS + [
    k
    for k in _KEYWORDS
    if k
    not in (
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "format",
    )
]


@st.composite
def schemas(draw: st.DrawFn, depth: int, refs: tuple[str, ...], descended: bool) -> Any:
    """One (sub)schema. ``refs`` are the definitions it may reference; ``descended``
    says whether it applies below the instance its enclosing body started at."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.booleans())
    targets = [f"#/$defs/{name}" for name in refs] + (["#"] if descended else [])
    pool = [
        k
        for k in _WEIGHTED
        if (depth > 0 or k not in _DESCENDING | _IN_PLACE) and (k != "$ref" or targets)
    ]
    chosen = draw(st.lists(st.sampled_from(pool), unique=True, max_size=4 if depth else 3))
    schema: dict[str, Any] = {}

    def below(child_descends: bool) -> st.SearchStrategy[Any]:
        return schemas(depth - 1, refs, descended or child_descends)

    for keyword in chosen:
        if keyword in _VALUES:
            schema[keyword] = draw(_VALUES[keyword])
        elif keyword == "$ref":
            schema[keyword] = draw(st.sampled_from(targets))
        elif keyword in ("properties", "dependentSchemas"):
            sub = below(keyword == "properties")
            schema[keyword] = draw(st.dictionaries(st.sampled_from(NAMES), sub, max_size=3))
        elif keyword == "patternProperties":
            schema[keyword] = draw(
                st.dictionaries(st.sampled_from(PATTERNS), below(True), max_size=2)
            )
        elif keyword == "prefixItems":
            schema[keyword] = draw(st.lists(below(True), min_size=1, max_size=3))
        elif keyword in ("allOf", "anyOf", "oneOf"):
            schema[keyword] = draw(st.lists(below(False), min_size=1, max_size=3))
        else:
            schema[keyword] = draw(below(keyword in _DESCENDING))
    return schema


_NUMERIC = ("multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


@st.composite
def numeric_schemas(draw: st.DrawFn) -> Any:
    """A schema of number keywords only, so every draw exercises them."""
    chosen = draw(st.lists(st.sampled_from(_NUMERIC), unique=True, min_size=1, max_size=3))
    schema: dict[str, Any] = {keyword: draw(_VALUES[keyword]) for keyword in chosen}
    if draw(st.booleans()):
        schema["multipleOf"] = draw(_multiples | _big_integral_floats.map(abs).filter(bool))
    return schema


@st.composite
def documents(draw: st.DrawFn) -> Any:
    """A whole schema document, with ``$defs`` d0..dN referenced from anywhere."""
    names = [f"d{i}" for i in range(draw(st.integers(0, 3)))]
    defs = {
        name: draw(schemas(2, tuple(names[index + 1 :]), False)) for index, name in enumerate(names)
    }
    root = draw(schemas(3, tuple(names), False))
    if not defs:
        return root
    if isinstance(root, bool):
        root = {"allOf": [root]}
    return {**root, "$defs": defs}


def lift_defs(schema: Any, wrapper: dict[str, Any]) -> dict[str, Any]:
    """``wrapper`` (which embeds ``schema``) with ``schema``'s ``$defs`` copied to its
    root, so that ``#/$defs/...`` references inside ``schema`` still resolve."""
    if isinstance(schema, dict) and isinstance(schema.get("$defs"), dict):
        merged = copy.deepcopy(schema["$defs"])
        merged.update(wrapper.get("$defs", {}))
        return {**wrapper, "$defs": merged}
    return wrapper


def _walk(schema: Any) -> Iterator[dict[str, Any]]:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(
                v for k, v in node.items() if k not in ("enum", "const", "default", "examples")
            )
        elif isinstance(node, list):
            stack.extend(node)


def harvest(schema: Any) -> list[Any]:
    """Values the schema mentions (const, enum members): likely boundary instances."""
    found: list[Any] = []
    for node in _walk(schema):
        if "const" in node:
            found.append(node["const"])
        if isinstance(node.get("enum"), list):
            found.extend(node["enum"])
        if isinstance(node.get("required"), list) and node["required"]:
            found.append(dict.fromkeys(node["required"], 1))
    return found[:6]


@st.composite
def instances_for(draw: st.DrawFn, schema: Any) -> list[Any]:
    """A few JSON instances, some built from values the schema mentions."""
    drawn = draw(st.lists(json_values(), min_size=1, max_size=4))
    mentioned = harvest(schema)
    if mentioned:
        picked = draw(st.lists(st.sampled_from(mentioned), max_size=2))
        drawn.extend(picked)
        drawn.extend([value] for value in picked[:1])
    return drawn


# -- invalid and odd schemas ----------------------------------------------------------

_ODD_KEYWORDS = [
    "$ref",
    "$dynamicRef",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$schema",
    "$vocabulary",
    "$defs",
    "definitions",
    "dependencies",
    "type",
    "enum",
    "const",
    "pattern",
    "patternProperties",
    "required",
    "minLength",
    "multipleOf",
    "items",
    "prefixItems",
    "properties",
    "allOf",
    "not",
    "if",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "unevaluatedItems",
    "minContains",
    "dependentRequired",
]
_ODD_VALUES = st.one_of(
    json_values(6),
    st.sampled_from(
        [
            "#",
            "#/",
            # Identifiers urllib.parse cannot split, and percent-encoded surrogates.
            "//[::1",
            "http://[::1#",
            "#/$defs/%ED%A0%80",
            {"\ud800": {"type": "string"}, "²": {"$ref": "#"}},
            "#/$defs/d0",
            "#/$defs/missing",
            "#frag",
            "#/properties/a",
            "https://example.com/x",
            "urn:x",
            "((",
            "[",
            "\\",
            "^(a|aa)+$",
            "\\\u0660",
            "^(a)?\\1b$",
            "a{0,30}a{0,30}a{0,30}a{0,30}a{0,30}a{0,30}b",
            "a{99999999}",
            -1,
            1.5,
            0,
            "",
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft-07/schema#",
            {"https://json-schema.org/draft/2020-12/vocab/core": True},
            {"https://example.com/vocab": True},
            {"$ref": "#"},
            [{"$ref": "#"}],
            {"a": {"$ref": "#"}},
        ]
    ),
)


def _mutate(schema: Any, edits: list[tuple[int, str, Any]]) -> Any:
    """Apply (node index, keyword, value) edits to a copy of ``schema``."""
    result = copy.deepcopy(schema)
    if not isinstance(result, dict):
        result = {"allOf": [result]}
    nodes = list(_walk(result))
    for index, keyword, value in edits:
        nodes[index % len(nodes)][keyword] = value
    return result


@st.composite
def hostile_documents(draw: st.DrawFn) -> Any:
    """A generated document with arbitrary JSON forced into some keyword positions."""
    base = draw(documents())
    edits = draw(
        st.lists(
            st.tuples(st.integers(0, 50), st.sampled_from(_ODD_KEYWORDS), _ODD_VALUES),
            min_size=1,
            max_size=3,
        )
    )
    return _mutate(base, edits)


# -- identity-shared schemas ----------------------------------------------------------


def share_equal_subschemas(schema: Any) -> Any:
    """A copy of ``schema`` in which equal subschema objects are one Python object, as
    programmatically built schemas often are (the same dict reused at several places).
    A validator must answer for it exactly as for a JSON copy: where a subschema is
    decides what it means, never which object it is."""
    seen: dict[Any, Any] = {}

    def intern(node: Any) -> Any:
        if isinstance(node, list):
            return [intern(item) for item in node]
        if not isinstance(node, dict):
            return node
        rebuilt = {
            key: value if key in ("enum", "const", "default", "examples") else intern(value)
            for key, value in node.items()
        }
        return seen.setdefault(_shape(rebuilt), rebuilt)

    return intern(fresh_copy(schema))


def fresh_copy(value: Any) -> Any:
    """A copy in which every place holds its own object (``copy.deepcopy`` keeps
    shared objects shared; a JSON round trip cannot write integers past
    ``sys.get_int_max_str_digits``)."""
    if isinstance(value, dict):
        return {key: fresh_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [fresh_copy(item) for item in value]
    return value


def _shape(value: Any) -> Any:
    """A hashable key equal for equal JSON values of the same Python types (1 and
    1.0 differ: a message writes them differently)."""
    if isinstance(value, dict):
        return ("object", frozenset((key, _shape(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_shape(item) for item in value))
    return (type(value).__name__, value)


@st.composite
def shared_resources(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A root schema and a registry in which one schema object ``shared`` (holding a
    relative ``$ref: "t.json"``) is reached under two different base URIs: embedded
    under two ``$id``s, or one document registered under two URIs. Each base's
    ``t.json`` is a different schema, so the two places mean different things."""
    # No "#/$defs/..." reference in the shared part: it would resolve in whichever
    # resource holds it.
    shared = {"allOf": [draw(schemas(2, (), False)), {"$ref": "t.json"}]}
    first, second = draw(documents()), draw(documents())
    registry: dict[str, Any] = {
        "https://one.example/t.json": first,
        "https://two.example/t.json": second,
    }
    if draw(st.booleans()):
        # The same object one level below two resources with their own $id.
        for uri in ("https://one.example/d.json", "https://two.example/d.json"):
            registry[uri] = {"$id": uri, "allOf": [shared]}
    else:
        registry["https://one.example/d.json"] = shared
        registry["https://two.example/d.json"] = shared
    root = {
        "properties": {
            "p": {"$ref": "https://one.example/d.json"},
            "q": {"$ref": "https://two.example/d.json"},
        }
    }
    return root, registry


# -- recursive schemas and instances deep enough to reach the depth limit -------------

# One step of a cycle: how a schema object hands the next one the child at "a" (an
# object) or at index 0 (an array). Each wraps the next schema ``s``.
_OBJECT_STEPS: list[Any] = [
    lambda s: {"properties": {"a": s}},
    lambda s: {"additionalProperties": s},
    lambda s: {"patternProperties": {"^a$": s}},
    lambda s: {"properties": {"b": True}, "unevaluatedProperties": s},
    lambda s: {"dependentSchemas": {"a": {"properties": {"a": s}}}},
]
_ARRAY_STEPS: list[Any] = [
    lambda s: {"items": s},
    lambda s: {"prefixItems": [s]},
    lambda s: {"contains": s},
    lambda s: {"unevaluatedItems": s},
]
# In-place wrappers around a step: the cycle still consumes one level per step.
_WRAPPERS: list[Any] = [
    lambda s: s,
    lambda s: s,
    lambda s: {"allOf": [s]},
    lambda s: {"anyOf": [s, False]},
    lambda s: {"if": True, "then": s},
    lambda s: {"not": {"not": s}},
]
# Assertions of the cycle's target that every container of the chain satisfies (so
# that no path can stop early on them) and that a scalar leaf may fail.
_LEAF_CHECKS: dict[str, st.SearchStrategy[Any]] = {
    "minimum": st.integers(-2, 2),
    "maxLength": st.integers(0, 3),
    "pattern": st.sampled_from(PATTERNS),
    "multipleOf": st.sampled_from([1, 2, 0.5]),
    "const": st.none(),
}


@st.composite
def recursive_chains(draw: st.DrawFn) -> tuple[Any, Any, int]:
    """(recursive schema, chain instance, max_instance_depth): a cycle of one to
    three steps back to the root, through wrappers and ``$defs`` hops, and an
    instance nested around the depth at which the limit is reached."""
    kind = draw(st.sampled_from(["array", "object"]))
    steps = _ARRAY_STEPS if kind == "array" else _OBJECT_STEPS
    limit = draw(st.sampled_from([3, 5, 8, 13, 256]))
    # At the default limit, one step per cycle: a few hundred levels of instance,
    # within what the error paths' generators reach before Python's recursion limit.
    length = draw(st.integers(1, 1 if limit > 100 else 3))
    defs: dict[str, Any] = {}
    inner: Any = {"$ref": "#"}
    for index in range(length):
        inner = draw(st.sampled_from(_WRAPPERS))(draw(st.sampled_from(steps))(inner))
        if index < length - 1 and draw(st.booleans()):
            defs[f"s{index}"] = inner
            inner = {"$ref": f"#/$defs/s{index}"}
    root: dict[str, Any] = dict(inner)
    extra = st.lists(st.sampled_from(["string", "number", "null"]), unique=True, max_size=2)
    types = [kind, *draw(extra)]
    if draw(st.booleans()):
        root["type"] = types
    for keyword in draw(st.lists(st.sampled_from(sorted(_LEAF_CHECKS)), unique=True, max_size=2)):
        if keyword not in root:
            root[keyword] = draw(_LEAF_CHECKS[keyword]) if keyword != "const" else None
    if "const" in root:
        root.pop("const")
        root["not"] = {"type": "boolean"}
    if defs:
        root["$defs"] = defs
    # Around the instance depth at which the limit is reached, and well within it.
    edge = limit * length
    depth = draw(st.integers(max(0, edge - 3), edge + length + 2) | st.integers(0, min(edge, 40)))
    leaf = draw(st.none() | _scalars)
    instance: Any = leaf
    for _ in range(depth):
        instance = [instance] if kind == "array" else {"a": instance}
    return root, instance, limit


# -- JSON text for contentMediaType ------------------------------------------------------

# Text Python's json module reads but RFC 8259 does not allow.
_NOT_RFC_8259 = ["NaN", "Infinity", "-Infinity", "[NaN]", '{"a": -Infinity}', "[1, Infinity]"]
# Valid JSON no parser limit lets through: too deep for Python, or an integer longer
# than Python converts.
_BEYOND_LIMITS = ["[" * 5000 + "]" * 5000, "7" * 5000, '{"a": [' + "1" * 4301 + "]}"]


@st.composite
def json_texts(draw: st.DrawFn) -> tuple[str, Any]:
    """(text, what it holds): a JSON value, "not JSON" for NaN/Infinity, or "limit"."""
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return draw(st.sampled_from(_NOT_RFC_8259)), "not JSON"
    if choice == 1:
        return draw(st.sampled_from(_BEYOND_LIMITS)), "limit"
    value = draw(json_values().filter(lambda v: "e+5000" not in repr_safe(v)))
    return json.dumps(value), value


def repr_safe(value: Any) -> str:
    """A huge integer's marker for json_texts' filter (json.dumps cannot write one)."""
    try:
        json.dumps(value)
    except ValueError:
        return "e+5000"
    return ""


# -- hostile regular expressions ------------------------------------------------------

# Pieces of ECMA-262 syntax, whole constructs and characters that look like syntax to
# Python's str methods (non-ASCII digits pass str.isdigit(), letters str.isalnum()).
_PATTERN_PIECES = [
    *"\\()[]{}?*+|^$.-,<>=!:/",
    *"kuxcpPdDwWsSbB019a_",
    "\u0660",  # ARABIC-INDIC DIGIT ZERO
    "\u00b2",  # SUPERSCRIPT TWO
    "\uff11",  # FULLWIDTH DIGIT ONE
    "\u00e9",
    "\U0001f600",
    "{1,2}",
    "{2,}",
    "{0,30}",
    "{99999999}",  # unrolled by the regex package: refused by max_pattern_length
    "(?:",
    "(?=",
    "(?<=",
    "(?<n>",
    "\\k<n>",
    "\\1",
    "\\0",
    "\\u{",
    "\\p{L}",
    "\\cJ",
]


def hostile_patterns() -> st.SearchStrategy[str]:
    """Strings made of regular-expression syntax, most of them invalid patterns."""
    single = [piece for piece in _PATTERN_PIECES if len(piece) == 1]
    # Every character escaped: identity escapes, class escapes, back references.
    escaped = st.sampled_from(single).map(lambda c: "\\" + c)
    return st.lists(st.sampled_from(_PATTERN_PIECES) | escaped, max_size=12).map("".join)


# Pieces that can all match the same run of "a": in sequence they can backtrack
# polynomially (each bounded or unbounded quantifier) or exponentially (optional and
# alternative pieces, nested quantifiers).
_AMBIGUOUS_PIECES = [
    "a",
    "a?",
    "a*",
    "a+",
    "a{0,30}",
    "a{2,}",
    "[ab]*",
    "(?:a|aa)",
    "(a)?",
    "(?:a?){2}",
    "(?:a*)*",
    "(a|b)+",
    "(?=a)",
]


@st.composite
def ambiguous_patterns(draw: st.DrawFn) -> str:
    """Patterns of pieces that compete for the same characters, maybe anchored: a
    few kinds of piece, each repeated (a?a?a?..., a{0,30}a*a{0,30}...)."""
    kinds = draw(st.lists(st.sampled_from(_AMBIGUOUS_PIECES), min_size=1, max_size=3))
    count = draw(st.integers(1, 40))  # not a list: hypothesis keeps lists short
    body = "".join(draw(st.sampled_from(kinds)) for _ in range(count))
    return draw(st.sampled_from(["", "^"])) + body + draw(st.sampled_from(["", "$", "b"]))
