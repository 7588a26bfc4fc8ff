"""Hazard: deep instances, deep schemas and long reference chains.

A 10,000-deep instance against a recursive schema must be answered with
ExecutionFailure quickly, from every validation path, and never as a Python
RecursionError or as ``False``; an instance within the limits (depth 200) must be
answered correctly without touching the interpreter's recursion limit. Schemas nested
beyond ``max_schema_depth`` and long ``$ref`` chains fail closed at compile time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, Limits, SchemaCoreError, ValidationError

from .support import (
    CALLS,
    LIMIT_NAMES,
    PATHS,
    QUICK,
    Call,
    call_iter_errors,
    expect_failure,
    nested_list,
    nested_object,
    where,
    within,
)

DEEP = 10_000
MODERATE = 200
DEFAULTS = Limits()
RECURSION_LIMIT = sys.getrecursionlimit()


@pytest.fixture(autouse=True)
def recursion_limit_untouched() -> Any:
    """Nothing here may raise (or leave raised) the interpreter's recursion limit."""
    assert sys.getrecursionlimit() == RECURSION_LIMIT
    yield
    assert sys.getrecursionlimit() == RECURSION_LIMIT


# Recursive schemas, with how to build instances that descend through them.
RECURSIVE: dict[str, tuple[Any, Any]] = {
    "items": ({"items": {"$ref": "#"}}, nested_list),
    "prefixItems": ({"prefixItems": [{"$ref": "#"}]}, nested_list),
    "contains": ({"contains": {"$ref": "#"}}, nested_list),
    "defs-array": (
        {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"},
        nested_list,
    ),
    "dynamicRef": ({"$dynamicAnchor": "n", "items": {"$dynamicRef": "#n"}}, nested_list),
    "unevaluatedItems": (
        {"prefixItems": [{"$ref": "#"}], "unevaluatedItems": False},
        nested_list,
    ),
    "anyOf": ({"anyOf": [{"items": {"$ref": "#"}}, {"type": "string"}]}, nested_list),
    "properties": ({"properties": {"a": {"$ref": "#"}}}, nested_object),
    "additionalProperties": ({"additionalProperties": {"$ref": "#"}}, nested_object),
    "patternProperties": ({"patternProperties": {"^a$": {"$ref": "#"}}}, nested_object),
    "unevaluatedProperties": (
        {"properties": {"a": {"$ref": "#"}}, "unevaluatedProperties": False},
        nested_object,
    ),
    "defs-object": (
        {
            "$defs": {"n": {"type": "object", "additionalProperties": {"$ref": "#/$defs/n"}}},
            "$ref": "#/$defs/n",
        },
        nested_object,
    ),
    "dependentSchemas": (
        {"dependentSchemas": {"a": {"properties": {"a": {"$ref": "#"}}}}},
        nested_object,
    ),
    # A reference beside other keywords: generated code must not inline through it.
    "ref-with-siblings": ({"items": {"$ref": "#", "type": "array"}}, nested_list),
    # Recursion closed by a subschema rather than by a reference.
    "tracking-branch": (
        {
            "$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
            "anyOf": [{"$ref": "#/$defs/n"}],
            "unevaluatedItems": False,
        },
        nested_list,
    ),
}


def deep_cases() -> list[Any]:
    """Every recursive schema with every call."""
    cases = []
    for name, (schema, make) in RECURSIVE.items():
        for call in CALLS:
            cases.append(pytest.param(schema, make, *call.values, id=f"{name}-{call.id}"))
    return cases


# -- 10,000-deep instances ------------------------------------------------------------


@pytest.mark.parametrize(("schema", "make", "call"), deep_cases())
def test_very_deep_instance_fails_quickly(schema: Any, make: Any, call: Call) -> None:
    validator = schemacore.compile(schema)
    instance = make(DEEP)
    failure = expect_failure(call, validator, instance)
    assert not isinstance(failure, RecursionError)


@pytest.mark.parametrize(("schema", "make", "call"), deep_cases())
def test_very_deep_instance_names_max_instance_depth(schema: Any, make: Any, call: Call) -> None:
    failure = expect_failure(call, schemacore.compile(schema), make(DEEP))
    assert failure.limit == "max_instance_depth", failure
    assert failure.value == DEFAULTS.max_instance_depth
    assert where(failure), "the failure should say where the limit was hit"


@pytest.mark.parametrize("call", CALLS)
def test_very_deep_instance_with_the_instance_walk(call: Call) -> None:
    # With max_instance_nodes the whole instance is walked first, whatever the schema.
    limits = Limits(max_instance_nodes=1_000_000)
    for schema in ({}, True, {"items": {"$ref": "#"}}):
        validator = schemacore.compile(schema, limits=limits)
        failure = expect_failure(call, validator, nested_list(DEEP), limit="max_instance_depth")
        assert failure.value == DEFAULTS.max_instance_depth
        assert failure.location == "/0" * DEFAULTS.max_instance_depth
        failure = expect_failure(call, validator, nested_object(DEEP), limit="max_instance_depth")
        assert failure.location == "/a" * DEFAULTS.max_instance_depth


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        pytest.param({"const": [[1]]}, nested_list(DEEP), id="const"),
        pytest.param({"enum": [1, {"a": {}}]}, nested_object(DEEP), id="enum"),
        pytest.param({"uniqueItems": True}, [nested_list(DEEP), nested_list(DEEP)], id="unique"),
    ],
)
def test_very_deep_values_compared_whole_fail_closed(
    schema: Any, instance: Any, call: Call
) -> None:
    # Equality walks the whole value: Python's recursion limit is the bound there.
    expect_failure(call, schemacore.compile(schema), instance)


