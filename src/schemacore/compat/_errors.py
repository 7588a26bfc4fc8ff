"""Errors with python-jsonschema's attributes, ``best_match`` and ``ErrorTree``.

A compat error *is* a :class:`schemacore.ValidationError` (or
:class:`schemacore.SchemaError`): its JSON Pointers, ``keyword`` and ``context`` stay
what the engine reported, and the python-jsonschema views (deques of path elements,
``validator``, ``schema``, ...) are worked out from them on first read.
"""

from __future__ import annotations

import reprlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import errors as core
from ..dialects import DIALECTS
from ..display import show
from ..pointer import escape, parse_pointer
from ..relevance import best_match as _core_best_match
from ..relevance import relevance as _core_relevance
from ..spec import Shape
from ._checkers import TypeChecker

__all__ = ["ErrorTree", "SchemaError", "ValidationError", "best_match", "relevance"]

# Given an absolute keyword location and the keyword: (schema holding it, its value).
Locator = Callable[[str, str], tuple[Any, Any]]
# What an error made by user code was given: (validator, path, schema_path).
_Made = tuple[Any, tuple[str | int, ...], tuple[str | int, ...]]

# Keywords holding an array (or an object) of subschemas in some draft: an integer
# (or a name) follows them in a keyword path. Array-form items is followed by a
# digit token, which the index branch reads as an integer.
_ARRAY = frozenset(
    name
    for dialect in DIALECTS
    for name, shape in dialect.shapes.items()
    if shape in (Shape.LIST, Shape.ONE_OR_LIST)
)
_MAPPING = frozenset(
    name for dialect in DIALECTS for name, shape in dialect.shapes.items() if shape is Shape.MAP
)
# Keywords whose errors the engine locates below themselves, at the member that
# failed (dependentRequired/<name>, array-form dependencies/<name>), where
# python-jsonschema's schema paths end at the keyword.
LOCATED_BELOW = frozenset(("dependentRequired", "dependencies"))
_TYPES = TypeChecker()


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()  # an argument not given (python-jsonschema shows it so too)


class _GivenLocator:
    """The locator of an error made by user code: the schema and value it was given
    (an object, not a closure, so that such an error pickles)."""

    __slots__ = ("schema", "value")

    def __init__(self, schema: Any, value: Any) -> None:
        self.schema = schema
        self.value = value

    def __call__(self, absolute: str, keyword: str) -> tuple[Any, Any]:
        return self.schema, self.value


def _no_location(absolute: str, keyword: str) -> tuple[Any, Any]:
    return None, None


def instance_tokens(instance: Any, pointer: str) -> list[str | int]:
    """The tokens of ``pointer`` into ``instance``, array indices as ints (as
    python-jsonschema writes them), member names as strings."""
    tokens: list[str | int] = []
    node = instance
    for token in parse_pointer(pointer):
        if isinstance(node, list):
            index = int(token)
            tokens.append(index)
            node = node[index] if index < len(node) else None
        else:
            tokens.append(token)
            node = node.get(token) if isinstance(node, dict) else None
    return tokens


def schema_tokens(pointer: str, keyword: str | None = None) -> list[str | int]:
    """The tokens of an evaluation path, as python-jsonschema's schema paths have them:
    array positions as ints, and no ``$ref`` hop (it names no place to fail). With
    the failing ``keyword``, a path the engine took below it (:data:`LOCATED_BELOW`)
    ends at the keyword."""
    tokens: list[str | int] = []
    expect = "keyword"
    for token in parse_pointer(pointer):
        if expect == "index" and token.isdigit():
            tokens.append(int(token))
            expect = "keyword"
        elif expect == "name":
            tokens.append(token)
            expect = "keyword"
        elif token == "$ref":
            continue
        else:
            tokens.append(token)
            if token in _ARRAY:
                expect = "index"
            elif token in _MAPPING or token in LOCATED_BELOW:
                expect = "name"
    if keyword in LOCATED_BELOW and len(tokens) >= 2 and tokens[-2] == keyword:
        tokens.pop()
    return tokens


def _format_index(container: str, tokens: Iterable[str | int]) -> str:
    return container + "".join(f"[{token!r}]" for token in tokens)


