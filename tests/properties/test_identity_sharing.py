"""A subschema means what its place says, whichever Python object it is.

Programmatically built schemas reuse sub-dicts: the same object under two ``$id``
bases, one document registered under two URIs, ``False`` (always one object) at many
places. Each property compares a validator for such a schema with one for a JSON
copy of it (where every place holds its own object): every answer and every error
field must be the same.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, note

import schemacore
from schemacore import SchemaCoreError

from .profiles import PROFILE
from .strategies import (
    documents,
    fresh_copy,
    instances_for,
    share_equal_subschemas,
    shared_resources,
)
from .test_engine_properties import WARM_UP, shown


def observed(validator: schemacore.Validator, instance: Any) -> Any:
    """Everything a caller can see of one validation."""
    try:
        errors = [
            (e.instance_location, e.keyword_location, e.absolute_keyword_location, e.message)
            for e in validator.iter_errors(instance)
        ]
        return validator.is_valid(instance), errors, validator.evaluate(instance).output("list")
    except SchemaCoreError as exc:
        return type(exc).__name__, getattr(exc, "limit", None)


def agree(shared: schemacore.Validator, copied: schemacore.Validator, instances: list[Any]) -> None:
    for instance in instances:
        assert observed(shared, instance) == observed(copied, instance), instance
    # And once both have moved to generated code.
    for _ in range(WARM_UP):
        for instance in instances:
            assert shared.is_valid(instance) == copied.is_valid(instance), instance


@PROFILE
@given(documents().flatmap(lambda schema: instances_for(schema).map(lambda xs: (schema, xs))))
def test_interned_subschemas_answer_as_a_json_copy(case: tuple[Any, list[Any]]) -> None:
    schema, instances = case
    interned = share_equal_subschemas(schema)
    note(f"schema: {shown(schema)}")
    agree(schemacore.compile(interned), schemacore.compile(fresh_copy(schema)), instances)


@PROFILE
@given(
    shared_resources().flatmap(
        lambda case: instances_for(case[1]["https://one.example/t.json"]).map(lambda xs: (case, xs))
    )
)
def test_one_object_under_two_bases_answers_as_two_copies(
    case: tuple[tuple[Any, dict[str, Any]], list[Any]],
) -> None:
    (root, registry), drawn = case
    note(f"registry: {shown(registry)}")
    instances = [{"p": x, "q": y} for x in drawn for y in drawn][:9]
    agree(
        schemacore.compile(root, registry=registry),
        schemacore.compile(root, registry=fresh_copy(registry)),
        instances,
    )