def test_deep_instance_the_schema_never_descends_into_is_answered() -> None:
    validator = schemacore.compile({"type": "array", "maxItems": 1})
    instance = nested_list(DEEP)
    with within(QUICK):
        assert validator.is_valid(instance)
        assert list(validator.iter_errors(instance)) == []


def test_python_recursion_is_never_what_stops_validation() -> None:
    # Even when the caller lifts max_instance_depth beyond what the stack allows.
    validator = schemacore.compile(
        {"items": {"$ref": "#"}}, limits=Limits(max_instance_depth=1_000_000)
    )
    for call in PATHS:
        failure = expect_failure(call, validator, nested_list(DEEP))
        assert not isinstance(failure, RecursionError)


def test_validator_is_usable_after_a_depth_failure() -> None:
    schema = {"type": ["array", "null"], "items": {"$ref": "#"}}
    validator = schemacore.compile(schema)
    for _ in range(3):
        with pytest.raises(ExecutionFailure):
            validator.is_valid(nested_list(DEEP))
        errors = validator.iter_errors(nested_list(DEEP))
        with pytest.raises(ExecutionFailure):
            list(errors)
        assert validator.is_valid(nested_list(MODERATE))
        assert not validator.is_valid(nested_list(MODERATE, "x"))


@pytest.mark.parametrize("call", PATHS)
@pytest.mark.parametrize("name", RECURSIVE)
def test_max_instance_depth_is_never_passed(name: str, call: Call) -> None:
    # Just past the limit, and well within Python's: only the count can stop it.
    schema, make = RECURSIVE[name]
    failure = expect_failure(
        call, schemacore.compile(schema), make(DEFAULTS.max_instance_depth + 10)
    )
    assert failure.limit == "max_instance_depth"


def test_max_instance_depth_is_the_same_boundary_on_every_path() -> None:
    limits = Limits(max_instance_depth=10)
    boundaries = []
    for call in PATHS:
        validator = schemacore.compile({"items": {"$ref": "#"}}, limits=limits)
        for depth in range(1, 30):
            try:
                answer = call(validator, nested_list(depth))
            except ExecutionFailure as exc:
                assert exc.limit == "max_instance_depth"
                assert exc.value == 10
                boundaries.append(depth)
                break
            assert answer in (True, [])
        else:
            pytest.fail(f"a 30-deep instance passed max_instance_depth=10 ({call.__name__})")
    assert len(set(boundaries)) == 1, boundaries
    assert 5 <= boundaries[0] <= 15


# -- instances within the limits validate ---------------------------------------------


def all_locations(errors: list[schemacore.ValidationError]) -> set[str]:
    """Instance locations of ``errors`` and of the branch errors in their context."""
    found: set[str] = set()
    pending = list(errors)
    while pending:
        error = pending.pop()
        found.add(error.instance_location)
        pending.extend(error.context)
    return found


LIST_OR_NULL: dict[str, Any] = {"type": ["array", "null"]}
OBJECT_OR_NULL: dict[str, Any] = {"type": ["object", "null"]}

