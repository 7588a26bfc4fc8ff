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

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .display import describe_integer
from .errors import ExecutionFailure, ValidationError
from .evaluation import Keep
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
    """The outcome of ``Validator.evaluate``: validity, errors, annotations, outputs.

    Each part costs what it reports, and is worked out when first asked for:

    - ``valid`` is ``is_valid``'s answer, known at once: ``evaluate()`` costs one
      ``is_valid`` call, and ``output("flag")`` nothing more.
    - ``errors`` runs ``iter_errors`` on first read (nothing when valid) and keeps the
      list; ``output("basic")`` of an invalid instance is written from them, with no
      annotation walk.
    - ``annotations`` (and ``output("basic")`` when valid) walk the instance keeping
      only what leads to an annotation of a passing unit; the list is kept.
    - ``output("list")``, ``"detailed"`` and ``"hierarchical"`` walk it keeping the
      units that report something (failed keywords, annotations, the schema objects
      holding them); ``"verbose"`` keeps every unit. Each such call walks again and
      keeps nothing after: memory grows with the output, never stays with the
      evaluation.

    So the instance is read again whenever a part is first worked out (do not change
    it while its evaluation is in use), each time under the validator's limits anew
    (a ``time_budget`` per walk); an ``ExecutionFailure`` that only a complete walk
    meets (a limit past the point where ``is_valid`` could stop) is raised by the
    part that needs the walk, not by ``evaluate()``. :meth:`iter_json` writes an
    output piece by piece.
    """

    __slots__ = ("_annotations", "_errors", "_given", "_iter_errors", "_walk", "valid")

    _annotations: list[Annotation] | None
    _errors: list[ValidationError] | None
    _given: Unit | None
    _iter_errors: Callable[[], Iterator[ValidationError]] | None
    _walk: Callable[[Keep], Unit] | None

    def __init__(self, valid: bool, errors: list[ValidationError], tree: Unit) -> None:
        """An evaluation of which everything is known already: its ``errors`` and its
        whole evaluation ``tree`` (``Validator.evaluate`` makes lazy ones)."""
        self.valid = valid
        self._errors = errors
        self._annotations = None if valid else []
        self._given = tree
        self._iter_errors = None
        self._walk = None

    @classmethod
    def _deferred(
        cls,
        valid: bool,
        iter_errors: Callable[[], Iterator[ValidationError]],
        walk: Callable[[Keep], Unit],
    ) -> Evaluation:
        """An evaluation of which only ``valid`` is known: ``iter_errors`` yields the
        errors, ``walk(keep)`` returns a fresh tree keeping what ``keep`` says."""
        made = cls.__new__(cls)
        made.valid = valid
        made._errors = [] if valid else None
        made._annotations = None if valid else []
        made._given = None
        made._iter_errors = iter_errors
        made._walk = walk
        return made

    @property
    def errors(self) -> list[ValidationError]:
        """The errors ``iter_errors`` yields (none when valid), in its order."""
        if self._errors is None:
            assert self._iter_errors is not None
            self._errors = list(self._iter_errors())
        return self._errors

    @property
    def annotations(self) -> list[Annotation]:
        """The annotations kept where every enclosing unit passed (none when
        invalid), depth first."""
        if self._annotations is None:
            tree, _ = self._tree_keeping("annotations")
            self._annotations = [
                Annotation(
                    unit.keyword or "",
                    unit.annotation,
                    unit.instance_location,
                    unit.keyword_location,
                    unit.absolute_keyword_location,
                )
                for unit in iter_annotations(tree)
            ]
        return self._annotations

    @property
    def _tree(self) -> Unit:
        """The whole evaluation tree (every unit)."""
        return self._tree_keeping("every")[0]

    def _tree_keeping(self, keep: Keep) -> tuple[Unit, bool]:
        """A tree holding at least what ``keep`` says, and whether it is this call's
        own (a fresh walk, which its reader may take apart as it goes)."""
        if self._given is not None:
            return self._given, False
        assert self._walk is not None
        return self._walk(keep), True

    def __repr__(self) -> str:
        return f"<Evaluation valid={self.valid} errors={len(self.errors)}>"

    def __reduce__(self) -> tuple[Any, ...]:
        # A pickle (or copy) holds everything, worked out now: the instance and the
        # validator it would read are not part of it.
        return (Evaluation, (self.valid, self.errors, self._tree))

    def output(self, fmt: str = "basic") -> dict[str, Any]:
        """The result in one of ``FORMATS``, as JSON-ready data (see the class for
        what each costs).

        Raises ExecutionFailure when a nested format (detailed, verbose,
        hierarchical) of a deep evaluation cannot be written within Python's
        recursion limit (a tree is several units deep per level of the instance;
        ``flag``, ``basic`` and ``list`` are flat and always written), or when the
        walk a format needs meets a limit.
        """
        try:
            return self._output(fmt)
        except RecursionError:
            raise _too_nested(fmt) from None

    def iter_json(self, fmt: str = "basic", *, ensure_ascii: bool = True) -> Iterator[str]:
        """``output(fmt)`` as JSON text, in pieces: joined, they are
        ``json.dumps(self.output(fmt), ensure_ascii=ensure_ascii)`` where that can
        write it, and always JSON any reader takes: a finite ``Decimal`` (an
        annotation's value, from a schema read with ``parse_float=Decimal``) is
        written as its number, and an integer longer than Python writes as text
        (``sys.get_int_max_str_digits``) as a string giving its size, as error
        messages describe it. NaN and infinities never reach an output: ``compile``
        refuses a schema holding one.

        ``basic`` and ``list`` write each of their units as it is made, so no whole
        output is ever held: an invalid ``basic`` one error at a time, as
        ``iter_errors`` yields it (the walk ``list`` needs is still made first, and
        taken apart as it is written). The nested formats come in one piece. Raises
        what ``output`` raises, possibly after some pieces.
        """
        if fmt not in FORMATS:
            raise ValueError(_unknown(fmt))  # now, not at the first piece
        return self._json_pieces(fmt, _encoder(ensure_ascii))

    def _json_pieces(self, fmt: str, encode: Callable[[Any], str]) -> Iterator[str]:
        try:
            if fmt == "basic":
                top, key, units = self._basic_parts()
            elif fmt == "list":
                top, key, units = {"valid": self.valid}, "details", self._list_units()
            else:
                yield encode(self._output(fmt))
                return
            head = encode(top)[:-1]
            if units is None:
                yield head + "}"
                return
            yield f"{head}, {encode(key)}: ["
            separator = ""
            for unit in units:
                yield separator + encode(unit)
                separator = ", "
            yield "]}"
        except RecursionError:
            raise _too_nested(fmt) from None

    def _output(self, fmt: str) -> dict[str, Any]:
        if fmt == "flag":
            return {"valid": self.valid}
        if fmt == "basic":
            top, key, units = self._basic_parts()
            if units is not None:
                top[key] = list(units)
            return top
        if fmt == "detailed":
            return _detailed(self._tree_keeping("results")[0], self.valid)
        if fmt == "verbose":
            return _verbose(self._tree_keeping("every")[0], self.valid)
        if fmt == "list":
            return {"valid": self.valid, "details": list(self._list_units())}
        if fmt == "hierarchical":
            return _hierarchical(self._tree_keeping("results")[0], self.valid)
        raise ValueError(_unknown(fmt))

    def _list_units(self) -> Iterator[dict[str, Any]]:
        tree, own = self._tree_keeping("results")
        return _list_units(tree, release=own)

    def _basic_parts(self) -> tuple[dict[str, Any], str, Iterator[dict[str, Any]] | None]:
        """The ``basic`` output's top unit, the key of its list and the list's
        units (None when the list is left out: a valid result without annotations)."""
        top: dict[str, Any] = {"valid": self.valid, "keywordLocation": "", "instanceLocation": ""}
        if not self.valid:
            # Errors already read are reused; otherwise they are written as
            # iter_errors yields them, and none is kept.
            if self._errors is not None:
                errors: Iterable[ValidationError] = self._errors
            else:
                assert self._iter_errors is not None
                errors = self._iter_errors()
            return top, "errors", (_basic_error(e) for e in errors)
        annotations = self.annotations
        if not annotations:
            return top, "annotations", None
        return top, "annotations", (_basic_annotation(a) for a in annotations)


