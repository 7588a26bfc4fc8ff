"""Format and type checkers with python-jsonschema's protocol.

A format checker passed to a compat validator decides *which* formats are asserted;
schemacore's own implementation checks each built-in name it keeps, and the
checker's own function checks every other name (a function it registered itself).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any, TypeVar

from ..formats import CHECKERS
from ..jsonvalue import decimal_integral, json_type

__all__ = ["FormatChecker", "FormatError", "TypeChecker", "UndefinedTypeCheck", "format_options"]

_F = TypeVar("_F", bound=Callable[..., Any])

FormatFunction = Callable[[Any], Any]


class FormatError(Exception):
    """Raised by :meth:`FormatChecker.check` when an instance is not of its format.

    ``cause`` is the exception the format function raised, if it raised one.
    """

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message, cause)
        self.message = message
        self.cause = self.__cause__ = cause

    def __str__(self) -> str:
        return self.message


class FormatChecker:
    """Which formats to assert, and how to check the ones schemacore does not know.

    ``FormatChecker()`` asserts every format schemacore implements (the whole Draft
    2020-12 list, no extra packages needed); ``FormatChecker(["email", "uuid"])``
    only those. :meth:`checks` registers a function for another format name (or
    replaces a built-in one); it is called with string instances only.
    """

    # On the class, every built-in checker (code that lists the supported formats
    # reads it there); an instance holds its own copy of the ones it asserts.
    checkers: dict[str, tuple[FormatFunction, tuple[type[Exception], ...]]] = {  # noqa: RUF012
        name: (function, ()) for name, function in CHECKERS.items()
    }

    def __init__(self, formats: Iterable[str] | None = None) -> None:
        known = type(self).checkers
        names = known if formats is None else formats
        self.checkers = {}
        for name in names:
            entry = known.get(name)
            if entry is None:
                raise KeyError(f"schemacore has no built-in checker for format {name!r}")
            self.checkers[name] = entry

    def __repr__(self) -> str:
        return f"<FormatChecker checkers={sorted(self.checkers)}>"

    def checks(
        self, format: str, raises: type[Exception] | tuple[type[Exception], ...] = ()
    ) -> Callable[[_F], _F]:
        """Register the decorated function as the checker of ``format``.

        The function returns a truthy value for a valid instance; exceptions of the
        ``raises`` types also mean invalid (and become the error's ``cause``).
        """
        caught = raises if isinstance(raises, tuple) else (raises,)

        def register(function: _F) -> _F:
            self.checkers[format] = (function, caught)
            return function

        return register

    def check(self, instance: Any, format: str) -> None:
        """Raise :class:`FormatError` if ``instance`` is not a valid ``format``."""
        if format not in self.checkers:
            return
        function, raises = self.checkers[format]
        cause: BaseException | None = None
        try:
            result = function(instance)
        except raises as error:
            result, cause = False, error
        if not result:
            raise FormatError(f"{instance!r} is not a {format!r}", cause=cause)

    def conforms(self, instance: Any, format: str) -> bool:
        """Whether ``instance`` is valid for ``format`` (unknown formats always are)."""
        try:
            self.check(instance, format)
        except FormatError:
            return False
        return True


def _always(_: str) -> bool:
    return True


def format_options(checker: Any) -> dict[str, Callable[[str], bool]]:
    """The ``formats=`` mapping for :func:`schemacore.compile` that makes the engine
    assert what ``checker`` asserts.

    ``checker`` is a :class:`FormatChecker` or any object with python-jsonschema's
    ``conforms(instance, format)`` (and, usually, a ``checkers`` mapping of names).
    """
    known: Iterable[str] | None = getattr(checker, "checkers", None)
    names = set(CHECKERS) if known is None else set(known)
    options: dict[str, Callable[[str], bool]] = {}
    for name in CHECKERS:
        if name not in names:
            options[name] = _always  # removed from the checker: not asserted
    entries = getattr(checker, "checkers", None) or {}
    for name in names:
        entry = entries.get(name)
        if entry is not None and CHECKERS.get(name) is _function_of(entry):
            continue  # the engine's own checker, called directly
        options[name] = _conforming(checker, name)
    return options


def _function_of(entry: Any) -> Any:
    return entry[0] if isinstance(entry, tuple) and entry else entry


def _conforming(checker: Any, name: str) -> Callable[[str], bool]:
    def conforms(value: str) -> bool:
        return bool(checker.conforms(value, name))

    return conforms


class UndefinedTypeCheck(Exception):
    """:meth:`TypeChecker.is_type` was asked about a type name JSON Schema lacks."""

    def __init__(self, type: str) -> None:
        super().__init__(type)
        self.type = type


def _is_integer(value: Any) -> bool:
    # 1.0 is an integer from draft-06 on, as the engine counts it.
    if json_type(value) != "number":
        return False
    if isinstance(value, Decimal):
        return decimal_integral(value)
    return isinstance(value, int) or float(value).is_integer()


def _is_integer_04(value: Any) -> bool:
    # Draft-04: only a number written without a fraction (1.0 is not an integer).
    return json_type(value) == "number" and isinstance(value, int)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "object": lambda value: json_type(value) == "object",
    "array": lambda value: json_type(value) == "array",
    "string": lambda value: json_type(value) == "string",
    "number": lambda value: json_type(value) == "number",
    "integer": _is_integer,
}


class TypeChecker:
    """The JSON Schema types of Python values, as schemacore's engine sees them.

    ``float_integers``: whether a number with a zero fraction (``1.0``) is an
    ``integer`` (from draft-06 on; draft-04 says no)."""

    def __init__(self, *, float_integers: bool = True) -> None:
        self.float_integers = float_integers

    def is_type(self, instance: Any, type: str) -> bool:
        """Whether ``instance`` is of the JSON Schema type named ``type``."""
        if type == "integer" and not self.float_integers:
            return _is_integer_04(instance)
        check = _TYPES.get(type)
        if check is None:
            raise UndefinedTypeCheck(type)
        return check(instance)

    def __repr__(self) -> str:
        return f"<TypeChecker types={sorted(_TYPES)}>"
