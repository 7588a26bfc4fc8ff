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
from schemacore.output import FORMATS

__all__ = ["check_agreement", "recomputed"]


def recomputed(validator: schemacore.Validator, instance: Any) -> Evaluation:
    """Every part of the evaluation of ``instance``, worked out now."""
    valid = validator.is_valid(instance)
    errors = [] if valid else list(validator.iter_errors(instance))
    return Evaluation(valid, errors, validator._walk(instance, "every"))


def _outcome(part: Callable[[], Any]) -> Any:
    """What ``part`` returns, or the failure it raises (its class and limit): an
    ExecutionFailure, or the ValueError of ``json`` writing an integer too long."""
    try:
        return part()
    except (ExecutionFailure, ValueError) as exc:
        return ("failed", type(exc).__name__, getattr(exc, "limit", None))


def _errors(evaluation: Evaluation) -> list[tuple[str, str, str, str | None, str]]:
    return [
        (e.instance_location, e.keyword_location, e.absolute_keyword_location, e.keyword, e.message)
        for e in evaluation.errors
    ]


def _text(evaluation: Evaluation, fmt: str, ensure_ascii: bool) -> str:
    return "".join(evaluation.iter_json(fmt, ensure_ascii=ensure_ascii))


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
    reference = _outcome(lambda: recomputed(validator, instance))
    assert lazy.valid is valid
    assert lazy.output("flag") == {"valid": valid}
    if not isinstance(reference, Evaluation):
        # The whole walk failed: each part that needs it fails alike, the rest answer.
        for fmt in ("list", "verbose"):
            assert _outcome(lambda fmt=fmt: validator.evaluate(instance).output(fmt)) == reference
        return valid
    assert reference._tree.valid is valid

    # One evaluation asked for everything, nested formats first, then the parts.
    for fmt in (*reversed(FORMATS), *FORMATS):
        expected = _outcome(lambda fmt=fmt: reference.output(fmt))
        assert _outcome(lambda fmt=fmt: lazy.output(fmt)) == expected, fmt
    assert _errors(lazy) == _errors(reference)
    assert lazy.annotations == reference.annotations
    assert repr(lazy) == repr(reference)

    # Fresh evaluations, each asked for one thing first: no part rides on another.
    assert _errors(validator.evaluate(instance)) == _errors(reference)
    assert validator.evaluate(instance).annotations == reference.annotations
    for fmt in FORMATS:
        expected = _outcome(lambda fmt=fmt: reference.output(fmt))
        assert _outcome(lambda fmt=fmt: validator.evaluate(instance).output(fmt)) == expected
        for ensure_ascii in (True, False):
            written = _outcome(lambda f=fmt, a=ensure_ascii: _text(lazy, f, a))
            streamed = _outcome(
                lambda f=fmt, a=ensure_ascii: _text(validator.evaluate(instance), f, a)
            )
            if isinstance(expected, dict):
                text = _outcome(
                    lambda e=expected, a=ensure_ascii: json.dumps(e, ensure_ascii=a)
                )
                assert written == streamed == text, fmt
            else:
                assert written == streamed == expected, fmt
    return valid
