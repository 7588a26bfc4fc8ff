"""Evaluation results and the standard output formats.

``flag``, ``basic``, ``detailed`` and ``verbose`` are the formats of Draft 2020-12
section 12.4 (``keywordLocation``, ``absoluteKeywordLocation``, ``instanceLocation``,
``error``, ``annotation``, ``errors``, ``annotations``). ``list`` and
``hierarchical`` are the newer shapes, one unit per schema object evaluated
(``evaluationPath``, ``schemaLocation``, ``instanceLocation``, ``valid``, and maps of
``errors`` and ``annotations`` by keyword). The ``basic`` errors are exactly the
errors ``iter_errors`` yields.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .errors import ExecutionFailure, ValidationError
from .units import Unit, iter_annotations

__all__ = ["FORMATS", "Annotation", "Evaluation"]

FORMATS = ("flag", "basic", "detailed", "verbose", "list", "hierarchical")


@dataclass(frozen=True, slots=True)
class Annotation:
    """One annotation a passing keyword attached to an instance location."""

    keyword: str
    value: Any
    instance_location: str
    keyword_location: str
    absolute_keyword_location: str

    @property
    def schema_location(self) -> str:
        """The absolute location of the schema object holding the keyword."""
        return self.absolute_keyword_location.rpartition("/")[0]


class Evaluation:
    """The outcome of ``Validator.evaluate``: validity, errors, annotations, outputs."""

    __slots__ = ("_tree", "annotations", "errors", "valid")

    def __init__(self, valid: bool, errors: list[ValidationError], tree: Unit) -> None:
        self.valid = valid
        self.errors = errors
        self._tree = tree
        self.annotations: list[Annotation] = (
            [
                Annotation(
                    unit.keyword or "",
                    unit.annotation,
                    unit.instance_location,
                    unit.keyword_location,
                    unit.absolute_keyword_location,
                )
                for unit in iter_annotations(tree)
            ]
            if valid
            else []
        )

    def __repr__(self) -> str:
        return f"<Evaluation valid={self.valid} errors={len(self.errors)}>"

    def output(self, fmt: str = "basic") -> dict[str, Any]:
        """The result in one of ``FORMATS``, as JSON-ready data.

        Raises ExecutionFailure when a nested format (detailed, verbose,
        hierarchical) of a deep evaluation cannot be written within Python's
        recursion limit (a tree is several units deep per level of the instance;
        ``flag``, ``basic`` and ``list`` are flat and always written).
        """
        try:
            return self._output(fmt)
        except RecursionError:
            raise ExecutionFailure(
                f"the evaluation is nested too deeply to write in the {fmt!r} output "
                "format within Python's recursion limit (the flat formats, basic and "
                "list, hold the same results)",
                limit="recursion",
            ) from None

    def _output(self, fmt: str) -> dict[str, Any]:
        if fmt == "flag":
            return {"valid": self.valid}
        if fmt == "basic":
            return self._basic()
        if fmt == "detailed":
            return _detailed(self._tree, self.valid)
        if fmt == "verbose":
            return _verbose(self._tree, self.valid)
        if fmt == "list":
            return {"valid": self.valid, "details": list(_list_units(self._tree))}
        if fmt == "hierarchical":
            return _hierarchical(self._tree, self.valid)
        raise ValueError(f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}")

    def _basic(self) -> dict[str, Any]:
        top: dict[str, Any] = {"valid": self.valid, "keywordLocation": "", "instanceLocation": ""}
        if not self.valid:
            top["errors"] = [
                {
                    "valid": False,
                    "keywordLocation": e.keyword_location,
                    "absoluteKeywordLocation": e.absolute_keyword_location,
                    "instanceLocation": e.instance_location,
                    "error": e.message,
                }
                for e in self.errors
            ]
        elif self.annotations:
            top["annotations"] = [
                {
                    "valid": True,
                    "keywordLocation": a.keyword_location,
                    "absoluteKeywordLocation": a.absolute_keyword_location,
                    "instanceLocation": a.instance_location,
                    "annotation": a.value,
                }
                for a in self.annotations
            ]
        return top


def _unit_fields(unit: Unit, valid: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "valid": valid,
        "keywordLocation": unit.keyword_location,
        "absoluteKeywordLocation": unit.absolute_keyword_location,
        "instanceLocation": unit.instance_location,
    }
    if not valid and unit.error is not None:
        out["error"] = unit.error
    if valid and unit.has_annotation:
        out["annotation"] = unit.annotation
    return out


def _verbose(unit: Unit, valid: bool) -> dict[str, Any]:
    out = _unit_fields(unit, valid)
    if unit.children:
        key = "annotations" if valid else "errors"
        out[key] = [_verbose(child, valid and child.valid) for child in unit.children]
    if not valid and "error" not in out and "errors" not in out:
        out["error"] = "the schema failed"
    return out


def _prune(unit: Unit, valid: bool) -> Unit | None:
    """Keep what explains the result; a unit with one child and nothing of its own
    is replaced by that child."""
    if unit.valid != valid:
        return None
    children = [kept for child in unit.children if (kept := _prune(child, valid)) is not None]
    if valid and not children and not unit.has_annotation:
        return None
    if len(children) == 1 and unit.error is None and not unit.has_annotation:
        return children[0]
    return Unit(
        unit.keyword_location,
        unit.absolute_keyword_location,
        unit.instance_location,
        unit.keyword,
        unit.valid,
        unit.error,
        unit.annotation,
        children,
    )


def _detailed(unit: Unit, valid: bool) -> dict[str, Any]:
    top = _unit_fields(unit, valid)
    top.pop("error", None)
    top.pop("annotation", None)
    kept = [p for child in unit.children if (p := _prune(child, valid)) is not None]
    if kept:
        top["annotations" if valid else "errors"] = [_verbose(p, valid) for p in kept]
    elif not valid:
        top["error"] = "the schema failed"
    return top


def _schema_units(unit: Unit) -> Iterator[tuple[Unit, list[Unit]]]:
    """Each schema-object unit with its keyword units, depth first (iteratively:
    the list format is flat, whatever the depth)."""
    pending = [unit]
    while pending:
        current = pending.pop()
        if current.keyword is None:
            yield current, current.children
        pending.extend(reversed(current.children))


def _list_entry(unit: Unit, keywords: list[Unit], valid: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "valid": valid,
        "evaluationPath": unit.keyword_location,
        "schemaLocation": unit.absolute_keyword_location,
        "instanceLocation": unit.instance_location,
    }
    errors = {k.keyword: k.error for k in keywords if not k.valid and k.error and k.keyword}
    annotations = {k.keyword: k.annotation for k in keywords if k.has_annotation and k.keyword}
    if not valid and errors:
        entry["errors"] = errors
    if valid and annotations:
        entry["annotations"] = annotations
    return entry


def _list_units(tree: Unit) -> Iterator[dict[str, Any]]:
    for unit, keywords in _schema_units(tree):
        yield _list_entry(unit, keywords, unit.valid)


def _hierarchical(unit: Unit, valid: bool) -> dict[str, Any]:
    entry = _list_entry(unit, unit.children, valid)
    details = [
        _hierarchical(schema_unit, valid and schema_unit.valid)
        for keyword in unit.children
        for schema_unit in _direct_schema_units(keyword)
    ]
    if details:
        entry["details"] = details
    return entry


def _direct_schema_units(unit: Unit) -> Iterator[Unit]:
    for child in unit.children:
        if child.keyword is None:
            yield child
        else:
            yield from _direct_schema_units(child)
