"""Choosing the error a person wants to see first."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import ValidationError

__all__ = ["best_match", "relevance"]

# Keywords whose failure says little on its own: the interesting part is inside.
_WEAK = frozenset({"anyOf", "oneOf", "false"})
# Keywords whose context holds alternatives, one of which the person meant. The
# context of ``contains`` holds every item's errors: no item was meant to pass, so
# its own error is the relevant one.
_BRANCHING = frozenset({"anyOf", "oneOf"})


def relevance(error: ValidationError) -> tuple[int, int]:
    """Sort key, higher is more relevant: deeper in the instance, then not weak."""
    depth = error.instance_location.count("/")
    return depth, 0 if error.keyword in _WEAK else 1


def best_match(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The most relevant error of ``errors``, looking inside ``anyOf``/``oneOf``.

    The deepest instance location wins. For a failed ``anyOf``/``oneOf``, the branch
    that came closest (fewest errors, then deepest) is followed, down to a leaf. A
    failed ``contains`` is its own best match, never one item's error.
    """
    best: ValidationError | None = None
    for error in errors:
        if best is None or relevance(error) > relevance(best):
            best = error
    while best is not None and best.keyword in _BRANCHING and best.context:
        branches: dict[str, list[ValidationError]] = {}
        prefix = best.keyword_location + "/"
        for sub in best.context:
            branch = sub.keyword_location[len(prefix) :].split("/", 1)[0]
            branches.setdefault(branch, []).append(sub)
        closest = min(
            branches.values(),
            key=lambda group: (len(group), -max(relevance(e)[0] for e in group)),
        )
        best = max(closest, key=relevance)
    return best