class _CompatMixin:
    """python-jsonschema's error attributes, computed from the engine's locations.

    Every path attribute returns a new deque on each read: mutating one does not
    change the error, and the error's locations stay those the engine reported.
    """

    __slots__ = ()

    # Provided by the concrete classes (engine fields and compat bookkeeping).
    message: str
    keyword: str
    instance_location: str
    keyword_location: str
    absolute_keyword_location: str
    instance: Any
    context: tuple[Any, ...]
    parent: Any
    cause: BaseException | None
    _root: Any
    _locator: Locator

    # -- what failed ----------------------------------------------------------

    @property
    def validator(self) -> Any:
        """The keyword that failed (None for a ``false`` schema, as python-jsonschema);
        for an error made by user code, the ``validator`` it was given (None if none)."""
        made = self._made_with()
        if made is not None:
            given = made[0]
            return None if given is _UNSET else given
        return None if self.keyword == "false" else self.keyword

    @property
    def validator_value(self) -> Any:
        """The value of the failing keyword in its schema."""
        if self.keyword == "false":
            return None
        return self._locator(self.absolute_keyword_location, self.keyword)[1]

    @property
    def schema(self) -> Any:
        """The schema object (or ``False``) holding the failing keyword."""
        return self._locator(self.absolute_keyword_location, self.keyword)[0]

    # -- where ------------------------------------------------------------------

    @property
    def absolute_path(self) -> deque[str | int]:
        """Path from the root instance to the failing value."""
        given = self._given_paths()
        if given is not None:
            above = self.parent.absolute_path if self.parent is not None else deque()
            above.extend(given[0])
            return above
        return deque(instance_tokens(self._root, self.instance_location))

    def _given_paths(self) -> tuple[tuple[str | int, ...], tuple[str | int, ...]] | None:
        made = self._made_with()
        return None if made is None else (made[1], made[2])

    def _made_with(self) -> _Made | None:
        """What user code passed (validator, path, schema_path); None for an error
        the engine reported, whose views come from its pointers."""
        made: _Made | None = getattr(self, "_given", None)
        return made

    @property
    def relative_path(self) -> deque[str | int]:
        """Path from the parent error's value (the root, for a top-level error)."""
        given = self._given_paths()
        if given is not None:
            return deque(given[0])
        path = self.absolute_path
        if self.parent is not None:
            for _ in range(len(self.parent.absolute_path)):
                path.popleft()
        return path

    @property
    def path(self) -> deque[str | int]:
        """Same as :attr:`relative_path`."""
        return self.relative_path

    @property
    def absolute_schema_path(self) -> deque[str | int]:
        """Path through the schema to the failing keyword, ``$ref`` hops left out."""
        given = self._given_paths()
        if given is not None:
            above = self.parent.absolute_schema_path if self.parent is not None else deque()
            above.extend(given[1])
            return above
        return deque(schema_tokens(self.keyword_location, self.keyword))

    @property
    def relative_schema_path(self) -> deque[str | int]:
        """Schema path from the parent error's keyword (the root, top level)."""
        given = self._given_paths()
        if given is not None:
            return deque(given[1])
        path = self.absolute_schema_path
        if self.parent is not None:
            for _ in range(len(self.parent.absolute_schema_path)):
                path.popleft()
        return path

    @property
    def schema_path(self) -> deque[str | int]:
        """Same as :attr:`relative_schema_path`."""
        return self.relative_schema_path

    @property
    def json_path(self) -> str:
        """The failing value's location as a JSONPath expression (``$.a[0]``)."""
        parts = ["$"]
        for token in self.absolute_path:
            if isinstance(token, int):
                parts.append(f"[{token}]")
            elif token[:1].isascii() and token[:1].isalpha() and _plain(token):
                parts.append(f".{token}")
            else:
                escaped = token.replace("\\", "\\\\").replace("'", "\\'")
                parts.append(f"['{escaped}']")
        return "".join(parts)

    # -- hooks other code relies on -------------------------------------------

    def _set(self, type_checker: Any = None, **fields: Any) -> None:
        """Accept python-jsonschema's back-filling of error fields and ignore it.

        A class made from a compat class with ``jsonschema.validators.extend`` calls
        this on every error it passes on; these errors already know every field."""

    def _matches_type(self) -> bool:
        """Whether the instance has a type its schema's ``type`` allows (python-
        jsonschema's ``best_match`` prefers errors where it has)."""
        schema = self.schema
        expected = schema.get("type") if isinstance(schema, dict) else None
        if isinstance(expected, str):
            expected = [expected]
        if not isinstance(expected, list):
            return False
        for name in expected:
            try:
                if _TYPES.is_type(self.instance, name):
                    return True
            except Exception:
                continue
        return False

    # What str() calls the schema and the value checked: a SchemaError's schema is
    # the meta-schema, and its value the user's schema.
    _CONTAINERS = ("schema", "instance")

    def _text(self) -> str:
        made = self._made_with()
        if made is not None:
            shown = (*self._locator("", ""), made[0], self.instance)
            if any(part is _UNSET for part in shown):
                return self.message  # made by user code without what the layout shows
        return self._describe()

    def _describe(self) -> str:
        schema, instance = self._CONTAINERS
        return (
            f"{self.message}\n\n"
            f"Failed validating {self.validator!r} in "
            f"{_format_index(schema, list(self.relative_schema_path)[:-1])} "
            f"({self.absolute_keyword_location})\n"
            f"On {_format_index(instance, self.relative_path)}: "
            f"{_shown(self.instance)}"
        )


