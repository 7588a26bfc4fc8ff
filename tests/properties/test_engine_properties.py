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

import contextlib
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, note
from hypothesis import strategies as st

import schemacore
from schemacore import ExecutionFailure, SchemaCoreError
from schemacore.ceiling import error_ceiling
from schemacore.display import show
from schemacore.relevance import relevance

from .profiles import PROFILE
from .strategies import (
    documents,
    hostile_documents,
    hostile_patterns,
    instances_for,
    json_texts,
    json_values,
    lift_defs,
    number_twins,
    numeric_schemas,
    recursive_chains,
)

# is_valid runs on closures first and switches to generated code once a validator has
# been used enough; this many rounds over the instances is well past that point.
WARM_UP = 20


def shown(value: Any) -> str:
    """repr() for notes; generated values may hold integers too long for repr."""
    return show(value, 100_000)


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
    note(f"schema: {shown(schema)}")
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
    note(f"schema: {shown(schema)}")
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
        if valid:
            assert not list(validator.iter_errors(instance))
            continue
        # is_valid stops at the first failing keyword; listing every error goes on to
        # the others, which may run what cannot finish (a reference loop without
        # progress, say): then it fails closed, never answers "no errors".
        with contextlib.suppress(ExecutionFailure):
            assert list(validator.iter_errors(instance))


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


def _where(error: schemacore.ValidationError) -> tuple[str, str, str]:
    return error.instance_location, error.keyword_location, error.message


@PROFILE
@given(cases())
def test_validate_raises_the_best_match_of_every_error(case: tuple[Any, list[Any]]) -> None:
    # validate() stops reading errors at the first one as relevant as the schema's
    # ceiling: its error must be the one best_match picks from all of them. Each
    # schema also runs as the items of an array holding every instance, where many
    # errors of equal relevance compete (the first must win) and stopping pays.
    schema, instances = case
    wrapper = lift_defs(schema, {"type": "array", "items": schema})
    for checked, tried in ((schema, instances), (wrapper, [instances * 2])):
        validator = compiled(checked)
        ceiling = error_ceiling(validator._node)
        for instance in tried:
            try:
                errors = list(validator.iter_errors(instance))
            except SchemaCoreError:
                continue
            assert all(relevance(error) <= ceiling for error in errors), ceiling
            expected = schemacore.best_match(errors)
            if expected is None:
                validator.validate(instance)
                continue
            with pytest.raises(schemacore.ValidationError) as caught:
                validator.validate(instance)
            assert _where(caught.value) == _where(expected)
            reached = [i for i, error in enumerate(errors) if relevance(error) >= ceiling]
            event("stopped early" if reached and reached[0] < len(errors) - 1 else "read all")


def places(validator: schemacore.Validator, instance: Any) -> Any:
    summary = error_summary(validator, instance)
    return [row[:3] for row in summary] if isinstance(summary, list) else summary


@PROFILE
@given(documents() | numeric_schemas(), number_twins())
def test_equal_numbers_answer_alike(schema: Any, twins: tuple[Any, Any]) -> None:
    # JSON has one number type: 2.0**60 is 2**60, and a numpy-like float subclass is
    # its value. Every path answers both spellings alike, in the same places.
    number, twin = twins
    note(f"twin: {shown(twin)} ({type(twin).__name__})")
    validator = compiled(schema)
    hot = warmed(compiled(schema), [number])
    for wrap in (lambda x: x, lambda x: [x, x], lambda x: dict.fromkeys(["a", "b"], x)):
        plain, other = wrap(number), wrap(twin)
        expected = answer(validator, plain)
        assert answer(validator, other) == expected
        assert answer(hot, other) == expected
        # Messages quote the instance, so only where the errors are must agree.
        assert places(validator, other) == places(validator, plain)
        if isinstance(expected, bool):
            assert validator.evaluate(other).valid == expected


def four_paths(schema: Any, instance: Any, limits: schemacore.Limits) -> list[Any]:
    """is_valid (closures, then generated code), iter_errors, validate, evaluate:
    each answer, or the class and limit of the failure."""
    cold, hot = schemacore.compile(schema, limits=limits), schemacore.compile(schema, limits=limits)
    hot._promote()
    found: list[Any] = []

    def validated(validator: schemacore.Validator) -> bool:
        try:
            validator.validate(instance)
        except schemacore.ValidationError:
            return False
        return True

    calls: list[Callable[[], Any]] = [
        lambda: cold.is_valid(instance),
        lambda: hot.is_valid(instance),
        lambda: not list(cold.iter_errors(instance)),
        lambda: validated(cold),
        lambda: cold.evaluate(instance).valid,
    ]
    for call in calls:
        try:
            found.append(call())
        except SchemaCoreError as exc:
            found.append((type(exc).__name__, getattr(exc, "limit", None)))
    return found


@PROFILE
@given(recursive_chains())
def test_every_path_counts_recursion_alike(chain: tuple[Any, Any, int]) -> None:
    # One depth accounting: edges that close a cycle, against max_instance_depth.
    schema, instance, limit = chain
    note(f"schema: {shown(schema)}, limit {limit}")
    found = four_paths(schema, instance, schemacore.Limits(max_instance_depth=limit))
    event("limit" if isinstance(found[0], tuple) else "answered")
    assert all(answer == found[0] for answer in found), f"the paths disagree: {found}"
    if isinstance(found[0], tuple):
        assert found[0] == ("ExecutionFailure", "max_instance_depth")


@PROFILE
@given(documents(), json_texts())
def test_json_content_answers_as_its_document(schema: Any, text: tuple[str, Any]) -> None:
    # contentSchema applies to the parsed document as the schema would to the value;
    # NaN/Infinity are no JSON; a parser limit fails on every path, never a mismatch.
    source, held = text
    inner = schema if isinstance(schema, dict) else {"allOf": [schema]}
    media = {
        "contentMediaType": "application/json",
        "contentSchema": {**inner, "$id": "urn:content"},
    }
    for wrapped, flip in ((media, False), ({"not": media}, True)):
        note(f"wrapped: {shown(wrapped)}")
        validator = schemacore.compile(wrapped, content_assertion=True)
        got = answer(validator, source)
        if held == "limit":
            assert isinstance(got, tuple) and got[0] == "ExecutionFailure", got
        elif held == "not JSON":
            assert got is flip
        else:
            expected = answer(compiled(schema), held)
            if isinstance(expected, bool):
                assert got is (expected != flip)
            else:
                assert got == expected
        errors = error_summary(validator, source)
        if isinstance(got, bool):
            assert isinstance(errors, list) and got == (not errors)
        else:
            assert errors == got


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
    note(f"wrapped: {shown(wrapped_schema)}")
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
