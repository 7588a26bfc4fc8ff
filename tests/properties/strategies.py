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
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "NAMES",
    "PATTERNS",
    "ambiguous_patterns",
    "documents",
    "harvest",
    "hostile_documents",
    "hostile_patterns",
    "instances_for",
    "json_values",
    "lift_defs",
]

NAMES = ["a", "b", "c", "foo", "x1"]
# Small, safe ECMA-262 patterns (no catastrophic backtracking on short inputs).
PATTERNS = ["^a", "b$", "^[a-c]+$", "\\d", "^$", "x|y", "^.{2,}$", "[A-Z]", "^(ab)*$", "o"]
TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"]
FORMATS = ["email", "date", "uri", "ipv4", "regex", "uuid"]

_keys = st.sampled_from(NAMES) | st.text(alphabet="abcxo1_", max_size=3)
_numbers = (
    st.integers(-5, 5)
    | st.integers()
    | st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.5, 1e-9, 1e300, -1e300, 3.0])
    | st.floats(allow_nan=False, allow_infinity=False)
)
_strings = st.sampled_from(NAMES) | st.text(alphabet="abcxyoAB01 \u00e9\U0001f600", max_size=5)
_scalars = st.none() | st.booleans() | _numbers | _strings


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
_multiples = st.sampled_from([1, 2, 3, 0.5, 1.5, 0.1, 0.0001, 1e-300, 1e300]) | st.integers(1, 7)
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