def _pointer(tokens: Iterable[str | int]) -> str:
    return "".join("/" + escape(str(token)) for token in tokens)


def _shown(value: Any) -> str:
    """reprlib's short form, or the engine's size-aware one where reprlib raises (an
    integer too long for ``int.__str__``): describing an error must not fail."""
    try:
        return reprlib.repr(value)
    except ValueError:
        return show(value)


def _plain(token: str) -> bool:
    for char in token:
        if not (char.isascii() and (char.isalnum() or char == "_")):
            return False
    return True


class ValidationError(_CompatMixin, core.ValidationError):
    """An instance does not match its schema.

    A :class:`schemacore.ValidationError` (``instance_location``, ``keyword_location``,
    ``keyword``, ... are the engine's) with python-jsonschema's attributes besides:
    ``message``, ``path``/``relative_path``/``absolute_path`` (deques),
    ``schema_path``/``relative_schema_path``/``absolute_schema_path``, ``json_path``,
    ``validator``, ``validator_value``, ``instance``, ``schema``, ``context`` (the
    errors of the branches of a failed ``anyOf``/``oneOf``), ``cause`` and ``parent``.
    """

    __slots__ = ("_given", "_locator", "_root", "cause", "parent")

    def __init__(
        self,
        message: str,
        validator: Any = _UNSET,
        path: Iterable[str | int] = (),
        cause: BaseException | None = None,
        context: Iterable[ValidationError] = (),
        validator_value: Any = _UNSET,
        instance: Any = _UNSET,
        schema: Any = _UNSET,
        schema_path: Iterable[str | int] = (),
        parent: ValidationError | None = None,
        type_checker: Any = _UNSET,
    ) -> None:
        """An error made by user code, with python-jsonschema's arguments (code that
        raises its own ``ValidationError`` keeps working after the import changes).
        Errors from a validator are not made this way: they carry the engine's
        locations and work the python-jsonschema views out of them."""
        given_path, given_schema_path = tuple(path), tuple(schema_path)
        core.ValidationError.__init__(
            self,
            message,
            keyword=validator if isinstance(validator, str) else "",
            instance_location=_pointer(given_path),
            keyword_location=_pointer(given_schema_path),
            absolute_keyword_location="",
            instance=instance,
            context=tuple(context),
        )
        self._given: _Made | None = (validator, given_path, given_schema_path)
        self._root = None
        self._locator = _GivenLocator(schema, validator_value)
        self.parent = parent
        self.cause = cause

    @classmethod
    def _wrap(
        cls,
        error: core.ValidationError,
        root: Any,
        locator: Locator,
        parent: ValidationError | None = None,
    ) -> ValidationError:
        """The compat view of the engine's ``error`` (and, recursively, its context)."""
        # Built as the engine builds its own (ValidationError._at): the pointers stay
        # unwritten until read, and many callers only read messages or count.
        wrapped = cls.__new__(cls, error.message)
        wrapped.message = error.message
        wrapped.keyword = error.keyword
        wrapped._instance_location = error._instance_location
        wrapped._keyword_location = error._keyword_location
        wrapped._paths = error._paths
        wrapped.absolute_keyword_location = error.absolute_keyword_location
        wrapped.instance = error.instance
        wrapped.params = error.params
        wrapped._root = root
        wrapped._locator = locator
        wrapped.parent = parent
        wrapped.cause = None
        wrapped._given = None
        wrapped.context = tuple(cls._wrap(sub, root, locator, wrapped) for sub in error.context)
        return wrapped

    def __str__(self) -> str:
        return self._text()

    def __reduce__(self) -> tuple[Any, ...]:
        # A pickled compat error is the engine's error: locators are not picklable.
        return core.ValidationError.__reduce__(self)