# Recursive schemas with a type that a string leaf breaks: (schema, make, error step).
MODERATE_CASES: dict[str, tuple[Any, Any, str]] = {
    "items": ({**LIST_OR_NULL, "items": {"$ref": "#"}}, nested_list, "/0"),
    "unevaluatedItems": (
        {**LIST_OR_NULL, "prefixItems": [{"$ref": "#"}], "unevaluatedItems": False},
        nested_list,
        "/0",
    ),
    "additionalProperties": (
        {**OBJECT_OR_NULL, "additionalProperties": {"$ref": "#"}},
        nested_object,
        "/a",
    ),
    "unevaluatedProperties": (
        {**OBJECT_OR_NULL, "properties": {"a": {"$ref": "#"}}, "unevaluatedProperties": False},
        nested_object,
        "/a",
    ),
    "defs": (
        {"$defs": {"n": {**LIST_OR_NULL, "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"},
        nested_list,
        "/0",
    ),
    "dynamicRef": (
        {"$dynamicAnchor": "n", **LIST_OR_NULL, "items": {"$dynamicRef": "#n"}},
        nested_list,
        "/0",
    ),
    "allOf": ({**LIST_OR_NULL, "allOf": [{"items": {"$ref": "#"}}]}, nested_list, "/0"),
    "anyOf": ({**LIST_OR_NULL, "anyOf": [{"items": {"$ref": "#"}}]}, nested_list, "/0"),
    "oneOf": ({**LIST_OR_NULL, "oneOf": [{"items": {"$ref": "#"}}]}, nested_list, "/0"),
    # `not` reports at its own location, without the branch's errors: no step.
    "not-not": ({**LIST_OR_NULL, "not": {"not": {"items": {"$ref": "#"}}}}, nested_list, ""),
    "if-then": ({**LIST_OR_NULL, "if": True, "then": {"items": {"$ref": "#"}}}, nested_list, "/0"),
    "dependentSchemas": (
        {**OBJECT_OR_NULL, "dependentSchemas": {"a": {"properties": {"a": {"$ref": "#"}}}}},
        nested_object,
        "/a",
    ),
}
MODERATE_PATHS = [*CALLS[:3]]  # is_valid (cold and warm), iter_errors


def moderate_cases() -> list[Any]:
    cases = []
    for name, (schema, make, step) in MODERATE_CASES.items():
        for path in MODERATE_PATHS:
            cases.append(pytest.param(schema, make, step, *path.values, id=f"{name}-{path.id}"))
    return cases


@pytest.mark.parametrize(("schema", "make", "step", "call"), moderate_cases())
def test_moderately_deep_instances_validate(schema: Any, make: Any, step: str, call: Call) -> None:
    validator = schemacore.compile(schema)
    good = make(MODERATE, None)
    bad = make(MODERATE, "leaf")
    with within(QUICK):
        good_answer = call(validator, good)
        bad_answer = call(validator, bad)
    if call is call_iter_errors:
        assert good_answer == []
        assert bad_answer, "the string leaf breaks the type"
        if step:
            assert step * MODERATE in all_locations(bad_answer)
        validator.validate(good)
        with pytest.raises(schemacore.ValidationError):
            validator.validate(bad)
    else:
        assert good_answer is True
        assert bad_answer is False


def test_moderately_deep_instance_through_every_applicator() -> None:
    schema = {
        "$defs": {
            "node": {
                "anyOf": [{"type": "null"}, {"$ref": "#/$defs/list"}, {"$ref": "#/$defs/map"}],
            },
            "list": {"type": "array", "allOf": [{"items": {"$ref": "#/$defs/node"}}]},
            "map": {"type": "object", "not": {"not": {"additionalProperties": {"$ref": "#"}}}},
        },
        "$ref": "#/$defs/node",
    }
    validator = schemacore.compile(schema)
    mixed: Any = None
    for level in range(MODERATE):
        mixed = [mixed] if level % 2 else {"k": mixed}
    assert validator.is_valid(mixed)
    assert list(validator.iter_errors(mixed)) == []


# -- deep schemas ---------------------------------------------------------------------


def nested_schema(depth: int, keyword: str = "items") -> Any:
    """A schema with ``depth`` levels of subschemas under ``keyword``."""
    schema: Any = {}
    for _ in range(depth):
        if keyword in ("allOf", "anyOf", "oneOf", "prefixItems"):
            schema = {keyword: [schema]}
        elif keyword in ("properties", "$defs", "dependentSchemas", "patternProperties"):
            schema = {keyword: {"a": schema}}
        else:
            schema = {keyword: schema}
    return schema


SCHEMA_KEYWORDS = [
    "items",
    "not",
    "allOf",
    "anyOf",
    "properties",
    "$defs",
    "if",
    "else",
    "contains",
    "additionalProperties",
    "unevaluatedItems",
    "propertyNames",
]


@pytest.mark.parametrize("keyword", SCHEMA_KEYWORDS)
def test_schema_within_max_schema_depth_compiles(keyword: str) -> None:
    with within(QUICK):
        validator = schemacore.compile(nested_schema(DEFAULTS.max_schema_depth, keyword))
    assert validator.is_valid(None)


def test_schema_at_max_schema_depth_works() -> None:
    depth = DEFAULTS.max_schema_depth
    schema = nested_schema(depth)
    schema_leaf = schema
    for _ in range(depth - 1):
        schema_leaf = schema_leaf["items"]
    schema_leaf["items"] = {"type": "integer"}  # still `depth` levels deep
    validator = schemacore.compile(schema)
    assert validator.is_valid(nested_list(depth, 1))
    assert not validator.is_valid(nested_list(depth, "x"))
    (error,) = validator.iter_errors(nested_list(depth, "x"))
    assert error.instance_location == "/0" * depth


@pytest.mark.parametrize("keyword", SCHEMA_KEYWORDS)
@pytest.mark.parametrize(
    "depth",
    [
        DEFAULTS.max_schema_depth + 1,
        150,
        300,
        DEEP,
    ],
)
def test_schema_beyond_max_schema_depth_names_the_limit(depth: int, keyword: str) -> None:
    with within(QUICK), pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(nested_schema(depth, keyword))
    assert caught.value.limit == "max_schema_depth"
    assert caught.value.value == DEFAULTS.max_schema_depth
    assert caught.value.location.startswith("/" + keyword)


def test_a_lower_max_schema_depth_is_applied() -> None:
    limits = Limits(max_schema_depth=10)
    validator = schemacore.compile(nested_schema(10), limits=limits)
    assert validator.is_valid(nested_list(12))
    with pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(nested_schema(11), limits=limits)
    assert caught.value.limit == "max_schema_depth"
    assert caught.value.value == 10
    assert caught.value.location == "/items" * 11


@pytest.mark.parametrize("call", PATHS)
def test_deep_const_value_in_the_schema_fails_closed(call: Call) -> None:
    # const/enum values are data, not subschemas, but they are compared whole.
    for schema in ({"const": nested_list(DEEP)}, {"enum": [nested_object(DEEP)]}):
        try:
            with within(QUICK):
                validator = schemacore.compile(schema)
        except SchemaCoreError as exc:
            assert not isinstance(exc, RecursionError)
            continue
        with within(QUICK):
            try:
                call(validator, nested_list(DEEP))
            except SchemaCoreError as exc:
                assert type(exc) is ExecutionFailure


# -- wide schemas and many references -------------------------------------------------


def test_max_subschemas_is_an_execution_failure() -> None:
    schema = {"properties": {f"p{i}": {"type": "string"} for i in range(200)}}
    with within(QUICK), pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(schema, limits=Limits(max_subschemas=50))
    assert caught.value.limit == "max_subschemas"
    assert caught.value.value == 50
    assert schemacore.compile(schema, limits=Limits(max_subschemas=500)).is_valid({"p1": "x"})


def test_max_references_is_an_execution_failure() -> None:
    schema = {
        "$defs": {"x": {"type": "integer"}},
        "properties": {f"p{i}": {"$ref": "#/$defs/x"} for i in range(30)},
    }
    with within(QUICK), pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(schema, limits=Limits(max_references=10))
    assert caught.value.limit == "max_references"
    assert caught.value.value == 10
    assert caught.value.location
    validator = schemacore.compile(schema, limits=Limits(max_references=30))
    assert not validator.is_valid({"p29": "x"})


def fan_out(levels: int) -> dict[str, Any]:
    """Each level references the next twice: 2**levels evaluation paths, few nodes."""
    defs: dict[str, Any] = {
        f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


def test_exponential_reference_fan_out_fails_closed_at_compile() -> None:
    with within(QUICK), pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(fan_out(40))
    assert caught.value.limit == "max_inplace_applications"
    assert caught.value.value == DEFAULTS.max_inplace_applications
    assert caught.value.location.startswith("/$defs/")
    # A small fan-out is fine.
    validator = schemacore.compile(fan_out(8))
    assert validator.is_valid(1)
    assert not validator.is_valid("x")


def test_exponential_reference_fan_out_is_bounded_by_the_time_budget() -> None:
    limits = Limits(time_budget=0.2, max_inplace_applications=10**15)
    with within(QUICK):
        validator = schemacore.compile(fan_out(40), limits=limits)
    for call in PATHS:
        failure = expect_failure(call, validator, 1, limit="time_budget")
        assert failure.value == 0.2
    expect_failure(call_iter_errors, validator, "x", limit="time_budget")


def finishes_in_a_child(schema: Any, instance: Any, seconds: float) -> bool:
    """Whether compiling ``schema`` and validating ``instance`` (both paths) ends, with
    an answer or an ExecutionFailure, within ``seconds`` in a separate process: a hang
    must not take the test session with it."""
    code = (
        "import sys, json, schemacore\n"
        "schema, instance = json.loads(sys.stdin.read())\n"
        "try:\n"
        "    validator = schemacore.compile(schema)\n"
        "    validator.is_valid(instance)\n"
        "    list(validator.iter_errors(instance))\n"
        "except schemacore.ExecutionFailure:\n"
        "    pass\n"
    )
    src = str(Path(schemacore.__file__).resolve().parent.parent)
    try:
        subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps([schema, instance]),
            text=True,
            timeout=seconds,
            check=True,
            env={**os.environ, "PYTHONPATH": src},
        )
    except subprocess.TimeoutExpired:
        return False
    return True


def test_exponential_reference_fan_out_fails_closed_at_default_limits() -> None:
    assert finishes_in_a_child(fan_out(40), 1, 3 * QUICK)


# Recursive schemas that apply themselves twice to each child: 2**depth applications
# for a 40-deep instance, unless the answers per value are remembered.
CHILD_FAN_OUT: list[Any] = [
    pytest.param(
        {"items": {"$ref": "#"}, "contains": {"$ref": "#"}}, nested_list, id="items-contains"
    ),
    pytest.param(
        {"properties": {"a": {"$ref": "#"}}, "patternProperties": {"^a": {"$ref": "#"}}},
        nested_object,
        id="properties-patternProperties",
    ),
    pytest.param(
        {"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}]},
        nested_list,
        id="allOf-twice",
    ),
    pytest.param(
        {
            "$defs": {"twice": {"items": {"$ref": "#"}}},
            "anyOf": [{"$ref": "#/$defs/twice"}, {"$ref": "#/$defs/twice"}],
        },
        nested_list,
        id="shared-definition",
    ),
    pytest.param(
        {
            "$defs": {"n": {"items": {"$ref": "#"}, "contains": {"$ref": "#"}}},
            "$ref": "#/$defs/n",
        },
        nested_list,
        id="through-a-root-reference",
    ),
]


@pytest.mark.parametrize(("schema", "make"), CHILD_FAN_OUT)
def test_fan_out_through_children_finishes_at_default_limits(schema: Any, make: Any) -> None:
    assert finishes_in_a_child(schema, make(40, 1), 3 * QUICK)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize(("schema", "make"), CHILD_FAN_OUT)
def test_fan_out_through_children_is_answered(schema: Any, make: Any, call: Call) -> None:
    # Each value is checked once against each recursive subschema: a quick, right
    # answer on every path; the same schema still rejects what it should.
    validator = schemacore.compile({**schema, "type": ["array", "object", "integer"]})
    with within(QUICK):
        assert call(validator, make(40, 1)) in (True, [], None)
        # (A deep invalid instance has exponentially many errors: see below.)
        invalid = make(40 if call in PATHS[:2] else 3, "x")
        assert call(validator, invalid) not in (True, [], None)


def test_fan_out_through_children_memoises_only_where_it_can_repeat() -> None:
    # Ordinary recursive schemas, whose cycles never reach one value twice, pay nothing.
    for schema in (
        {"items": {"$ref": "#"}},
        {"properties": {"left": {"$ref": "#"}, "right": {"$ref": "#"}}},
        {"prefixItems": [{"$ref": "#"}], "items": {"$ref": "#"}},
        {"anyOf": [{"items": {"$ref": "#"}}, {"additionalProperties": {"$ref": "#"}}]},
        {"properties": {"a": {"$ref": "#"}}, "additionalProperties": {"$ref": "#"}},
    ):
        assert not schemacore.compile(schema)._compiler.memoises, schema
    for param in CHILD_FAN_OUT:
        schema = param.values[0]
        assert schemacore.compile(schema)._compiler.memoises, schema


@pytest.mark.parametrize("call", PATHS)
def test_remembered_answers_last_one_call(call: Call) -> None:
    # A value the caller changes between two calls is checked again; nothing of the
    # instance is kept once the call returns.
    schema = {"type": ["array", "integer"], "items": {"$ref": "#"}, "contains": {"$ref": "#"}}
    validator = schemacore.compile(schema)
    instance = nested_list(6, 1)  # (deep invalid ones have too many errors to list)
    assert call(validator, instance) in (True, [])
    innermost = instance
    while isinstance(innermost[0], list):
        innermost = innermost[0]
    innermost[0] = "x"
    assert call(validator, instance) not in (True, [])
    innermost[0] = 2
    assert call(validator, instance) in (True, [])
    state = validator._compiler.state
    assert state.memo is None and state.applied is None


def every_context(errors: list[ValidationError]) -> None:
    """Read every error of a report, contexts included."""
    pending = list(errors)
    while pending:
        pending.extend(pending.pop().context)


def test_fan_out_through_children_errors_fail_closed() -> None:
    # Every level is invalid: a complete error report doubles with each level, so
    # the error and evaluation paths count the repeated applications. iter_errors
    # lists the errors at once (contains writes its context when it is read); the
    # whole report, every context read, fails as evaluate does.
    schema = {"type": "array", "items": {"$ref": "#"}, "contains": {"$ref": "#"}}
    limits = Limits(max_inplace_applications=1000)
    validator = schemacore.compile(schema, limits=limits)
    instance = nested_list(40, 1)
    with within(QUICK):
        assert validator.is_valid(instance) is False
    with within(QUICK):
        errors = list(validator.iter_errors(instance))
    assert {error.keyword for error in errors} == {"type", "contains"}

    for call in (
        lambda v, i: every_context(list(v.iter_errors(i))),
        # The walk of the units (the verdict and the errors need none).
        lambda v, i: v.evaluate(i).output("list"),
    ):
        failure = expect_failure(call, validator, instance, limit="max_inplace_applications")
        assert failure.value == 1000
        assert failure.location.startswith("/0")
    # A shallow instance is reported in full.
    errors = list(validator.iter_errors(nested_list(3, 1)))
    assert {error.keyword for error in errors} == {"type", "contains"}
    every_context(list(validator.iter_errors(nested_list(3, 1))))
    assert not validator.evaluate(nested_list(3, 1)).valid


def chained_fan_out(levels: int) -> dict[str, Any]:
    """Each definition applies the next one to the items twice, without a cycle."""
    defs: dict[str, Any] = {
        f"d{i}": {"items": {"$ref": f"#/$defs/d{i + 1}"}, "contains": {"$ref": f"#/$defs/d{i + 1}"}}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "integer"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


def test_fan_out_through_children_without_a_cycle_fails_closed_at_compile() -> None:
    # Nothing to memoise: the applications per value are counted at compile time.
    with within(QUICK), pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(chained_fan_out(40))
    assert caught.value.limit == "max_inplace_applications"
    assert caught.value.value == DEFAULTS.max_inplace_applications
    assert caught.value.location.startswith("/$defs/")
    validator = schemacore.compile(chained_fan_out(8))
    assert validator.is_valid(nested_list(8, 1))
    assert not validator.is_valid(nested_list(8, "x"))
    with pytest.raises(ExecutionFailure):
        schemacore.compile(chained_fan_out(8), limits=Limits(max_inplace_applications=100))


def test_fan_out_through_children_errors_are_bounded_by_the_time_budget() -> None:
    schema = {"type": "array", "items": {"$ref": "#"}, "contains": {"$ref": "#"}}
    validator = schemacore.compile(schema, limits=Limits(time_budget=0.2))
    with within(QUICK):
        assert validator.is_valid(nested_list(40, 1)) is False
    with within(QUICK):
        errors = list(validator.iter_errors(nested_list(40, 1)))
    # Reading every context (written when read) shares one more budget.
    failure = expect_failure(lambda v, i: every_context(errors), validator, None)
    assert failure.limit in ("time_budget", "max_inplace_applications")


# -- long $ref chains -----------------------------------------------------------------


def ref_chain(length: int, end: Any) -> dict[str, Any]:
    """``$defs`` d0 .. d<length>, each referencing the next; the last one is ``end``."""
    defs: dict[str, Any] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(length)}
    defs[f"d{length}"] = end
    return {"$defs": defs, "$ref": "#/$defs/d0"}


@pytest.mark.parametrize("length", [10, 50, 100])
def test_ref_chain_within_limits_validates(length: int) -> None:
    with within(QUICK):
        validator = schemacore.compile(ref_chain(length, {"type": "integer"}))
    assert validator.is_valid(3)
    assert not validator.is_valid("x")
    (error,) = validator.iter_errors("x")
    assert error.keyword == "type"
    assert error.keyword_location == "/$ref" * (length + 1) + "/type"


@pytest.mark.parametrize("length", [500, 5_000])
def test_long_ref_chain_compiles_or_fails_closed(length: int) -> None:
    schema = ref_chain(length, {"type": "integer"})
    try:
        with within(QUICK):
            validator = schemacore.compile(schema)
    except ExecutionFailure as exc:
        assert not isinstance(exc, RecursionError)
        return
    for call in PATHS:
        with within(QUICK):
            try:
                call(validator, "x")
            except SchemaCoreError as exc:
                assert type(exc) is ExecutionFailure


def test_long_ref_chain_names_max_reference_depth() -> None:
    with within(QUICK), pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(ref_chain(500, {"type": "integer"}))
    assert caught.value.limit == "max_reference_depth"
    assert caught.value.limit in LIMIT_NAMES
    assert caught.value.value == DEFAULTS.max_reference_depth
    assert caught.value.location.startswith("/$defs/")


def test_ref_chain_beyond_max_references_names_the_limit() -> None:
    with pytest.raises(ExecutionFailure) as caught:
        schemacore.compile(ref_chain(50, {}), limits=Limits(max_references=20))
    assert caught.value.limit == "max_references"


def test_cyclic_ref_chain_fails_closed_quickly() -> None:
    schema = {
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        "$ref": "#/$defs/a",
    }
    with within(QUICK), pytest.raises(schemacore.ExecutionFailure) as caught:
        schemacore.compile(schema).is_valid(1)
    assert caught.value.reason == "reference-loop"


# -- a failure inside a branch is never a branch mismatch -----------------------------

DEEP_DEFS = {"deep": {"type": "array", "items": {"$ref": "#/$defs/deep"}}}
DEEP_REF = {"$ref": "#/$defs/deep"}

BRANCHES: list[Any] = [
    pytest.param({"anyOf": [DEEP_REF, {"type": "string"}]}, id="anyOf-first"),
    pytest.param({"anyOf": [{"type": "string"}, DEEP_REF]}, id="anyOf-last"),
    pytest.param({"oneOf": [DEEP_REF, {"type": "array"}]}, id="oneOf-first"),
    pytest.param({"oneOf": [{"type": "array"}, DEEP_REF]}, id="oneOf-after-a-match"),
    pytest.param({"allOf": [{"type": "array"}, DEEP_REF]}, id="allOf"),
    pytest.param({"not": DEEP_REF}, id="not"),
    pytest.param({"not": {"not": DEEP_REF}}, id="not-not"),
    pytest.param({"if": DEEP_REF, "then": {"minItems": 5}}, id="if"),
    pytest.param({"if": {"type": "array"}, "then": DEEP_REF}, id="then"),
    pytest.param({"if": {"type": "string"}, "else": DEEP_REF}, id="else"),
    pytest.param({"contains": DEEP_REF}, id="contains"),
    pytest.param(
        {"anyOf": [DEEP_REF, {"type": "string"}], "unevaluatedItems": False},
        id="anyOf-tracking",
    ),
    pytest.param(
        {"not": {"anyOf": [{"type": "string"}, {"oneOf": [DEEP_REF, False]}]}}, id="nested"
    ),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("schema", BRANCHES)
def test_depth_failure_in_a_branch_propagates(schema: dict[str, Any], call: Call) -> None:
    validator = schemacore.compile({**schema, "$defs": DEEP_DEFS})
    expect_failure(call, validator, nested_list(DEEP), limit="max_instance_depth")
    # The same schema answers ordinary instances.
    outcome = validator.is_valid(nested_list(3))
    assert outcome == (not list(validator.iter_errors(nested_list(3))))
