"""Engine properties over generated Draft 2020-12 schemas and JSON instances.

* compile never raises anything but SchemaCoreError, even for invalid schemas, and
  a generated (valid) schema always compiles;
* ``is_valid(x) == (not list(iter_errors(x)))``, and ``validate`` agrees;
* ``allOf: [S]``, ``anyOf: [S, false]``, ``not: {not: S}`` and a ``$ref`` to
  ``$defs/S`` all answer as ``S`` does;
* a pickle round trip preserves every answer;
* is_valid answers the same before and after the validator switches to generated
  code.

The hypothesis profile comes from ``HYPOTHESIS_PROFILE`` (see profiles.py).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, note
from hypothesis import strategies as st

import schemacore
from schemacore import ExecutionFailure, SchemaCoreError

from .profiles import PROFILE
from .strategies import (
    documents,
    hostile_documents,
    hostile_patterns,
    instances_for,
    json_values,
    lift_defs,
)

# is_valid runs on closures first and switches to generated code once a validator has
# been used enough; this many rounds over the instances is well past that point.
WARM_UP = 20


def answer(validator: schemacore.Validator, instance: Any) -> Any:
    """is_valid's answer, or the failure it raised (class and limit)."""
    try:
        return validator.is_valid(instance)
    except SchemaCoreError as exc:
        return (type(exc).__name__, getattr(exc, "limit", None))


def error_summary(validator: schemacore.Validator, instance: Any) -> Any:
    try:
        return [
            (e.instance_location, e.keyword_location, e.absolute_keyword_location, e.message)
            for e in validator.iter_errors(instance)
        ]
    except SchemaCoreError as exc:
        return (type(exc).__name__, getattr(exc, "limit", None))


def warmed(validator: schemacore.Validator, instances: list[Any]) -> schemacore.Validator:
    """``validator`` after enough calls to have moved to its fastest is_valid tier."""
    for _ in range(WARM_UP):
        for instance in [None, *instances]:
            answer(validator, instance)
    return validator


def every_error(validator: schemacore.Validator, instance: Any) -> set[tuple[str, str]]:
    """(location, message) of every error, including those of failed branches."""
    found: set[tuple[str, str]] = set()
    pending = list(validator.iter_errors(instance))
    while pending:
        error = pending.pop()
        found.add((error.instance_location, error.message))
        pending.extend(error.context)
    return found


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, list[Any]]:
    schema = draw(documents())
    return schema, draw(instances_for(schema))


def compiled(schema: Any) -> schemacore.Validator:
    """Compile a generated schema: valid by construction, so it must compile."""
    note(f"schema: {schema!r}")
    return schemacore.compile(schema)


# -- compile --------------------------------------------------------------------------


@PROFILE
@given(documents())
def test_generated_schemas_compile(schema: Any) -> None:
    validator = compiled(schema)
    assert validator.schema is schema


@PROFILE
@given(hostile_documents(), st.lists(json_values(), max_size=3))
def test_compile_raises_only_schema_core_errors(schema: Any, instances: list[Any]) -> None:
    note(f"schema: {schema!r}")
    try:
        validator = schemacore.compile(schema)
    except SchemaCoreError as exc:
        event(f"refused: {type(exc).__name__}")
        assert isinstance(exc.message, str) and exc.message
        return
    event("compiled")
    for instance in instances:
        # Whatever the schema, a JSON instance gets an answer or an ExecutionFailure.
        try:
            valid = validator.is_valid(instance)
        except ExecutionFailure:
            continue
        assert valid == (not list(validator.iter_errors(instance)))


# -- the two validation paths agree ---------------------------------------------------


@PROFILE
@given(cases())
def test_is_valid_agrees_with_iter_errors(case: tuple[Any, list[Any]]) -> None:
    schema, instances = case
    validator = compiled(schema)
    cold = [answer(validator, instance) for instance in instances]
    warm = [answer(warmed(compiled(schema), instances), instance) for instance in instances]
    assert warm == cold, "generated is_valid disagrees with the closures"
    for instance in instances:
        valid = answer(validator, instance)
        errors = error_summary(validator, instance)
        event("valid" if valid is True else "invalid" if valid is False else "failure")
        if isinstance(valid, bool):
            assert isinstance(errors, list), f"is_valid answered, iter_errors raised {errors}"
            assert valid == (not errors), f"is_valid={valid} but errors={errors}"
            if errors:
                with pytest.raises(schemacore.ValidationError) as caught:
                    validator.validate(instance)
                # validate raises the most relevant error, possibly from a branch.
                raised = (caught.value.instance_location, caught.value.message)
                assert raised in every_error(validator, instance)
            else:
                validator.validate(instance)
        else:
            assert errors == valid, "both paths must fail the same way"


# -- equivalent wrappers --------------------------------------------------------------

WRAPPERS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "allOf": lambda s: lift_defs(s, {"allOf": [s]}),
    "anyOf-false": lambda s: lift_defs(s, {"anyOf": [s, False]}),
    "not-not": lambda s: lift_defs(s, {"not": {"not": s}}),
    "ref": lambda s: lift_defs(s, {"$defs": {"S": s}, "$ref": "#/$defs/S"}),
}


@pytest.mark.parametrize("wrapper", WRAPPERS)
@PROFILE
@given(case=cases())
def test_wrappers_answer_as_the_schema(wrapper: str, case: tuple[Any, list[Any]]) -> None:
    schema, instances = case
    validator = compiled(schema)
    wrapped_schema = WRAPPERS[wrapper](schema)
    note(f"wrapped: {wrapped_schema!r}")
    wrapped = schemacore.compile(wrapped_schema)
    hot = warmed(schemacore.compile(wrapped_schema), instances)
    for instance in instances:
        expected = answer(validator, instance)
        assert answer(wrapped, instance) == expected, instance
        assert answer(hot, instance) == expected, instance
        errors = error_summary(wrapped, instance)
        if isinstance(expected, bool):
            assert isinstance(errors, list)
            assert (not errors) == expected


# -- pickling -------------------------------------------------------------------------


@PROFILE
@given(cases())
def test_pickling_preserves_answers(case: tuple[Any, list[Any]]) -> None:
    schema, instances = case
    validator = compiled(schema)
    clone = pickle.loads(pickle.dumps(validator))
    assert clone is not validator
    for instance in instances:
        assert answer(clone, instance) == answer(validator, instance)
        assert error_summary(clone, instance) == error_summary(validator, instance)


_REGEX_FORMAT = schemacore.compile({"format": "regex"}, format_assertion=True)


@PROFILE
@given(hostile_patterns(), st.text(alphabet="a1_\u0660\n", max_size=6))
def test_patterns_compile_or_are_schema_errors(pattern: str, text: str) -> None:
    """Any pattern compiles or is a SchemaError (never an internal error), the regex
    format answers True or False for it, and a compiled one answers any string."""
    note(repr(pattern))
    valid_format = answer(_REGEX_FORMAT, pattern)
    try:
        validator = schemacore.compile({"pattern": pattern})
    except schemacore.SchemaError:
        assert valid_format is False
        return
    except ExecutionFailure as exc:  # a{99999999}: too large to compile
        assert exc.limit == "max_pattern_length"
        assert valid_format == ("ExecutionFailure", "max_pattern_length")
        return
    assert valid_format is True
    assert answer(validator, text) in (True, False, ("ExecutionFailure", "regex_timeout"))
