"""Choosing the error a person wants to see first."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import ValidationError

__all__ = ["WEAK", "best_match", "most_relevant", "relevance"]

# Keywords whose failure says little on its own: the interesting part is inside.
WEAK = frozenset({"anyOf", "oneOf", "false"})
# Keywords whose context holds alternatives, one of which the person meant. The
# context of ``contains`` holds every item's errors: no item was meant to pass, so
# its own error is the relevant one.
_BRANCHING = frozenset({"anyOf", "oneOf"})
# Below the relevance of every error: the first one always replaces it.
_NOTHING = (-1, 0)


def relevance(error: ValidationError) -> tuple[int, int]:
    """Sort key, higher is more relevant: deeper in the instance, then not weak."""
    return error._instance_depth(), 0 if error.keyword in WEAK else 1


def best_match(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The most relevant error of ``errors``, looking inside ``anyOf``/``oneOf``.

    The deepest instance location wins, the first among equals; at equal depth an
    error that is not a weak ``anyOf``/``oneOf``/``false`` one. For a failed
    ``anyOf``/``oneOf``, the branch that came closest is followed, down to a leaf:
    a branch whose ``type`` matched the value (none of its errors is a ``type`` error
    at the ``anyOf``'s own location) before one whose ``type`` did not, then the
    fewest errors, then the deepest. A failed ``contains`` is its own best match,
    never one item's error.

    ``errors`` is read once, one error at a time, and never kept: the work is linear
    in the errors read (and the contexts of the alternatives followed).
    """
    return most_relevant(errors, None)


def most_relevant(
    errors: Iterable[ValidationError], ceiling: tuple[int, int] | None
) -> ValidationError | None:
    """``best_match(errors)``, reading no further than the first error whose
    relevance reaches ``ceiling``: when no error can be more relevant than that (see
    ``schemacore.ceiling``), the errors after it cannot change the answer."""
    best: ValidationError | None = None
    best_key = _NOTHING
    for error in errors:
        key = relevance(error)
        # Strictly more relevant only: the first among equals stays.
        if key > best_key:
            best, best_key = error, key
            if ceiling is not None and key >= ceiling:
                break
    while best is not None and best.keyword in _BRANCHING and best.context:
        best = max(_closest_branch(best), key=relevance)
    return best


def _closest_branch(error: ValidationError) -> list[ValidationError]:
    """The errors of the branch of a failed ``anyOf``/``oneOf`` that came closest."""
    branches: dict[str, list[ValidationError]] = {}
    prefix = error.keyword_location + "/"
    for sub in error.context:
        branch = sub.keyword_location[len(prefix) :].split("/", 1)[0]
        branches.setdefault(branch, []).append(sub)
    here = error.instance_location

    def distance(group: list[ValidationError]) -> tuple[bool, int, int]:
        # A branch of another type was most likely not the one meant ("bar" against
        # an array branch and a string one means the string one), however few its
        # errors; min() keeps the first branch among equals.
        wrong_type = any(e.keyword == "type" and e.instance_location == here for e in group)
        return wrong_type, len(group), -max(relevance(e)[0] for e in group)

    return min(branches.values(), key=distance)