class SchemaError(_CompatMixin, core.SchemaError):
    """A schema is not valid under its meta-schema (raised by ``check_schema``).

    A :class:`schemacore.SchemaError` whose ``location`` points into the schema, with
    the attributes of :class:`ValidationError` describing the meta-schema failure
    (``instance`` is then the failing part of the schema). User code can make one
    with python-jsonschema's arguments, as a :class:`ValidationError`.
    """

    _CONTAINERS = ("metaschema", "schema")

    def __init__(
        self,
        message: str,
        validator: Any = _UNSET,
        path: Iterable[str | int] = (),
        cause: BaseException | None = None,
        context: Iterable[ValidationError] = (),
        validator_value: Any = _UNSET,
        instance: Any = _UNSET,
        schema: Any = _UNSET,
        schema_path: Iterable[str | int] = (),
        parent: ValidationError | None = None,
        type_checker: Any = _UNSET,
    ) -> None:
        """An error made by user code, with python-jsonschema's arguments, as
        :class:`ValidationError`'s. ``check_schema`` makes its own from the
        meta-schema failure (``_from_meta``)."""
        given_path, given_schema_path = tuple(path), tuple(schema_path)
        core.SchemaError.__init__(self, message, location=_pointer(given_path))
        self.keyword = validator if isinstance(validator, str) else ""
        self.instance_location = _pointer(given_path)
        self.keyword_location = _pointer(given_schema_path)
        self.absolute_keyword_location = ""
        self.instance = instance
        self._given: _Made | None = (validator, given_path, given_schema_path)
        self._root = None
        self._locator = _GivenLocator(schema, validator_value)
        self.parent = parent
        self.cause = cause
        self.context = tuple(context)

    @classmethod
    def _from_meta(cls, error: core.ValidationError, root: Any, locator: Locator) -> SchemaError:
        """The error ``check_schema`` raises for the meta-schema's ``error`` on the
        schema ``root``."""
        made = cls.__new__(cls, error.message)
        core.SchemaError.__init__(made, error.message, location=error.instance_location)
        made.keyword = error.keyword
        made.instance_location = error.instance_location
        made.keyword_location = error.keyword_location
        made.absolute_keyword_location = error.absolute_keyword_location
        made.instance = error.instance
        made._given = None
        made._root = root
        made._locator = locator
        made.parent = None
        made.cause = None
        made.context = ValidationError._wrap(error, root, locator).context
        return made

    def __str__(self) -> str:
        return self._text()

    def __reduce__(self) -> tuple[Any, ...]:
        # check_schema's errors are not made by __init__ (_from_meta): rebuild
        # without it and restore every attribute as it was.
        return (_rebuilt, (type(self), self.args), dict(vars(self)))


def _rebuilt(cls: type[SchemaError], args: tuple[Any, ...]) -> SchemaError:
    return cls.__new__(cls, *args)


def relevance(error: core.ValidationError) -> tuple[int, int]:
    """Sort key, higher is more relevant: schemacore's rule (see :func:`best_match`)."""
    return _core_relevance(error)


def best_match(errors: Iterable[ValidationError]) -> ValidationError | None:
    """The error a person most likely wants to see, or None if there is none.

    schemacore's rule, which is not python-jsonschema's: the *deepest* instance
    location wins, and inside a failed ``anyOf``/``oneOf`` the branch that came
    closest to passing (fewest errors) is followed down to a leaf.
    """
    found = _core_best_match(errors)
    return found if isinstance(found, ValidationError) or found is None else None


class ErrorTree:
    """Errors arranged by instance location: ``tree["items"][0].errors["type"]``.

    ``errors`` maps each failing keyword to its error at this location; indexing
    with a member name or array index gives the subtree below it.
    """

    def __init__(self, errors: Iterable[ValidationError] = ()) -> None:
        # Keyed by ``validator``: a keyword, None for a false schema, or whatever
        # user code passed to an error it made.
        self.errors: dict[Any, ValidationError] = {}
        self._contents: dict[str | int, ErrorTree] = {}
        self._instance: Any = _UNSET
        for error in errors:
            tree = self
            for token in error.path:
                tree = tree._child(token)
            tree.errors[error.validator] = error
            tree._instance = error.instance

    def _child(self, index: str | int) -> ErrorTree:
        tree = self._contents.get(index)
        if tree is None:
            tree = self._contents[index] = ErrorTree()
        return tree

    def __contains__(self, index: object) -> bool:
        """Whether some error is at or below ``index`` in this subtree."""
        return index in self._contents

    def __getitem__(self, index: str | int) -> ErrorTree:
        """The subtree at ``index`` (an empty one if nothing failed there). An index
        the failing value does not have raises, as looking it up in the value would."""
        if index not in self._contents and self._instance is not _UNSET:
            self._instance[index]
        return self._contents.get(index) or ErrorTree()

    def __iter__(self) -> Iterator[str | int]:
        """The indices that have errors at or below them."""
        return iter(self._contents)

    def __len__(self) -> int:
        return self.total_errors

    @property
    def total_errors(self) -> int:
        """How many errors this subtree holds, at every depth."""
        return len(self.errors) + sum(len(tree) for tree in self._contents.values())

    def __repr__(self) -> str:
        total = self.total_errors
        return f"<ErrorTree ({total} total error{'s' if total != 1 else ''})>"
