"""The tool input-schema boundary: validate_schema and validate_arguments."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import schemacore
from schemacore.runtime import (
    BoundaryError,
    BoundaryLimits,
    ToolSchema,
    validate_arguments,
    validate_schema,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "limit": {"type": "integer", "minimum": 1, "default": 10},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def refused(call: Any, *args: Any, **kwargs: Any) -> BoundaryError:
    with pytest.raises(BoundaryError) as info:
        call(*args, **kwargs)
    return info.value


def shape(error: BoundaryError) -> tuple[str, str, str]:
    return (error.error_class, error.code, error.path)


# -- validate_schema: the rules ---------------------------------------------------------


def test_admitted_schema_keeps_the_callers_object() -> None:
    schema = copy.deepcopy(SCHEMA)
    tool = validate_schema(schema)
    assert isinstance(tool, ToolSchema)
    assert tool.schema is schema
    # Compiled from a private copy (see schemacache): equal, and not the caller's.
    assert tool.validator.schema == schema
    assert tool.validator.schema is not schema
    assert schema == SCHEMA  # nothing added, removed or loosened
    assert tool.role == "input"


@pytest.mark.parametrize(
    "schema",
    [
        {},
        {"type": "object"},
        {"type": ["object"]},
        {"properties": {"a": True, "b": False}},
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"},
        {"$schema": "https://json-schema.org/draft/2020-12/schema#"},
        {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    ],
)
def test_object_root_schemas_are_admitted(schema: dict[str, Any]) -> None:
    validate_schema(schema)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "array"}, ("validation", "input-schema-root-not-object", "/type")),
        ({"type": ["object", "null"]}, ("validation", "input-schema-root-not-object", "/type")),
        ({"type": "string"}, ("validation", "input-schema-root-not-object", "/type")),
        ({"type": []}, ("validation", "input-schema-root-not-object", "/type")),
        (True, ("validation", "schema-not-object", "")),
        (None, ("validation", "schema-not-object", "")),
        ([], ("validation", "schema-not-object", "")),
        ("{}", ("validation", "schema-not-object", "")),
    ],
)
def test_input_root_rules(schema: Any, expected: tuple[str, str, str]) -> None:
    assert shape(refused(validate_schema, schema)) == expected


def test_output_role_accepts_any_schema() -> None:
    assert validate_schema(True, role="output").schema is True
    assert validate_schema({"type": "array"}, role="output").role == "output"
    assert shape(refused(validate_schema, None, role="output"))[1] == "schema-not-object"
    with pytest.raises(ValueError):
        validate_schema({}, role="middle")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
            ("unsupported_capability", "schema-dialect-unsupported", "/$schema"),
        ),
        (
            {"$schema": "http://json-schema.org/draft-07/schema"},
            ("unsupported_capability", "schema-dialect-unsupported", "/$schema"),
        ),
        (
            {"$schema": "https://json-schema.org/draft/2019-09/schema"},
            ("unsupported_capability", "schema-dialect-unsupported", "/$schema"),
        ),
        (
            {"$schema": "http://json-schema.org/draft-04/schema#"},
            ("unsupported_capability", "schema-dialect-unsupported", "/$schema"),
        ),
        (
            {"$schema": "https://example.com/my-dialect"},
            ("unsupported_capability", "schema-dialect-unsupported", "/$schema"),
        ),
        ({"$schema": 7}, ("validation", "schema-invalid", "/$schema")),
    ],
)
def test_dialects(schema: dict[str, Any], expected: tuple[str, str, str]) -> None:
    assert shape(refused(validate_schema, schema)) == expected


@pytest.mark.parametrize(
    "uri",
    [
        "http://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft/2020-12/schema#",
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/schema#",
    ],
)
def test_the_2020_12_uris_the_engine_accepts_are_admitted(uri: str) -> None:
    from schemacore.dialect import is_2020_12

    assert is_2020_12(uri)
    tool = validate_schema({"$schema": uri, "type": "object", "properties": {"a": {}}})
    assert tool.validator.is_valid({"a": 1})
    nested = {"type": "object", "properties": {"a": {"$id": "https://x.example/a", "$schema": uri}}}
    validate_schema(nested)
    validate_schema({"$schema": uri}, role="output")


def loader_of(documents: dict[str, Any]) -> Any:
    calls: list[str] = []

    def loader(uri: str) -> Any:
        calls.append(uri)
        return documents.get(uri, {})

    loader.calls = calls  # type: ignore[attr-defined]
    return loader


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"$schema": "https://example.com/my-dialect", "type": "object"}, "/$schema"),
        ({"$schema": "https://example.com/my-dialect#", "type": "object"}, "/$schema"),
        (
            {
                "type": "object",
                "properties": {
                    "a": {"$id": "https://x.example/a", "$schema": "https://example.com/my-dialect"}
                },
            },
            "/properties/a/$schema",
        ),
        (
            {
                "type": "object",
                "properties": {
                    "a": {"$id": "https://x.example/a", "$schema": "https://example.com/meta"}
                },
                "$defs": {"meta": {"$id": "https://example.com/meta"}},
            },
            "/properties/a/$schema",
        ),
    ],
)
def test_an_unknown_dialect_is_unsupported_even_with_a_loader(
    schema: dict[str, Any], path: str
) -> None:
    for loader in (None, loader_of({})):
        error = refused(validate_schema, schema, loader=loader)
        assert shape(error) == ("unsupported_capability", "schema-dialect-unsupported", path)
        if loader is not None:
            assert loader.calls == []  # a meta-schema is never fetched


def test_a_loaded_document_cannot_bring_its_own_dialect() -> None:
    remote = "https://x.example/remote.json"
    loader = loader_of({remote: {"$schema": "https://example.com/my-dialect", "type": "string"}})
    schema = {"type": "object", "properties": {"a": {"$ref": remote}}}
    error = refused(validate_schema, schema, loader=loader)
    assert (error.error_class, error.code) == (
        "unsupported_capability",
        "schema-dialect-unsupported",
    )
    assert loader.calls == [remote]
    # A registered meta-schema's own dialect is not fetched either.
    meta_uri = "https://example.com/meta"
    registry = {meta_uri: {"$schema": "https://example.com/meta-of-meta"}}
    loader = loader_of({})
    for given in (None, loader):
        error = refused(
            validate_schema,
            {"$schema": meta_uri, "type": "object"},
            registry=registry,
            loader=given,
        )
        assert (error.error_class, error.code) == (
            "unsupported_capability",
            "schema-dialect-unsupported",
        )
    assert loader.calls == []
    # An ordinary reference still goes through the loader, and a failing one is
    # still an unresolved reference.
    loader = loader_of({remote: {"type": "string"}})
    assert not validate_schema(schema, loader=loader).validator.is_valid({"a": 1})
    assert loader.calls == [remote]


def test_a_registered_custom_meta_schema_is_allowed_with_a_loader() -> None:
    meta_uri = "https://example.com/meta"
    meta = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": meta_uri}
    loader = loader_of({})
    tool = validate_schema(
        {"$schema": meta_uri, "type": "object"}, registry={meta_uri: meta}, loader=loader
    )
    assert tool.validator.is_valid({}) and not tool.validator.is_valid([])
    assert loader.calls == []


def test_a_custom_2020_12_meta_schema_from_the_registry_is_the_engines_call() -> None:
    meta_uri = "https://example.com/meta"
    meta = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": meta_uri,
        "$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/core": True,
            "https://json-schema.org/draft/2020-12/vocab/applicator": True,
            "https://json-schema.org/draft/2020-12/vocab/validation": True,
        },
        "$dynamicAnchor": "meta",
    }
    tool = validate_schema({"$schema": meta_uri, "type": "object"}, registry={meta_uri: meta})
    assert tool.validator.is_valid({})


def test_non_string_keys_are_refused_never_converted() -> None:
    schema: dict[Any, Any] = {"type": "object", "properties": {1: {"type": "string"}}}
    assert shape(refused(validate_schema, schema)) == (
        "validation",
        "schema-key-not-string",
        "/properties",
    )
    assert 1 in schema["properties"]


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"type": "object", "enum": ({"a": 1},)}, "/enum"),
        (
            {"type": "object", "properties": {"a": {"maximum": float("nan")}}},
            "/properties/a/maximum",
        ),
        ({"type": "object", "const": {1, 2}}, "/const"),
    ],
)
def test_values_outside_json_are_refused(value: dict[str, Any], path: str) -> None:
    assert shape(refused(validate_schema, value)) == ("validation", "schema-value-not-json", path)


def test_unresolved_reference_is_refused_at_admission() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}
    assert shape(refused(validate_schema, schema)) == (
        "validation",
        "schema-ref-unresolved",
        "/properties/a/$ref",
    )
    missing_local = {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}
    assert refused(validate_schema, missing_local).code == "schema-ref-unresolved"


def test_references_resolve_only_through_registry_or_loader_at_admission() -> None:
    remote = {"type": "string", "maxLength": 3}
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}
    tool = validate_schema(schema, registry={"https://example.com/a.json": remote})
    assert not tool.validator.is_valid({"a": "long"})

    calls: list[str] = []

    def loader(uri: str) -> Any:
        calls.append(uri)
        return remote

    tool = validate_schema(schema, loader=loader)
    assert calls == ["https://example.com/a.json"]
    validate_arguments(tool, {"a": "abc"})
    assert calls == ["https://example.com/a.json"]  # nothing fetched per call


def test_a_failing_loader_is_an_unresolved_reference() -> None:
    def loader(uri: str) -> Any:
        raise LookupError("offline")

    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}
    error = refused(validate_schema, schema, loader=loader)
    assert (error.error_class, error.code) == ("validation", "schema-ref-unresolved")


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"type": "object", "properties": {"a": {"pattern": "[a-"}}}, "/properties/a/pattern"),
        ({"type": "object", "properties": {"a": {"pattern": "(?P<n>x)"}}}, "/properties/a/pattern"),
        ({"type": "object", "patternProperties": {"(": {}}}, "/patternProperties/("),
    ],
)
def test_patterns_that_do_not_compile_are_refused(schema: dict[str, Any], path: str) -> None:
    assert shape(refused(validate_schema, schema)) == ("validation", "schema-pattern-invalid", path)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        # Words the old wording match took for a limit, inside the schema's own text.
        (
            {"type": "object", "properties": {"a": {"pattern": "(nested too deeply"}}},
            ("validation", "schema-pattern-invalid", "/properties/a/pattern"),
        ),
        (
            {"type": "object", "properties": {"a": {"pattern": "(max_schema_depth"}}},
            ("validation", "schema-pattern-invalid", "/properties/a/pattern"),
        ),
        (
            {"type": "object", "patternProperties": {"(could not be checked": {}}},
            ("validation", "schema-pattern-invalid", "/patternProperties/(could not be checked"),
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "https://x.example/could not be checked"}},
            },
            ("validation", "schema-ref-unresolved", "/properties/a/$ref"),
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "https://x.example/max_schema_depth"}}},
            ("validation", "schema-ref-unresolved", "/properties/a/$ref"),
        ),
        # Property and definition names that look like keywords do not decide a code.
        (
            {"type": "object", "properties": {"pattern": 5}},
            ("validation", "schema-invalid", "/properties/pattern"),
        ),
        (
            {"type": "object", "$defs": {"$ref": 5}},
            ("validation", "schema-invalid", "/$defs/$ref"),
        ),
        (
            {"type": "object", "patternProperties": {"x": 5}},
            ("validation", "schema-invalid", "/patternProperties/x"),
        ),
    ],
)
def test_schema_text_never_decides_the_error_class(
    schema: dict[str, Any], expected: tuple[str, str, str]
) -> None:
    error = refused(validate_schema, schema)
    assert shape(error) == expected
    assert error.limit is None


def test_limits_are_recognised_by_the_engines_exception() -> None:
    deep: dict[str, Any] = {"type": "object"}
    node = deep
    for _ in range(10):
        node["not"] = {}
        node = node["not"]
    error = refused(validate_schema, deep, limits=schemacore.Limits(max_schema_depth=4))
    assert (error.error_class, error.code, error.limit) == (
        "execution_failure",
        "schema-limit-exceeded",
        "max_schema_depth",
    )
    wide = {"type": "object", "properties": {"a": {"type": "object"}, "b": {}}}
    error = refused(validate_schema, wide, limits=schemacore.Limits(max_subschemas=2))
    assert (error.error_class, error.code, error.limit) == (
        "execution_failure",
        "schema-limit-exceeded",
        "max_subschemas",
    )


def test_meta_schema_failure_is_validation_with_the_location() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "strng"}}}
    assert shape(refused(validate_schema, schema)) == (
        "validation",
        "schema-invalid",
        "/properties/a/type",
    )


def test_engine_limits_fail_closed() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "object"}, "b": {"type": "string"}}}
    error = refused(validate_schema, schema, limits=schemacore.Limits(max_subschemas=2))
    assert (error.error_class, error.code) == ("execution_failure", "schema-limit-exceeded")


def test_deep_schemas_fail_closed_as_execution_failure() -> None:
    for depth in (100, 300, 10_000):
        schema: dict[str, Any] = {}
        node = schema
        for _ in range(depth):
            node["not"] = {}
            node = node["not"]
        error = refused(validate_schema, schema)
        assert (error.error_class, error.code) in {
            ("execution_failure", "schema-limit-exceeded"),
            ("execution_failure", "schema-too-deep"),
        }, depth


def test_runtime_schema_bounds() -> None:
    wide = {"type": "object", "enum": [list(range(50))]}
    error = refused(validate_schema, wide, boundary_limits=BoundaryLimits(max_schema_nodes=20))
    assert shape(error) == ("execution_failure", "schema-too-large", "/enum/0")
    assert error.limit == "max_nodes"
    deep = {"type": "object", "const": [[[[1]]]]}
    error = refused(validate_schema, deep, boundary_limits=BoundaryLimits(max_schema_depth=3))
    assert shape(error) == ("execution_failure", "schema-too-deep", "/const/0/0")


# -- validate_schema: the order of checks -------------------------------------------------


def test_order_shape_before_dialect_before_root_before_compile() -> None:
    # A non-string key wins over everything else.
    both: dict[Any, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array",
        "x": {2: 1},
    }
    assert refused(validate_schema, both).code == "schema-key-not-string"
    # The dialect is judged before the object-root rule: a draft-07 schema is not
    # read under 2020-12 rules at all.
    del both["x"]
    assert refused(validate_schema, both).code == "schema-dialect-unsupported"
    # The root rule comes before compiling (a broken pattern is not reached).
    broken = {"type": "array", "items": {"pattern": "[a-"}}
    assert refused(validate_schema, broken).code == "input-schema-root-not-object"
    # For an output schema there is no root rule, so compilation reports the pattern.
    assert refused(validate_schema, broken, role="output").code == "schema-pattern-invalid"


# -- validate_arguments ------------------------------------------------------------------------


def test_valid_arguments_are_returned_as_the_very_object() -> None:
    tool = validate_schema(SCHEMA)
    arguments = {"query": " padded "}
    before = copy.deepcopy(arguments)
    assert validate_arguments(tool, arguments) is arguments
    assert arguments == before  # no default for "limit", no trimming


def test_a_raw_schema_is_admitted_first() -> None:
    arguments = {"query": "x"}
    assert validate_arguments(SCHEMA, arguments) is arguments
    error = refused(validate_arguments, {"type": "array"}, [])
    assert error.code == "input-schema-root-not-object"


def test_mismatch_raises_with_issues() -> None:
    tool = validate_schema(SCHEMA)
    error = refused(validate_arguments, tool, {"limit": "10"})
    assert shape(error) == ("validation", "arguments-invalid", "/query")
    assert [(i.code, i.path) for i in error.issues] == [
        ("property-missing", "query"),
        ("type-mismatch", "limit"),
    ]
    assert error.to_dict()["issues"][1]["expected"] == "integer"


def test_missing_root_type_keeps_the_object_boundary() -> None:
    tool = validate_schema({"properties": {"a": {"type": "string"}}})
    values: tuple[Any, ...] = ([], "text", 3, None, True)
    for value in values:
        assert shape(refused(validate_arguments, tool, value)) == (
            "validation",
            "arguments-not-object",
            "",
        )
    validate_arguments(tool, {})


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"a": float("nan")}, ("validation", "arguments-value-not-json", "/a")),
        ({"a": float("inf")}, ("validation", "arguments-value-not-json", "/a")),
        ({"a": (1, 2)}, ("validation", "arguments-value-not-json", "/a")),
        ({"a": {1: "x"}}, ("validation", "arguments-key-not-string", "/a")),
        ({"a": [b"x"]}, ("validation", "arguments-value-not-json", "/a/0")),
        ({"secret-key": {3}}, ("validation", "arguments-value-not-json", "/*")),
    ],
)
def test_arguments_outside_json_are_refused(
    arguments: dict[Any, Any], expected: tuple[str, str, str]
) -> None:
    tool = validate_schema({"type": "object", "properties": {"a": True}})
    assert shape(refused(validate_arguments, tool, arguments)) == expected


def test_ten_thousand_deep_argument_is_execution_failure() -> None:
    tool = validate_schema({"type": "object"})  # the schema allows anything inside
    deep: Any = "leaf"
    for _ in range(10_000):
        deep = [deep]
    for arguments in ({"a": deep}, deep):
        error = refused(validate_arguments, tool, arguments)
        assert (error.error_class, error.code, error.limit) == (
            "execution_failure",
            "arguments-too-deep",
            "max_depth",
        )
    nested: dict[str, Any] = {}
    node = nested
    for _ in range(10_000):
        node["k"] = {}
        node = node["k"]
    error = refused(validate_arguments, tool, nested)
    assert (error.error_class, error.code) == ("execution_failure", "arguments-too-deep")
    assert error.path == "/*" * 64  # caller keys are never echoed


def test_argument_bounds_are_configurable() -> None:
    limits = BoundaryLimits(max_argument_depth=2, max_argument_nodes=5, max_string_length=4)
    tool = validate_schema({"type": "object"}, boundary_limits=limits)
    validate_arguments(tool, {"a": [1, 2]})
    assert shape(refused(validate_arguments, tool, {"a": [[1]]})) == (
        "execution_failure",
        "arguments-too-deep",
        "/*/0",
    )
    assert refused(validate_arguments, tool, {"a": list(range(10))}).code == "arguments-too-large"
    error = refused(validate_arguments, tool, {"a": "12345"})
    assert (error.error_class, error.code, error.limit) == (
        "execution_failure",
        "arguments-string-too-long",
        "max_string_length",
    )
    assert refused(validate_arguments, tool, {"abcde": 1}).code == "arguments-string-too-long"


def test_bounds_come_before_the_object_check_and_the_schema() -> None:
    limits = BoundaryLimits(max_argument_depth=2)
    tool = validate_schema({"type": "object", "required": ["x"]}, boundary_limits=limits)
    # Too deep, and not an object: the bound is reported.
    assert refused(validate_arguments, tool, [[[1]]]).code == "arguments-too-deep"
    # Outside JSON, and missing "x": the data model is reported.
    assert refused(validate_arguments, tool, {"a": float("nan")}).code == (
        "arguments-value-not-json"
    )
    # Not an object: reported before the schema is consulted.
    assert refused(validate_arguments, tool, []).code == "arguments-not-object"
    assert refused(validate_arguments, tool, {}).code == "arguments-invalid"


def test_engine_evaluation_failure_is_execution_failure() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}
    tool = validate_schema(schema, limits=schemacore.Limits(max_pattern_input=5))
    error = refused(validate_arguments, tool, {"a": "a" * 50})
    assert (error.error_class, error.code) == ("execution_failure", "arguments-evaluation-failed")
    assert error.limit == "max_pattern_input"
    # In is_valid the engine knows the keyword (schema_location), not the instance place.
    assert error.path in ("", "/a")
    assert "aaaaa" not in str(error.to_dict())


def test_boundary_error_shape() -> None:
    error = refused(validate_schema, {"type": "array"})
    assert error.to_dict() == {
        "errorClass": "validation",
        "code": "input-schema-root-not-object",
        "path": "/type",
        "message": error.message,
    }
    assert "input-schema-root-not-object" in str(error)
    assert "validation" in repr(error)


def test_engine_failures_map_to_stable_codes() -> None:
    # By exception type, the engine-built location and the fixed start of the
    # engine's message: never by words the schema could have supplied.
    from schemacore.runtime.toolschema import _engine_code

    unsupported, schema_error = schemacore.UnsupportedCapability, schemacore.SchemaError
    cases = [
        (unsupported("x", reason="unsupported-dialect"), "schema-dialect-unsupported"),
        (unsupported("x", reason="unsupported-vocabulary"), "schema-dialect-unsupported"),
        (unsupported("x", reason="unsupported-format"), "schema-unsupported-capability"),
        (schemacore.ExecutionFailure("x", limit="max_subschemas"), "schema-limit-exceeded"),
        # Codes come from the reason, never from the words of a message.
        (schema_error("deeper than max_schema_depth=64"), "schema-invalid"),
        (schema_error("cannot resolve reference '#/x'"), "schema-invalid"),
        (schema_error("x", reason="unresolvable-reference"), "schema-ref-unresolved"),
        (schema_error("x", reason="loader-failed"), "schema-ref-unresolved"),
        (schema_error("invalid regular expression '('"), "schema-invalid"),
        (schema_error("x", location="/a/pattern", reason="bad-regex"), "schema-pattern-invalid"),
        (schema_error("x", reason="duplicate-identifier"), "schema-invalid"),
        (schema_error("x", reason="meta-schema"), "schema-invalid"),
    ]
    # And the engine raises those reasons where the codes expect them.
    engine_cases = [
        ({"$schema": "http://json-schema.org/draft-03/schema#"}, "unsupported-dialect"),
        ({"$ref": "https://example.com/missing"}, "unresolvable-reference"),
        ({"pattern": "("}, "bad-regex"),
        ({"patternProperties": {"(": {}}}, "bad-regex"),
        ({"minimum": "x"}, "meta-schema"),
    ]
    for schema, reason in engine_cases:
        with pytest.raises(schemacore.SchemaCoreError) as caught:
            schemacore.compile(schema)
        assert caught.value.reason == reason, schema
    for error, code in cases:
        assert _engine_code(error) == code, error


def test_boundary_and_contract_errors_are_one_refusal_family() -> None:
    from schemacore.runtime import ContractError, Refusal, validate_contract

    with pytest.raises(BoundaryError) as boundary:
        validate_schema({"type": "string"})
    with pytest.raises(ContractError) as contract:
        validate_contract({"contractVersion": 3})
    for caught in (boundary.value, contract.value):
        assert isinstance(caught, Refusal)
        assert caught.code and caught.error_class == "validation"
        assert isinstance(caught.path, str)
        assert caught.retryable is False
    assert boundary.value.code == "input-schema-root-not-object"
    assert boundary.value.path == "/type"
