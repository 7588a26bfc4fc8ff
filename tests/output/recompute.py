"""The lazy ``Evaluation`` against a direct recomputation of every part.

``recomputed`` builds an evaluation the way ``Validator.evaluate`` used to, all at
once: ``is_valid``, every error ``iter_errors`` yields, and the whole evaluation tree.
``check_agreement`` asks a lazy evaluation for each part (in an order of its own, on
fresh evaluations too, so no part rides on one worked out before) and requires the
same answer, or the same failure, as the recomputation.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import schemacore
from schemacore import Evaluation, ExecutionFailure
from schemacore.display import describe_integer
from schemacore.output import FORMATS

__all__ = ["check_agreement", "recomputed"]


def recomputed(validator: schemacore.Validator, instance: Any) -> Evaluation:
    """Every part of the evaluation of ``instance``, worked out now."""
    valid = validator.is_valid(instance)
    errors = [] if valid else list(validator.iter_errors(instance))
    return Evaluation(valid, errors, validator._walk(instance, "every"))


def _outcome(part: Callable[..., Any], *args: Any) -> Any:
    """What ``part(*args)`` returns, or the failure it raises (its class and limit)."""
    try:
        return part(*args)
    except (ExecutionFailure, ValueError) as exc:
        return ("failed", type(exc).__name__, getattr(exc, "limit", None))


def _errors(evaluation: Evaluation) -> list[tuple[str, str, str, str | None, str]]:
    return [
        (e.instance_location, e.keyword_location, e.absolute_keyword_location, e.keyword, e.message)
        for e in evaluation.errors
    ]


def _text(evaluation: Evaluation, fmt: str, ensure_ascii: bool) -> str:
    return "".join(evaluation.iter_json(fmt, ensure_ascii=ensure_ascii))


def _fresh_output(validator: schemacore.Validator, instance: Any, fmt: str) -> dict[str, Any]:
    return validator.evaluate(instance).output(fmt)


def _fresh_text(
    validator: schemacore.Validator, instance: Any, fmt: str, ensure_ascii: bool
) -> str:
    return _text(validator.evaluate(instance), fmt, ensure_ascii)


def _dumps(value: Any, ensure_ascii: bool) -> str:
    """The text ``iter_json`` must write for an output: ``json.dumps``', with each
    integer longer than Python writes as text given by its size."""
    try:
        return json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=False)
    except ValueError:  # such an integer (a deep output fails alike: RecursionError)
        return json.dumps(_sized(value), ensure_ascii=ensure_ascii, allow_nan=False)


def _sized(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sized(member) for key, member in value.items()}
    if isinstance(value, list):
        return [_sized(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            repr(value)
        except ValueError:
            return describe_integer(value)
    return value


def check_agreement(validator: schemacore.Validator, instance: Any) -> bool:
    """Assert that a lazy evaluation of ``instance`` answers every part as the
    recomputation does; return the verdict. An ExecutionFailure of ``is_valid``
    (which ``evaluate()`` raises too) is checked and returned as False."""
    try:
        valid = validator.is_valid(instance)
    except ExecutionFailure as exc:
        try:
            validator.evaluate(instance)
        except ExecutionFailure as again:
            assert (again.limit, again.reason) == (exc.limit, exc.reason)
            return False
        raise AssertionError("evaluate() did not fail as is_valid did") from exc

    lazy = validator.evaluate(instance)
    reference = _outcome(recomputed, validator, instance)
    assert lazy.valid is valid
    assert lazy.output("flag") == {"valid": valid}
    if not isinstance(reference, Evaluation):
        # The whole walk failed: each part that needs it fails alike, the rest answer.
        for fmt in ("list", "verbose"):
            assert _outcome(_fresh_output, validator, instance, fmt) == reference
        return valid
    assert reference._tree.valid is valid

    # One evaluation asked for everything, nested formats first, then the parts.
    for fmt in (*reversed(FORMATS), *FORMATS):
        assert _outcome(lazy.output, fmt) == _outcome(reference.output, fmt), fmt
    assert _errors(lazy) == _errors(reference)
    assert lazy.annotations == reference.annotations
    assert repr(lazy) == repr(reference)

    # Fresh evaluations, each asked for one thing first: no part rides on another.
    assert _errors(validator.evaluate(instance)) == _errors(reference)
    assert validator.evaluate(instance).annotations == reference.annotations
    for fmt in FORMATS:
        expected = _outcome(reference.output, fmt)
        assert _outcome(_fresh_output, validator, instance, fmt) == expected
        for ensure_ascii in (True, False):
            written = _outcome(_text, lazy, fmt, ensure_ascii)
            streamed = _outcome(_fresh_text, validator, instance, fmt, ensure_ascii)
            if isinstance(expected, dict):
                expected_text = _outcome(_dumps, expected, ensure_ascii)
                assert written == streamed == expected_text, fmt
            else:
                assert written == streamed == expected, fmt
    return valid
