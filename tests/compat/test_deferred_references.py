"""schemacore.compat's ``defer_unresolved``: compat validator classes take the engine's
option (keyword-only), keep it through ``evolve`` and pickling, and fail closed where
a call reaches a reference to nothing, as the engine does."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any, cast

import pytest

import schemacore
from schemacore.compat import (
    Draft4Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
    validate,
)

ABSENT = "https://absent.example/step.json"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "step": {"$ref": ABSENT}},
}
CLASSES = [Draft202012Validator, Draft201909Validator, Draft7Validator, Draft4Validator]


def _verdicts(validator: Any) -> list[Callable[[Any], bool]]:
    """Each way to ask a compat validator: its answer as a verdict."""

    def validated(instance: Any) -> bool:
        try:
            validator.validate(instance)
        except schemacore.ValidationError:
            return False
        return True

    return [
        validator.is_valid,
        lambda instance: not list(validator.iter_errors(instance)),
        validated,
    ]


@pytest.mark.parametrize("cls", CLASSES)
def test_by_default_the_first_call_raises_the_compile_error_naming_the_option(cls: Any) -> None:
    validator = cls(SCHEMA)
    assert validator.defer_unresolved is False
    with pytest.raises(schemacore.SchemaError) as caught:
        validator.is_valid({})
    assert caught.value.reason == "unresolvable-reference"
    assert "defer_unresolved=True" in caught.value.message


@pytest.mark.parametrize("cls", CLASSES)
def test_every_call_answers_an_instance_that_never_reaches_it(cls: Any) -> None:
    validator = cls(SCHEMA, defer_unresolved=True)
    for verdict in _verdicts(validator):
        assert verdict({"name": "x"}) is True
        assert verdict({"name": 1}) is False
    [error] = validator.iter_errors({"name": 1})
    assert error.json_path == "$.name"


@pytest.mark.parametrize("cls", CLASSES)
def test_every_call_fails_closed_where_an_instance_reaches_it(cls: Any) -> None:
    validator = cls({"anyOf": [{"type": "string"}, SCHEMA]}, defer_unresolved=True)
    for verdict in _verdicts(validator):
        with pytest.raises(schemacore.ExecutionFailure) as caught:
            verdict({"step": 1})
        assert caught.value.reason == "unresolvable-reference"


def test_the_option_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        cast(Any, Draft202012Validator)(SCHEMA, None, None, True)


def _alone(instance: Any) -> Any:
    return instance


def _listed(instance: Any) -> Any:
    return [instance]


def test_evolve_and_pickling_keep_the_option() -> None:
    validator = Draft202012Validator(SCHEMA, defer_unresolved=True)
    validator.is_valid({})  # compiled: the pickle carries the compiled validator too
    fresh = Draft202012Validator(SCHEMA, defer_unresolved=True)
    for copy, wrap in (
        (validator.evolve(), _alone),
        (validator.evolve(schema={"items": SCHEMA}), _listed),
        (pickle.loads(pickle.dumps(validator)), _alone),
        (pickle.loads(pickle.dumps(fresh)), _alone),
    ):
        assert copy.defer_unresolved is True
        assert copy.is_valid(wrap({"name": "x"}))
        with pytest.raises(schemacore.ExecutionFailure):
            copy.is_valid(wrap({"step": 1}))
    assert validator.evolve(defer_unresolved=False).defer_unresolved is False
    with pytest.raises(schemacore.SchemaError):
        validator.evolve(defer_unresolved=False).is_valid({})


def test_the_validate_function_passes_the_option_on() -> None:
    validate({"name": "x"}, SCHEMA, defer_unresolved=True)
    with pytest.raises(schemacore.ExecutionFailure):
        validate({"step": 1}, SCHEMA, defer_unresolved=True)