class _NotNative(Exception):
    """The JSON encoder met a Decimal, which it cannot write."""


def _not_native(value: Any) -> Any:
    # The encoder's fallback for a value that is not one of its types.
    if isinstance(value, Decimal):
        raise _NotNative
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _encoder(ensure_ascii: bool) -> Callable[[Any], str]:
    """The JSON text of an output value (see ``Evaluation.iter_json``)."""
    fast = json.JSONEncoder(ensure_ascii=ensure_ascii, allow_nan=False, default=_not_native).encode

    def encode(value: Any) -> str:
        try:
            return fast(value)
        except (_NotNative, ValueError):
            # A Decimal, or an integer Python does not write: rare, so written here
            # in Python, the same text otherwise.
            parts: list[str] = []
            _write(value, parts, fast)
            return "".join(parts)

    return encode


def _write(value: Any, parts: list[str], encode: Callable[[Any], str]) -> None:
    """Append the JSON text of ``value`` to ``parts``, as ``encode`` writes it but
    for the numbers it does not write (``encode`` writes strings, booleans, null and
    floats)."""
    if isinstance(value, dict):
        parts.append("{")
        separator = ""
        for key, member in value.items():
            if not isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            parts.append(f"{separator}{encode(key)}: ")
            _write(member, parts, encode)
            separator = ", "
        parts.append("}")
    elif isinstance(value, (list, tuple)):
        parts.append("[")
        separator = ""
        for item in value:
            parts.append(separator)
            _write(item, parts, encode)
            separator = ", "
        parts.append("]")
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            parts.append(int.__repr__(value))
        except ValueError:  # longer than sys.get_int_max_str_digits()
            parts.append(encode(describe_integer(value)))
    elif isinstance(value, Decimal):
        if not Decimal.is_finite(value):
            raise ValueError(f"{Decimal.__str__(value)} is not a JSON number")
        parts.append(Decimal.__str__(value))
    else:
        parts.append(encode(value))


