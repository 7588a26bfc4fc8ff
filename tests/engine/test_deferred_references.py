"""References to nothing, compiled with ``defer_unresolved=True``.

A reference that names no document, anchor or location compiles to a node that
raises ExecutionFailure (reason ``unresolvable-reference``) in every call that
reaches it, on every path: the closures, generated code, the error path, validate,
evaluate and its output formats, and a pickled copy. An instance that never reaches
it is answered as if the reference were not there; a verdict is only ever given
when the reference could not have changed it. Without the option, compiling fails
as before, and the error names the option.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import pytest

import schemacore
from schemacore import ExecutionFailure, SchemaError
from schemacore.model import DeferredReference
from schemacore.output import FORMATS

ABSENT = "https://absent.example/step.json"
OTHER = "https://example.com/other.json"
REGISTRY = {OTHER: {"$defs": {"present": {"$anchor": "here", "type": "string"}}}}

# Each way a reference names nothing: (reference, the URI it names).
KINDS = [
    pytest.param(ABSENT, ABSENT, id="document"),
    pytest.param("#/$defs/absent", "#/$defs/absent", id="pointer"),
    pytest.param("#absent", "#absent", id="anchor"),
    pytest.param(f"{OTHER}#/$defs/absent", f"{OTHER}#/$defs/absent", id="pointer-elsewhere"),
    pytest.param(f"{OTHER}#absent", f"{OTHER}#absent", id="anchor-elsewhere"),
    pytest.param(f"{OTHER}#/$defs/present/items", f"{OTHER}#/$defs/present/items", id="past-leaf"),
]


def _step_schema(reference: str) -> dict[str, Any]:
    """An object whose ``step`` member refers to ``reference``."""
    return {
        "type": "object",
        "properties": {"name": {"type": "string"}, "step": {"$ref": reference}},
        "$defs": {"present": {"type": "integer"}},
    }


def _deferred(schema: Any, **options: Any) -> schemacore.Validator:
    return schemacore.compile(schema, registry=REGISTRY, defer_unresolved=True, **options)


# -- the paths of a call: each answers a verdict, or raises ----------------------------

Path = Callable[[Any, Any], bool]


def _closures(schema: Any, instance: Any) -> bool:
    validator = _deferred(schema)
    assert not validator._compiler.promoted
    return validator.is_valid(instance)


def _generated(schema: Any, instance: Any) -> bool:
    validator = _deferred(schema)
    validator._promote()
    assert validator._compiler.promoted
    return validator.is_valid(instance)


def _iter_errors(schema: Any, instance: Any) -> bool:
    return not list(_deferred(schema).iter_errors(instance))


def _validate(schema: Any, instance: Any) -> bool:
    try:
        _deferred(schema).validate(instance)
    except schemacore.ValidationError:
        return False
    return True


def _evaluate(schema: Any, instance: Any) -> bool:
    return _deferred(schema).evaluate(instance).valid


def _output(fmt: str) -> Path:
    def path(schema: Any, instance: Any) -> bool:
        output = _deferred(schema).evaluate(instance).output(fmt)
        # The nested and flat shapes alike start with the verdict.
        verdict = output["valid"]
        assert isinstance(verdict, bool)
        return verdict

    path.__name__ = f"output_{fmt}"
    return path


def _pickled(schema: Any, instance: Any) -> bool:
    validator: schemacore.Validator = pickle.loads(pickle.dumps(_deferred(schema)))
    return validator.is_valid(instance)


PATHS = [
    pytest.param(_closures, id="closures"),
    pytest.param(_generated, id="generated"),
    pytest.param(_iter_errors, id="iter_errors"),
    pytest.param(_validate, id="validate"),
    pytest.param(_evaluate, id="evaluate"),
    *(pytest.param(_output(fmt), id=f"output-{fmt}") for fmt in FORMATS),
    pytest.param(_pickled, id="pickled"),
]


def _expect_failure(path: Path, schema: Any, instance: Any) -> ExecutionFailure:
    with pytest.raises(ExecutionFailure) as caught:
        path(schema, instance)
    failure = caught.value
    assert type(failure) is ExecutionFailure
    assert failure.reason == "unresolvable-reference"
    assert failure.error_class == "execution_failure"
    assert failure.limit is None
    return failure


# -- compiling ------------------------------------------------------------------------


@pytest.mark.parametrize(("reference", "uri"), KINDS)
def test_by_default_a_reference_to_nothing_fails_the_compile_naming_the_option(
    reference: str, uri: str
) -> None:
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(_step_schema(reference), registry=REGISTRY)
    assert type(caught.value) is SchemaError
    assert caught.value.reason == "unresolvable-reference"
    assert caught.value.location == "/properties/step/$ref"
    assert "defer_unresolved=True" in caught.value.message
    assert repr(uri) in caught.value.message


@pytest.mark.parametrize(("reference", "uri"), KINDS)
def test_each_reference_to_nothing_is_listed_once(reference: str, uri: str) -> None:
    validator = _deferred(_step_schema(reference))
    assert validator.deferred_references == (DeferredReference(uri, "#/properties/step/$ref"),)
    uri_again, location = validator.deferred_references[0]  # a plain pair too
    assert (uri_again, location) == (uri, "#/properties/step/$ref")


def test_a_validator_without_the_option_lists_nothing() -> None:
    assert schemacore.compile(_step_schema("#/$defs/present")).deferred_references == ()
    assert _deferred(_step_schema("#/$defs/present")).deferred_references == ()


def test_the_default_compile_keeps_its_shared_options() -> None:
    from schemacore.validator import _DEFAULT_OPTIONS

    assert schemacore.compile({"type": "string"})._compiler.options is _DEFAULT_OPTIONS
    options = _deferred({"type": "string"})._compiler.options
    assert options.defer_unresolved is True
    assert options.limits is _DEFAULT_OPTIONS.limits


def test_a_reference_nothing_compiles_is_neither_compiled_nor_listed() -> None:
    # Definitions are compiled when referenced: one never referenced is no reference.
    schema = {"$defs": {"unused": {"$ref": ABSENT}}, "type": "string"}
    assert schemacore.compile(schema).is_valid("x")
    assert _deferred(schema).deferred_references == ()


def test_one_keyword_compiled_in_several_scopes_is_listed_once() -> None:
    # A resource binding a dynamic anchor compiles what it reaches once per scope.
    schema = {
        "$id": "https://example.com/root",
        "$defs": {
            "shared": {"properties": {"x": {"$ref": ABSENT}}},
            "a": {
                "$id": "https://example.com/a",
                "$dynamicAnchor": "t",
                "$ref": "https://example.com/root#/$defs/shared",
            },
            "b": {
                "$id": "https://example.com/b",
                "$dynamicAnchor": "t",
                "$ref": "https://example.com/root#/$defs/shared",
            },
        },
        "allOf": [{"$ref": "a"}, {"$ref": "b"}],
    }
    validator = _deferred(schema)
    assert validator.deferred_references == (
        DeferredReference(ABSENT, "https://example.com/root#/$defs/shared/properties/x/$ref"),
    )
    assert validator.is_valid({"y": 1})
    with pytest.raises(ExecutionFailure):
        validator.is_valid({"x": 1})


def test_deferred_references_count_against_max_references() -> None:
    schema = {"properties": {"a": {"$ref": ABSENT}, "b": {"$ref": ABSENT + "#x"}}}
    with pytest.raises(ExecutionFailure) as caught:
        _deferred(schema, limits=schemacore.Limits(max_references=1))
    assert caught.value.limit == "max_references"


# -- only references to nothing are deferred ------------------------------------------


def _raising_loader(uri: str) -> Any:
    raise FileNotFoundError(uri)


@pytest.mark.parametrize(
    ("schema", "options", "reason"),
    [
        pytest.param({"$ref": "http://[bad"}, {}, "invalid-reference", id="invalid-reference"),
        pytest.param(
            {"$dynamicRef": "#a b%zz"}, {}, "invalid-reference", id="invalid-dynamic-reference"
        ),
        pytest.param(
            {"$defs": {"a": {"$id": "http://[bad"}}}, {}, "invalid-identifier", id="identifier"
        ),
        pytest.param(
            {"$ref": ABSENT}, {"loader": _raising_loader}, "loader-failed", id="loader-failed"
        ),
        pytest.param({"pattern": "("}, {}, "bad-regex", id="bad-regex"),
        pytest.param({"$ref": 5}, {}, "meta-schema", id="not-a-string"),
        pytest.param(
            {"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}},
            {},
            "duplicate-identifier",
            id="duplicate",
        ),
        pytest.param({"$ref": "#/$defs/list", "$defs": {"list": []}}, {}, "meta-schema", id="list"),
    ],
)
def test_every_other_fault_still_fails_the_compile(
    schema: Any, options: dict[str, Any], reason: str
) -> None:
    with pytest.raises(schemacore.SchemaCoreError) as caught:
        schemacore.compile(schema, defer_unresolved=True, **options)
    assert caught.value.reason == reason
    assert not isinstance(caught.value, ExecutionFailure)


def test_a_reference_to_a_value_that_is_no_schema_still_fails_the_compile() -> None:
    # There is something at the location: it is just not a schema.
    schema = {"properties": {"a": {"$ref": "#/required"}}, "required": ["a"]}
    with pytest.raises(SchemaError) as caught:
        schemacore.compile(schema, defer_unresolved=True)
    assert caught.value.reason == "not-a-schema"


# -- calls that never reach it ----------------------------------------------------------


@pytest.mark.parametrize(("reference", "uri"), KINDS)
@pytest.mark.parametrize("path", PATHS)
def test_an_instance_that_never_reaches_it_is_answered_normally(
    path: Path, reference: str, uri: str
) -> None:
    schema = _step_schema(reference)
    assert path(schema, {"name": "x"}) is True
    assert path(schema, {"name": 1}) is False
    assert path(schema, "not an object") is False


def test_its_errors_and_outputs_are_those_of_the_schema_without_it() -> None:
    deferred = _deferred(_step_schema(ABSENT))
    plain = schemacore.compile(_step_schema("#/$defs/present"))
    instances: list[Any] = [{"name": 1}, {"name": "x", "other": [1]}, []]
    for instance in instances:
        expected = [(e.instance_location, e.message) for e in plain.iter_errors(instance)]
        found = [(e.instance_location, e.message) for e in deferred.iter_errors(instance)]
        assert found == expected
        for fmt in ("flag", "basic", "list"):
            assert deferred.evaluate(instance).output(fmt) == plain.evaluate(instance).output(fmt)


# -- calls that reach it ------------------------------------------------------------------


@pytest.mark.parametrize(("reference", "uri"), KINDS)
@pytest.mark.parametrize("path", PATHS)
def test_every_path_fails_closed_where_an_instance_reaches_it(
    path: Path, reference: str, uri: str
) -> None:
    failure = _expect_failure(path, _step_schema(reference), {"name": "x", "step": {}})
    assert failure.schema_location == "#/properties/step/$ref"
    assert repr(uri) in failure.message
    assert "#/properties/step/$ref" in failure.message
    assert "defer_unresolved=True" in failure.message


def test_the_error_path_names_the_instance_location() -> None:
    schema = {"type": "array", "items": {"properties": {"deep": {"$ref": ABSENT}}}}
    validator = _deferred(schema)
    with pytest.raises(ExecutionFailure) as caught:
        list(validator.iter_errors([{}, {"deep": 1}]))
    assert caught.value.location == "/1/deep"
    assert caught.value.reason == "unresolvable-reference"


# Schemas in which the reference decides, whichever branch or keyword holds it: a
# failing branch here would make anyOf, oneOf, not or if/else pass (or fail) wrongly.
DECIDING = [
    pytest.param({"not": {"$ref": ABSENT}}, 1, id="not"),
    pytest.param({"not": {"not": {"$ref": ABSENT}}}, 1, id="not-not"),
    pytest.param({"anyOf": [{"$ref": ABSENT}, {"type": "string"}]}, 1, id="anyOf-first"),
    pytest.param({"anyOf": [{"type": "string"}, {"$ref": ABSENT}]}, 1, id="anyOf-last"),
    pytest.param({"oneOf": [{"type": "integer"}, {"$ref": ABSENT}]}, 1, id="oneOf"),
    pytest.param({"oneOf": [{"$ref": ABSENT}, {"type": "string"}]}, 1, id="oneOf-first"),
    pytest.param({"allOf": [{"type": "integer"}, {"$ref": ABSENT}]}, 1, id="allOf"),
    pytest.param({"if": {"$ref": ABSENT}, "then": False}, 1, id="if"),
    pytest.param({"if": {"type": "integer"}, "then": {"$ref": ABSENT}}, 1, id="then"),
    pytest.param({"if": {"type": "string"}, "else": {"$ref": ABSENT}}, 1, id="else"),
    pytest.param({"contains": {"$ref": ABSENT}}, [1], id="contains"),
    pytest.param({"items": {"$ref": ABSENT}}, [1], id="items"),
    pytest.param({"prefixItems": [{"$ref": ABSENT}]}, [1], id="prefixItems"),
    pytest.param({"propertyNames": {"$ref": ABSENT}}, {"a": 1}, id="propertyNames"),
    pytest.param({"additionalProperties": {"$ref": ABSENT}}, {"a": 1}, id="additional"),
    pytest.param({"patternProperties": {"^s": {"$ref": ABSENT}}}, {"s1": 1}, id="pattern"),
    pytest.param({"dependentSchemas": {"a": {"$ref": ABSENT}}}, {"a": 1}, id="dependentSchemas"),
    pytest.param(
        {"allOf": [{"$ref": ABSENT}], "unevaluatedProperties": False}, {"a": 1}, id="unevaluated"
    ),
    pytest.param(
        {"properties": {"a": {"$ref": ABSENT}}, "unevaluatedProperties": False},
        {"a": 1},
        id="unevaluated-member",
    ),
    pytest.param({"unevaluatedItems": {"$ref": ABSENT}}, [1], id="unevaluatedItems"),
    pytest.param({"$ref": ABSENT}, None, id="root"),
    pytest.param({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": ABSENT}}}, 1, id="chain"),
]


@pytest.mark.parametrize(("schema", "instance"), DECIDING)
@pytest.mark.parametrize("path", PATHS)
def test_no_keyword_turns_it_into_a_verdict(path: Path, schema: Any, instance: Any) -> None:
    _expect_failure(path, schema, instance)


def test_a_branch_that_decides_alone_answers_but_its_annotations_cannot_be_known() -> None:
    # anyOf holds whatever the reference would say; its annotations would not.
    schema = {"anyOf": [{"type": "integer"}, {"$ref": ABSENT}]}
    for promote in (False, True):
        validator = _deferred(schema)
        if promote:
            validator._promote()
        assert validator.is_valid(1)
        assert list(validator.iter_errors(1)) == []
        validator.validate(1)
        evaluation = validator.evaluate(1)
        assert evaluation.valid and evaluation.errors == []
        assert evaluation.output("flag") == {"valid": True}
        for fmt in FORMATS[1:]:
            with pytest.raises(ExecutionFailure) as caught:
                validator.evaluate(1).output(fmt)
            assert caught.value.reason == "unresolvable-reference"


def test_validate_reads_on_to_the_failure_past_other_errors() -> None:
    # is_valid stops at the first failing member; validate must not answer with
    # that error while the error path goes on to the reference.
    schema = {"properties": {"a": {"type": "string"}, "b": {"$ref": ABSENT}}}
    validator = _deferred(schema)
    assert validator.is_valid({"a": 1, "b": 2}) is False
    with pytest.raises(ExecutionFailure):
        validator.validate({"a": 1, "b": 2})
    with pytest.raises(ExecutionFailure):
        list(validator.iter_errors({"a": 1, "b": 2}))


# -- where the reference sits ----------------------------------------------------------


def test_a_reference_to_nothing_inside_a_cycle() -> None:
    tree = {
        "$id": "https://example.com/tree",
        "type": "object",
        "properties": {
            "children": {"type": "array", "items": {"$ref": "#"}},
            "plugin": {"$ref": "plugin.json"},
        },
    }
    deep: Any = {"children": [{"children": [{"children": []}]}]}
    reaching: Any = {"children": [{"children": [{"plugin": {}}]}]}
    for promote in (False, True):
        validator = _deferred(tree)
        if promote:
            validator._promote()
        assert validator.deferred_references == (
            DeferredReference(
                "https://example.com/plugin.json",
                "https://example.com/tree#/properties/plugin/$ref",
            ),
        )
        assert validator.is_valid(deep)
        assert not validator.is_valid({"children": [{"children": 5}]})
        with pytest.raises(ExecutionFailure):
            validator.is_valid(reaching)
        with pytest.raises(ExecutionFailure) as caught:
            list(validator.iter_errors(reaching))
        assert caught.value.location == "/children/0/children/0/plugin"
        assert validator.evaluate(deep).output("verbose")["valid"] is True
        with pytest.raises(ExecutionFailure):
            validator.evaluate(reaching)


def test_a_reference_to_nothing_on_a_memoising_cycle() -> None:
    # A cycle that applies itself twice to one child memoises is_valid answers: a
    # failure is never remembered as an answer.
    schema = {
        "type": ["array", "integer", "object"],
        "items": {"$ref": "#"},
        "contains": {"$ref": "#"},
        "properties": {"plugin": {"$ref": ABSENT}},
    }
    validator = _deferred(schema)
    assert validator._compiler.memoises
    assert validator.is_valid([1, [2, [3]]])
    for _ in range(2):
        with pytest.raises(ExecutionFailure):
            validator.is_valid([1, [{"plugin": 1}]])
    assert validator.is_valid([1, [{"other": 1}]])


def test_a_dynamic_reference_whose_initial_target_is_missing() -> None:
    # The scope binds "node", but the reference's own resource has no such anchor:
    # no bookend, so it names nothing, as a $ref would.
    schema = {
        "$id": "https://example.com/root",
        "$dynamicAnchor": "node",
        "properties": {
            "inner": {"$ref": "inner"},
            "self": {"$dynamicRef": "#node"},
            "elsewhere": {"$dynamicRef": "https://example.com/absent#node"},
        },
        "$defs": {
            "inner": {"$id": "inner", "properties": {"up": {"$dynamicRef": "#node"}}},
        },
    }
    with pytest.raises(SchemaError):
        schemacore.compile(schema)
    for promote in (False, True):
        validator = _deferred(schema)
        if promote:
            validator._promote()
        assert set(validator.deferred_references) == {
            DeferredReference(
                "https://example.com/inner#node",
                "https://example.com/inner#/properties/up/$dynamicRef",
            ),
            DeferredReference(
                "https://example.com/absent#node",
                "https://example.com/root#/properties/elsewhere/$dynamicRef",
            ),
        }
        assert validator.is_valid({"self": {"self": {}}, "inner": {}})
        for reaching in ({"inner": {"up": 1}}, {"elsewhere": 1}, {"self": {"elsewhere": 1}}):
            with pytest.raises(ExecutionFailure) as caught:
                validator.is_valid(reaching)
            assert caught.value.reason == "unresolvable-reference"


def test_a_recursive_reference_to_nothing() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "https://example.com/tree",
        "$recursiveAnchor": True,
        "properties": {
            "self": {"$recursiveRef": "#"},
            "other": {"$recursiveRef": "absent.json"},
        },
    }
    validator = _deferred(schema)
    assert validator.deferred_references == (
        DeferredReference(
            "https://example.com/absent.json",
            "https://example.com/tree#/properties/other/$recursiveRef",
        ),
    )
    assert validator.is_valid({"self": {"self": {}}})
    for path in (validator.is_valid, lambda x: list(validator.iter_errors(x))):
        with pytest.raises(ExecutionFailure):
            path({"self": {"other": 1}})


@pytest.mark.parametrize(
    "dialect",
    [
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-04/schema#",
    ],
)
def test_earlier_drafts_defer_a_reference_whose_siblings_are_ignored(dialect: str) -> None:
    schema = {
        "$schema": dialect,
        "properties": {"a": {"$ref": "#/definitions/absent", "type": "string"}},
        "definitions": {},
    }
    validator = _deferred(schema)
    assert validator.deferred_references == (
        DeferredReference("#/definitions/absent", "#/properties/a/$ref"),
    )
    assert validator.is_valid({"b": 1})
    with pytest.raises(ExecutionFailure):
        validator.is_valid({"a": "a string"})  # the ignored type decides nothing


def test_a_reference_to_nothing_in_a_registered_document() -> None:
    registry = {OTHER: {"properties": {"x": {"$ref": "absent.json"}}}}
    validator = schemacore.compile(
        {"properties": {"o": {"$ref": OTHER}}}, registry=registry, defer_unresolved=True
    )
    assert validator.deferred_references == (
        DeferredReference("https://example.com/absent.json", f"{OTHER}#/properties/x/$ref"),
    )
    assert validator.is_valid({"o": {"y": 1}})
    with pytest.raises(ExecutionFailure):
        validator.is_valid({"o": {"x": 1}})


def test_leaves_compiled_when_first_needed_do_not_hide_it() -> None:
    properties: dict[str, Any] = {f"p{i}": {"type": "string"} for i in range(40)}
    properties["step"] = {"$ref": ABSENT}
    validator = _deferred({"properties": properties})
    assert validator._compiler._deferred  # leaves wait for the error path
    assert [e.instance_location for e in validator.iter_errors({"p3": 1})] == ["/p3"]
    with pytest.raises(ExecutionFailure):
        list(validator.iter_errors({"p3": 1, "step": 1}))


def test_a_published_meta_schema_is_still_shared() -> None:
    schema = {"properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}}
    shared = schemacore.compile(schema)._compiler._shared
    deferred = _deferred(schema)
    assert shared and deferred._compiler._shared == shared
    assert deferred.is_valid({"s": {"type": "string"}})
    assert not deferred.is_valid({"s": {"type": 5}})


def test_a_custom_meta_schema_defers_too() -> None:
    meta_uri = "https://example.com/meta"
    meta = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": meta_uri,
        "$dynamicAnchor": "meta",
        "allOf": [{"$ref": "https://json-schema.org/draft/2020-12/schema"}],
        "properties": {"x-vendor": {"$ref": "https://example.com/vendor-vocabulary"}},
    }
    registry = {meta_uri: meta}
    schema = {"$schema": meta_uri, "type": "string"}
    with pytest.raises(SchemaError):
        schemacore.compile(schema, registry=registry)
    assert schemacore.compile(schema, registry=registry, defer_unresolved=True).is_valid("a")
    # Checking a schema that reaches it is a call like any other: it fails closed.
    with pytest.raises(ExecutionFailure) as caught:
        schemacore.compile({**schema, "x-vendor": 1}, registry=registry, defer_unresolved=True)
    assert caught.value.reason == "unresolvable-reference"


# -- pickling ---------------------------------------------------------------------------


def test_a_pickled_validator_keeps_the_option_and_its_list() -> None:
    validator = _deferred(_step_schema(ABSENT))
    copy = pickle.loads(pickle.dumps(validator))
    assert copy._compiler.options.defer_unresolved is True
    assert copy.deferred_references == validator.deferred_references
    assert copy.is_valid({"name": "x"})
    with pytest.raises(ExecutionFailure):
        copy.is_valid({"step": 1})
    plain = pickle.loads(pickle.dumps(schemacore.compile({"type": "string"})))
    assert plain._compiler.options.defer_unresolved is False


def test_the_one_off_helpers_take_the_option() -> None:
    assert schemacore.is_valid({"name": "x"}, _step_schema(ABSENT), defer_unresolved=True)
    with pytest.raises(ExecutionFailure):
        schemacore.validate({"step": 1}, _step_schema(ABSENT), defer_unresolved=True)


# -- the admission layer ---------------------------------------------------------------


def test_the_admission_layer_still_refuses_a_reference_to_nothing() -> None:
    from schemacore.runtime import BoundaryError, validate_schema

    with pytest.raises(BoundaryError) as caught:
        validate_schema({"type": "object", "properties": {"a": {"$ref": ABSENT}}})
    assert caught.value.code == "schema-ref-unresolved"
    assert caught.value.error_class == "validation"
