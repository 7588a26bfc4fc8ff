"""Mixed-dialect embedding properties: generated chains of schema objects, each one
possibly an embedded resource of another draft, down to a probe resource.

* the document compiles, whatever the drafts around the probe and the subschema
  positions leading to it, and a ``$ref`` to the probe answers as the probe's own
  draft reads it (tests/engine/test_mixed_dialects.py has the probe and its verdicts);
* the probe made invalid under its own meta-schema is refused, at its location.

The hypothesis profile comes from ``HYPOTHESIS_PROFILE`` (see profiles.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import schemacore
from schemacore import SchemaError
from tests.engine.test_mixed_dialects import DRAFTS, INNER_URI, INVALID, PROBES, Draft, probe

from .profiles import PROFILE

# Where a schema object holds the next one. None of these changes the verdict on
# the root instance: in place, the chain accepts everything.
KINDS = ["additionalProperties", "items", "definitions", "properties", "allOf", "tuple", "not"]

# One level of the chain: the kind of position holding the next object, and the
# draft of the object at that level when it is an embedded resource (None: not one).
Level = tuple[str, str | None]
levels = st.lists(
    st.tuples(st.sampled_from(KINDS), st.none() | st.sampled_from(sorted(DRAFTS))),
    min_size=1,
    max_size=4,
)


def hold(kind: str, draft: Draft, child: Any) -> tuple[dict[str, Any], str]:
    """The members of an object of ``draft`` holding ``child`` at a position of
    ``kind``, and the child's pointer from that object."""
    if kind == "definitions":
        return {"definitions": {"d": child}}, "/definitions/d"
    if kind == "properties":
        return {"properties": {"holder": child}}, "/properties/holder"
    if kind == "allOf":
        return {"allOf": [{}, child]}, "/allOf/1"
    if kind == "tuple":
        return {draft.tuple_keyword: [{}, child]}, f"/{draft.tuple_keyword}/1"
    if kind == "not":  # negated, inside a branch that passes anyway
        return {"anyOf": [{}, {"not": child}]}, "/anyOf/1/not"
    return {kind: child}, f"/{kind}"


def chain(
    outer: str, declared: bool, path: list[Level], inner: str, invalid: bool
) -> tuple[dict[str, Any], str]:
    """The root schema holding the chain and the probe, and the probe's pointer."""
    # The draft of each object, from the root down.
    drafts = [DRAFTS[outer]]
    for _, embedded in path[1:]:
        drafts.append(DRAFTS[embedded] if embedded else drafts[-1])
    node: Any = probe(DRAFTS[inner], **(INVALID[inner][0] if invalid else {}))
    pointer = ""
    for depth in range(len(path) - 1, -1, -1):
        kind = path[depth][0]
        members, step = hold(kind, drafts[depth], node)
        pointer = step + pointer
        if depth > 0 and path[depth][1] is not None:
            draft = drafts[depth]
            uri = f"https://example.com/level{depth}"
            members = {"$schema": draft.uri, draft.identifier: uri, **members}
        node = members
    root: dict[str, Any] = {"$schema": DRAFTS[outer].uri} if declared else {}
    root.update(node)
    root["properties"] = {"a": {"$ref": INNER_URI}, **root.get("properties", {})}
    return root, pointer


def compile_root(outer: str, root: Any) -> schemacore.Validator:
    if "$schema" in root:
        return schemacore.compile(root)
    return schemacore.compile(root, default_dialect=outer)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, bool, list[Level], str]:
    outer = draw(st.sampled_from(sorted(DRAFTS)))
    return outer, draw(st.booleans()), draw(levels), draw(st.sampled_from(sorted(DRAFTS)))


@PROFILE
@given(cases())
def test_a_probe_embedded_anywhere_answers_under_its_own_draft(
    case: tuple[str, bool, list[Level], str],
) -> None:
    outer, declared, path, inner = case
    root, _ = chain(outer, declared, path, inner, invalid=False)
    note(f"schema: {root}")
    validator = compile_root(outer, root)
    for instance, verdicts in PROBES:
        assert validator.is_valid({"a": instance}) is verdicts[inner], instance
        assert (not list(validator.iter_errors({"a": instance}))) is verdicts[inner], instance


@PROFILE
@given(cases())
def test_a_probe_invalid_under_its_own_draft_is_refused_where_it_is(
    case: tuple[str, bool, list[Level], str],
) -> None:
    outer, declared, path, inner = case
    root, pointer = chain(outer, declared, path, inner, invalid=True)
    note(f"schema: {root}")
    with pytest.raises(SchemaError) as caught:
        compile_root(outer, root)
    assert caught.value.reason == "meta-schema"
    assert caught.value.location == pointer + INVALID[inner][1]
