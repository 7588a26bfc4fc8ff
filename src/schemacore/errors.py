"""The exceptions schemacore raises, and the validation error it reports.

Every failure to compile a schema or to finish evaluating an instance is a
:class:`SchemaCoreError` carrying a stable ``error_class`` string, so callers at a
trust boundary can map it to a machine-readable answer without parsing messages.
An instance that merely does not match its schema is reported as a
:class:`ValidationError` (yielded by ``iter_errors``, raised by ``validate``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from .paths import Path, to_pointer

__all__ = [
    "REASONS",
    "ExecutionFailure",
    "SchemaCoreError",
    "SchemaError",
    "UnsupportedCapability",
    "ValidationError",
]


# The stable ``reason`` codes of SchemaCoreError, by class: what is wrong, for
# callers that must not parse messages (tests/engine/test_reasons.py checks that
# every raise uses one of these, and that each is used). One code belongs to two
# classes: unresolvable-reference is a SchemaError of the compile, or, compiled
# with defer_unresolved=True, an ExecutionFailure of the call that reaches it.
REASONS: dict[str, str] = {
    # SchemaError
    "not-a-schema": "a value where a schema must be is neither an object nor a boolean",
    "meta-schema": "the schema is not valid under its dialect's meta-schema",
    "bad-keyword-value": "a keyword's value is not what the keyword takes",
    "bad-regex": "a pattern is not a valid ECMA-262 regular expression",
    "unresolvable-reference": (
        "a reference names no schema that is registered, loaded or bundled, or no such "
        "anchor or location in one: a SchemaError when compiling, or an ExecutionFailure "
        "of the call that reaches it when compiled with defer_unresolved=True"
    ),
    "loader-failed": (
        "the caller's loader raised while retrieving a document (at compile time, "
        "defer_unresolved or not: the loader answered)"
    ),
    "duplicate-identifier": "one document defines an $id or anchor twice",
    "invalid-identifier": "an $id (draft-04: id) is not a URI-reference",
    "invalid-reference": "a $ref, $dynamicRef or $recursiveRef is not a URI-reference",
    "not-json": "the schema holds a value outside the JSON data model",
    # UnsupportedCapability
    "unsupported-dialect": "$schema names draft 3, an unknown or unreachable dialect",
    "unsupported-vocabulary": "a meta-schema requires a vocabulary schemacore lacks",
    "unsupported-format": "a format is asserted that has no checker",
    # ExecutionFailure (and unresolvable-reference, above)
    "limit-exceeded": "a limit was exceeded (its name is in ``limit``)",
    "reference-loop": "references applied a schema to the same instance location again",
    "instance-not-json": "the instance holds a value outside the JSON data model",
    "checker-failed": "the caller's format checker raised",
}


class SchemaCoreError(Exception):
    """Base class of every error schemacore raises on purpose.

    ``error_class`` is a stable machine-readable category and ``reason`` a stable
    code naming what is wrong (see ``schemacore.errors.REASONS``); ``location`` is the JSON
    Pointer (into the schema, or into the instance for execution failures) of the
    place the problem was found, ``""`` meaning the root.
    """

    error_class: ClassVar[str] = "error"
    default_reason: ClassVar[str] = "bad-keyword-value"

    def __init__(self, message: str, *, location: str = "", reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.reason = reason or self.default_reason

    def __str__(self) -> str:
        if self.location:
            return f"{self.message} (at {self.location!r})"
        return self.message


class SchemaError(SchemaCoreError):
    """The schema is not a valid Draft 2020-12 schema (meta-schema failure, bad
    regular expression, unresolvable reference unless compiled with
    ``defer_unresolved=True``, ...). ``location`` points into the schema."""

    error_class: ClassVar[str] = "validation"
    default_reason: ClassVar[str] = "bad-keyword-value"


class UnsupportedCapability(SchemaCoreError):
    """The schema asks for something schemacore deliberately does not do: another
    draft, an unknown dialect, a required vocabulary it does not know."""

    error_class: ClassVar[str] = "unsupported_capability"
    default_reason: ClassVar[str] = "unsupported-dialect"


class ExecutionFailure(SchemaCoreError):
    """Evaluation could not be completed (a limit was exceeded, a value outside the
    JSON data model was met, a regular expression ran out of time, a reference
    compiled with ``defer_unresolved=True`` to nothing was reached: reason
    ``unresolvable-reference``, ``limit`` None). Never turned into ``False``: a
    caller must not mistake it for a plain mismatch.

    ``limit`` names the limit and ``value`` its value. While compiling, ``location``
    points into the schema; while validating, into the instance when that is known
    (``""`` otherwise), and ``schema_location`` is the absolute URI of the keyword
    that hit the limit, when there is one."""

    error_class: ClassVar[str] = "execution_failure"

    def __init__(
        self,
        message: str,
        *,
        location: str = "",
        limit: str | None = None,
        value: object = None,
        schema_location: str = "",
        reason: str | None = None,
    ) -> None:
        if reason is None:
            reason = {
                "json_data_model": "instance-not-json",
                "format_checker": "checker-failed",
            }.get(limit or "", "limit-exceeded")
        super().__init__(message, location=location, reason=reason)
        self.limit = limit
        self.value = value
        self.schema_location = schema_location


class ValidationError(Exception):
    """One way in which an instance fails its schema.

    Attributes:
        message: a sentence saying what was expected.
        keyword: the schema keyword that failed (``"type"``, ``"required"``, ...).
        instance_location: JSON Pointer of the failing part of the instance.
        keyword_location: JSON Pointer of the evaluation path through the schema,
            ``$ref`` hops included.
        absolute_keyword_location: the absolute URI of the failing keyword, with a
            JSON Pointer fragment, independent of how it was reached.
        instance: the failing part of the instance (the caller's object, not a copy).
        context: for ``anyOf``/``oneOf``, the errors of the branches that failed; for
            ``contains``, the errors of each item (written when first read, from the
            instance as it is then: an array of a million items costs nothing until
            someone looks).
        params: what the keyword checked, for machines: the schema value under the
            keyword's name (``{"maxLength": 3, "length": 5}``), and what it measured
            (a length, a count, the missing or unexpected names, duplicate indexes).
    """

    # Slots: an error is built for every failure iter_errors reports, and slot stores
    # cost a third of dictionary ones.
    __slots__ = (
        "_context",
        "_instance_location",
        "_keyword_location",
        "_paths",
        "absolute_keyword_location",
        "instance",
        "keyword",
        "message",
        "params",
    )

    def __init__(
        self,
        message: str,
        *,
        keyword: str,
        instance_location: str,
        keyword_location: str,
        absolute_keyword_location: str,
        instance: Any,
        context: Sequence[ValidationError] = (),
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.keyword = keyword
        self._instance_location: str | None = instance_location
        self._keyword_location: str | None = keyword_location
        self._paths: tuple[Path, Path] = (None, None)
        self.absolute_keyword_location = absolute_keyword_location
        self.instance = instance
        self._context: tuple[ValidationError, ...] | Callable[[], tuple[ValidationError, ...]]
        self._context = tuple(context)
        self.params: dict[str, Any] = dict(params) if params else {}

    @classmethod
    def _at(
        cls,
        message: str,
        keyword: str,
        instance_path: Path,
        keyword_path: Path,
        absolute_keyword_location: str,
        instance: Any,
        context: tuple[ValidationError, ...] | Callable[[], tuple[ValidationError, ...]],
        params: dict[str, Any],
    ) -> ValidationError:
        """An error whose two JSON Pointers are written on first read: many callers
        only count errors or read their messages, and the pointers cost the most."""
        error = cls.__new__(cls, message)  # which sets args, as __init__ would
        error.message = message
        error.keyword = keyword
        error._instance_location = None
        error._keyword_location = None
        error._paths = (instance_path, keyword_path)
        error.absolute_keyword_location = absolute_keyword_location
        error.instance = instance
        error._context = context
        error.params = params
        return error

    @property
    def context(self) -> tuple[ValidationError, ...]:
        """The errors this one summarises (see the class docstring)."""
        context = self._context
        if not isinstance(context, tuple):
            context = self._context = context()
        return context

    @context.setter
    def context(self, value: Sequence[ValidationError]) -> None:
        self._context = tuple(value)

    @property
    def instance_location(self) -> str:
        """JSON Pointer of the failing part of the instance."""
        location = self._instance_location
        if location is None:
            location = self._instance_location = to_pointer(self._paths[0])
        return location

    @instance_location.setter
    def instance_location(self, value: str) -> None:
        self._instance_location = value

    def _instance_depth(self) -> int:
        """The tokens of ``instance_location``, counted without writing it (ranking
        errors reads the depth of every one, and shows the pointer of one)."""
        location = self._instance_location
        if location is not None:
            return location.count("/")
        depth = 0
        path = self._paths[0]
        while path is not None:
            path = path[0]
            depth += 1
        return depth

    @property
    def keyword_location(self) -> str:
        """JSON Pointer of the evaluation path through the schema, ``$ref`` hops included."""
        location = self._keyword_location
        if location is None:
            location = self._keyword_location = to_pointer(self._paths[1])
        return location

    @keyword_location.setter
    def keyword_location(self, value: str) -> None:
        self._keyword_location = value

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickles carry the written pointers, never the internal path chains.
        return (
            _restore_error,
            (
                self.message,
                self.keyword,
                self.instance_location,
                self.keyword_location,
                self.absolute_keyword_location,
                self.instance,
                self.context,
                self.params,
            ),
        )

    def __str__(self) -> str:
        where = self.instance_location or "(root)"
        return f"{where}: {self.message}"

    def __repr__(self) -> str:
        return (
            f"ValidationError({self.message!r}, keyword={self.keyword!r}, "
            f"instance_location={self.instance_location!r}, "
            f"keyword_location={self.keyword_location!r})"
        )


def _restore_error(
    message: str,
    keyword: str,
    instance_location: str,
    keyword_location: str,
    absolute_keyword_location: str,
    instance: Any,
    context: tuple[ValidationError, ...],
    params: dict[str, Any] | None = None,
) -> ValidationError:
    return ValidationError(
        message,
        keyword=keyword,
        instance_location=instance_location,
        keyword_location=keyword_location,
        absolute_keyword_location=absolute_keyword_location,
        instance=instance,
        context=context,
        params=params,
    )
