"""Hazard: pickling the exceptions schemacore and its runtime raise.

Errors cross process boundaries (worker pools, queues, task results): a round trip
through pickle (any protocol), copy.copy and copy.deepcopy must give an error of the
same type with the same message, ``args`` and attributes. The classes are found
mechanically (every BaseException subclass exported by any schemacore module, and
their public subclasses), so a new exception without an example here fails
``test_every_public_exception_has_an_example``.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import os
import pickle
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest

import schemacore
from schemacore import compat, runtime
from schemacore.commandline.documents import InputError
from schemacore.commandline.references import ReferenceFileError
from schemacore.compat._checkers import FormatError, UndefinedTypeCheck
from schemacore.ecma262 import PatternError, translate
from schemacore.pointer import PointerError
from schemacore.runtime.gateway import (
    Gateway,
    GatewayConfigError,
    LeaseHeld,
    SchemaTooNew,
    ToolFailure,
)
from schemacore.runtime.gateway.process import ProcessTimeout
from schemacore.scale import VersionMismatch

from ..runtime.contracts import valid_contract

# Exported but never leaving the package, with the reason.
INTERNAL: dict[str, str] = {
    # Raised and caught inside Gateway.call to end a call at a step; it carries a
    # ToolOutcome with frozen (unpicklable) mappings and never reaches a caller.
    "schemacore.runtime.gateway.steps.Stop": "internal to Gateway.call",
}

# Modules that need an optional extra to import, with the extra's name.
OPTIONAL: dict[str, str] = {"schemacore.mcp": "schemacore[mcp]"}

# Public, and pickled as another class on purpose, with the reason (tested below).
DEGRADED: dict[str, str] = {
    # Its schema attributes are read through a locator over the validator's compiled
    # schema, which does not pickle: it travels as the engine's ValidationError.
    "schemacore.compat._errors.ValidationError": "pickles as schemacore.ValidationError",
}


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def public_exceptions() -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    for module_info in pkgutil.walk_packages(schemacore.__path__, "schemacore."):
        if module_info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(module_info.name)
        except ImportError as exc:
            # An optional integration without its extra (never in CI, which installs all).
            required = os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") == "1"
            if module_info.name not in OPTIONAL or required:
                raise
            assert exc.__cause__ is not None and OPTIONAL[module_info.name] in str(exc)
            continue
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseException):
                found.add(value)
    pending = list(found)
    while pending:  # public subclasses of those, wherever they are defined
        for sub in pending.pop().__subclasses__():
            public = sub.__module__.startswith("schemacore") and not sub.__name__.startswith("_")
            if public and sub not in found:
                found.add(sub)
                pending.append(sub)
    return {cls for cls in found if cls.__module__.startswith("schemacore")}


def _raised(call: Callable[[], Any], kind: type[BaseException]) -> Any:
    with pytest.raises(kind) as caught:
        call()
    return caught.value


# -- one or more real errors of each class, with every field set where possible --------


def _schema_errors() -> list[BaseException]:
    return [
        schemacore.SchemaCoreError("plain", location="/a"),
        _raised(lambda: schemacore.compile({"type": 1}), schemacore.SchemaError),
        _raised(
            lambda: schemacore.compile({"$schema": "http://json-schema.org/draft-03/schema#"}),
            schemacore.UnsupportedCapability,
        ),
    ]


def _execution_failures() -> list[BaseException]:
    validator = schemacore.compile(
        {"items": {"type": "integer"}}, limits=schemacore.Limits(max_instance_nodes=2)
    )
    failure = _raised(lambda: validator.is_valid([1, [2, 3]]), schemacore.ExecutionFailure)
    assert failure.limit and failure.value is not None
    return [
        failure,
        schemacore.ExecutionFailure(
            "m", location="/x", limit="l", value=3, schema_location="https://e.com/s#/a"
        ),
    ]


def _validation_errors() -> list[BaseException]:
    validator = schemacore.compile({"anyOf": [{"type": "string"}, {"minimum": 5}]})
    (error,) = validator.iter_errors(1)
    assert error.context
    return [error]


def _boundary_errors() -> list[BaseException]:
    tool = runtime.validate_schema({"type": "object", "properties": {"n": {"type": "string"}}})
    mismatch = _raised(lambda: runtime.validate_arguments(tool, {"n": 1}), runtime.BoundaryError)
    assert mismatch.issues
    bounded = runtime.validate_schema(
        {"type": "object"}, boundary_limits=runtime.BoundaryLimits(max_string_length=2)
    )
    bound = _raised(
        lambda: runtime.validate_arguments(bounded, {"a": ["xyz"]}), runtime.BoundaryError
    )
    assert bound.limit and bound.tokens == ("*", 0)
    text = _raised(lambda: runtime.parse_tool_args('{"a": }'), runtime.BoundaryError)
    assert text.line is not None
    return [mismatch, bound, text]


def _contract_errors() -> list[BaseException]:
    schema_refused = _raised(
        lambda: runtime.validate_contract({**valid_contract(), "inputSchema": {"type": "string"}}),
        runtime.ContractError,
    )
    assert schema_refused.cause is not None
    several = _raised(
        lambda: runtime.validate_contract({**valid_contract(), "timeoutMs": -1, "version": []}),
        runtime.ContractError,
    )
    assert len(several.details) > 1
    return [schema_refused, several]


def _admission_rejected() -> list[BaseException]:
    tools = [{"name": "t", "inputSchema": {"type": "string"}}, {"name": 1}]
    error = _raised(lambda: runtime.ToolCatalog().admit_batch(tools), runtime.AdmissionRejected)
    assert len(error.rejected) >= 2
    return [error]


def _gateway_config_errors() -> list[BaseException]:
    ungoverned = runtime.ToolCatalog().admit_batch(
        [runtime.ToolDescriptor.from_mcp({"name": "t", "inputSchema": {}}, backend="local")]
    )
    error = _raised(lambda: Gateway(ungoverned, backends={}), GatewayConfigError)
    return [error, GatewayConfigError(["one problem", "another"])]


def _compat_errors() -> list[BaseException]:
    validator = compat.Draft202012Validator({"anyOf": [{"type": "string"}, {"minimum": 2}]})
    (error,) = validator.iter_errors(1)
    assert error.context
    refused = _raised(
        lambda: compat.Draft202012Validator.check_schema({"type": 5}), compat.SchemaError
    )
    return [error, refused]


def test_a_compat_error_travels_as_the_engines_error() -> None:
    validator = compat.Draft202012Validator({"anyOf": [{"type": "string"}, {"minimum": 2}]})
    (error,) = validator.iter_errors(1)
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is schemacore.ValidationError
    for field in ("message", "keyword", "instance_location", "keyword_location", "instance"):
        assert getattr(clone, field) == getattr(error, field), field
    assert [e.message for e in clone.context] == [e.message for e in error.context]


def _pattern_errors() -> list[BaseException]:
    return [_raised(lambda: translate("[a-"), PatternError)]


EXAMPLES: dict[type[BaseException], Callable[[], list[BaseException]]] = {
    schemacore.SchemaCoreError: _schema_errors,
    schemacore.SchemaError: _schema_errors,
    schemacore.UnsupportedCapability: _schema_errors,
    schemacore.ExecutionFailure: _execution_failures,
    schemacore.ValidationError: _validation_errors,
    runtime.Refusal: lambda: [
        runtime.Refusal("r-code", "refused", error_class="execution_failure", path="/a")
    ],
    runtime.BoundaryError: _boundary_errors,
    runtime.ContractError: _contract_errors,
    runtime.AdmissionRejected: _admission_rejected,
    GatewayConfigError: _gateway_config_errors,
    ToolFailure: lambda: [ToolFailure("rate_limited", "slow down"), ToolFailure("bare")],
    PointerError: lambda: [PointerError("no member 'a'")],
    compat.SchemaError: _compat_errors,
    compat.UnsupportedDialect: lambda: [_raised(lambda: compat.Draft3Validator, AttributeError)],
    FormatError: lambda: [FormatError("not a date")],
    UndefinedTypeCheck: lambda: [UndefinedTypeCheck("decimal")],
    ReferenceFileError: lambda: [
        ReferenceFileError("cannot resolve reference 'file:///x/d.json': outside --ref-root")
    ],
    compat.UnsupportedExtension: lambda: [compat.UnsupportedExtension("refused")],
    VersionMismatch: lambda: [
        VersionMismatch("this worker runs schemacore 0.9.0, the client 1.0.0")
    ],
    compat.UnknownType: lambda: [
        _raised(lambda: compat.Draft4Validator({"type": "x"}).is_type(1, "x"), compat.UnknownType)
    ],
    ProcessTimeout: lambda: [ProcessTimeout("the child was killed at its deadline")],
    PatternError: _pattern_errors,
    LeaseHeld: lambda: [LeaseHeld("gateway-2", 31.0)],
    SchemaTooNew: lambda: [SchemaTooNew("schemacore", 9)],
    InputError: lambda: [
        InputError.invalid("a.json", "invalid JSON: Expecting value"),
        InputError.unreadable("b.json", "No such file or directory"),
        InputError("invalid JSON: not UTF-8"),
    ],
}


def test_every_public_exception_has_an_example() -> None:
    found = {cls for cls in public_exceptions() if _name(cls) not in INTERNAL}
    missing = sorted(_name(cls) for cls in found - set(EXAMPLES) if _name(cls) not in DEGRADED)
    assert not missing, f"add a pickling example for {missing}"
    # And the enumeration is not vacuous: it sees the classes this file was written for.
    assert {
        runtime.Refusal,
        runtime.BoundaryError,
        runtime.ContractError,
        runtime.AdmissionRejected,
    } <= found


def _state(error: BaseException) -> dict[str, Any]:
    """Every public attribute of an exception: its __dict__, its slots and its
    properties (private ones may be caches: ValidationError writes its pointers
    lazily, and a pickle carries them written)."""
    names = set(vars(error)) if hasattr(error, "__dict__") else set()
    for cls in type(error).__mro__:
        names.update(getattr(cls, "__slots__", ()))
        names.update(k for k, v in vars(cls).items() if isinstance(v, property))
    return {n: getattr(error, n) for n in names if not n.startswith("_") and hasattr(error, n)}


def assert_equivalent(a: Any, b: Any, seen: set[tuple[int, int]] | None = None) -> None:
    """``a`` and ``b`` are the same value, exceptions and dataclasses compared field
    by field (they compare by identity), cycles followed once."""
    seen = set() if seen is None else seen
    if (id(a), id(b)) in seen:
        return
    seen.add((id(a), id(b)))
    assert type(a) is type(b), (a, b)
    if isinstance(a, BaseException):
        assert a.args == b.args and str(a) == str(b) and repr(a) == repr(b)
        state_a, state_b = _state(a), _state(b)
        assert state_a.keys() == state_b.keys(), (a, sorted(state_a), sorted(state_b))
        for key, value in state_a.items():
            assert_equivalent(value, state_b[key], seen)
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        for item in dataclasses.fields(a):
            assert_equivalent(getattr(a, item.name), getattr(b, item.name), seen)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_equivalent(x, y, seen)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_equivalent(a[key], b[key], seen)
    else:
        assert a == b, (a, b)


def _trips() -> list[Any]:
    trips: list[Any] = [
        pytest.param(lambda e, p=p: pickle.loads(pickle.dumps(e, p)), id=f"pickle-{p}")
        for p in range(pickle.HIGHEST_PROTOCOL + 1)
    ]
    trips.append(pytest.param(copy.copy, id="copy"))
    trips.append(pytest.param(copy.deepcopy, id="deepcopy"))
    return trips


@pytest.mark.parametrize("trip", _trips())
@pytest.mark.parametrize("cls", list(EXAMPLES), ids=_name)
def test_an_error_survives_a_round_trip(cls: type[BaseException], trip: Any) -> None:
    errors = [e for e in EXAMPLES[cls]() if type(e) is cls]
    assert errors, f"no example of {_name(cls)} itself"
    for error in errors:
        clone = trip(error)
        assert clone is not error
        assert_equivalent(error, clone)


def test_a_contract_error_keeps_its_own_place_in_details() -> None:
    error = _contract_errors()[1]
    clone = pickle.loads(pickle.dumps(error))
    assert clone.details[0] is clone
    assert [d.code for d in clone.details] == [d.code for d in error.details]
    assert isinstance(clone.details[0], runtime.ContractError)