def _basic_error(e: ValidationError) -> dict[str, Any]:
    return {
        "valid": False,
        "keywordLocation": e.keyword_location,
        "absoluteKeywordLocation": e.absolute_keyword_location,
        "instanceLocation": e.instance_location,
        "error": e.message,
    }


def _basic_annotation(a: Annotation) -> dict[str, Any]:
    return {
        "valid": True,
        "keywordLocation": a.keyword_location,
        "absoluteKeywordLocation": a.absolute_keyword_location,
        "instanceLocation": a.instance_location,
        "annotation": a.value,
    }


def _unknown(fmt: str) -> str:
    return f"unknown output format {fmt!r}; choose one of {', '.join(FORMATS)}"


def _too_nested(fmt: str) -> ExecutionFailure:
    return ExecutionFailure(
        f"the evaluation is nested too deeply to write in the {fmt!r} output "
        "format within Python's recursion limit (the flat formats, basic and "
        "list, hold the same results)",
        limit="recursion",
    )


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


def _schema_units(unit: Unit, release: bool = False) -> Iterator[tuple[Unit, list[Unit]]]:
    """Each schema-object unit with its keyword units, depth first (iteratively:
    the list format is flat, whatever the depth). ``release`` lets go of each unit
    once passed, for a tree nobody else holds: its memory goes as the output grows."""
    pending = [unit]
    while pending:
        current = pending.pop()
        if current.keyword is None:
            yield current, current.children
        pending.extend(reversed(current.children))
        if release:
            current.children = []


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


def _list_units(tree: Unit, release: bool = False) -> Iterator[dict[str, Any]]:
    for unit, keywords in _schema_units(tree, release):
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
