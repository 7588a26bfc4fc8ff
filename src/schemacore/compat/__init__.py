"""python-jsonschema's validator protocol on top of schemacore's engine.

Code written against ``jsonschema.Draft202012Validator`` runs by changing the import::

    from schemacore.compat import Draft202012Validator, best_match

    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for error in validator.iter_errors(instance):
        print(error.json_path, error.message)

The schema is compiled by :func:`schemacore.compile` on first use (construction never
fails, as in python-jsonschema; a schema that does not compile raises
:class:`schemacore.SchemaError` or :class:`schemacore.UnsupportedCapability` from the
first call). What differs from python-jsonschema is in ``docs/migration.md``.

Dialects: one class per dialect the engine implements (``Draft202012Validator``,
``Draft201909Validator``, ``Draft7Validator``, ``Draft6Validator``,
``Draft4Validator``), all made from the ``DIALECTS`` table, each under its own draft's
rules. ``Draft3Validator`` does not exist: reading it raises
:class:`UnsupportedDialect` (an :class:`~schemacore.UnsupportedCapability` that is
also an ``AttributeError``, so ``hasattr`` answers False and
``from schemacore.compat import Draft3Validator`` is an ``ImportError``), and
:func:`validator_for` raises it for a schema that declares Draft 3.
"""

from __future__ import annotations

import reprlib
import sys
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..dialect import DRAFT_2020_12, OTHER_DRAFTS, normalise
from ..dialects import known as known_dialect
from ..display import show
from ..errors import SchemaCoreError, UnsupportedCapability
from ..errors import SchemaError as CoreSchemaError
from ..errors import ValidationError as CoreValidationError
from ..limits import Limits
from ..pointer import escape, parse_pointer
from ..resources import Index, bundled_metaschemas
from ..validator import Validator as CoreValidator
from ..validator import compile as core_compile
from ._checkers import FormatChecker, FormatError, TypeChecker, UndefinedTypeCheck, format_options
from ._errors import (
    LOCATED_BELOW,
    ErrorTree,
    SchemaError,
    ValidationError,
    best_match,
    relevance,
)

__all__ = [
    "DIALECTS",
    "Draft4Validator",
    "Draft6Validator",
    "Draft7Validator",
    "Draft201909Validator",
    "Draft202012Validator",
    "ErrorTree",
    "FormatChecker",
    "FormatError",
    "SchemaError",
    "TypeChecker",
    "UndefinedTypeCheck",
    "UnknownType",
    "UnsupportedDialect",
    "UnsupportedExtension",
    "ValidationError",
    "best_match",
    "relevance",
    "validate",
    "validator_for",
]


class UnknownType(Exception):
    """A validator was asked whether a value is of a type JSON Schema does not have.

    Attributes:
        type: the type name asked about.
        instance: the value.
        schema: the validator's schema.
    """

    def __init__(self, type: str, instance: Any, schema: Any) -> None:
        super().__init__(type, instance, schema)
        self.type = type
        self.instance = instance
        self.schema = schema

    def __str__(self) -> str:
        return f"unknown type {self.type!r} (asked of {show(self.instance)})"


class UnsupportedDialect(UnsupportedCapability, AttributeError):
    """A validator class was asked for a dialect schemacore's engine does not implement."""


@dataclass(frozen=True)
class DialectEntry:
    """One row of :data:`DIALECTS`: a dialect and whether the engine implements it."""

    class_name: str
    meta_schema_uri: str
    name: str
    supported: bool


# Every dialect python-jsonschema has a class for. A dialect the engine learns gets
# its class by turning ``supported`` on here (and bundling its meta-schema).
DIALECTS: tuple[DialectEntry, ...] = (
    DialectEntry("Draft202012Validator", DRAFT_2020_12, "Draft 2020-12", True),
    DialectEntry(
        "Draft201909Validator",
        "https://json-schema.org/draft/2019-09/schema",
        "Draft 2019-09",
        True,
    ),
    DialectEntry("Draft7Validator", "http://json-schema.org/draft-07/schema", "Draft 7", True),
    DialectEntry("Draft6Validator", "http://json-schema.org/draft-06/schema", "Draft 6", True),
    DialectEntry("Draft4Validator", "http://json-schema.org/draft-04/schema", "Draft 4", True),
    DialectEntry("Draft3Validator", "http://json-schema.org/draft-03/schema", "Draft 3", False),
)

# The pseudo-keyword under which a class made by ``jsonschema.validators.extend``
# hands the whole schema to schemacore (see _validate_whole).
WHOLE_SCHEMA = "$schemacore"


def _whole_schema(schema: Any) -> list[tuple[str, Any]]:
    return [(WHOLE_SCHEMA, schema)]


def _registry_options(registry: Any) -> dict[str, Any]:
    """schemacore's ``registry=``/``loader=`` for what the caller passed.

    A mapping (absolute URI -> schema) is schemacore's own registry. Anything with a
    ``get_or_retrieve`` method (a ``referencing.Registry``) is asked for each document
    the engine needs: its own resources first, then its ``retrieve`` callable, which is
    the caller's code. python-jsonschema's default registry, which fetches over the
    network, counts as none: schemacore never fetches.
    """
    if registry is None or registry is _jsonschema_default_registry():
        return {}
    if hasattr(registry, "get_or_retrieve"):

        def load(uri: str) -> Any:
            return registry.get_or_retrieve(uri).value.contents

        return {"loader": load}
    if isinstance(registry, Mapping):
        return {"registry": registry}
    raise TypeError(
        "registry must be a referencing.Registry (or an object with its get_or_retrieve) "
        f"or a mapping of URIs to schemas, not {type(registry).__name__}"
    )


def _jsonschema_default_registry() -> Any:
    module = sys.modules.get("jsonschema.validators")
    return getattr(module, "_REMOTE_WARNING_REGISTRY", None) if module is not None else None


class _SchemaLocator:
    """Finds the schema object holding a keyword from its absolute location, for
    ``error.schema`` and ``error.validator_value``, in the resource index the engine
    built while compiling (it holds every document and embedded resource reached)."""

    def __init__(self, owner: _ValidatorBase) -> None:
        self._owner = owner

    def __call__(self, absolute: str, keyword: str) -> tuple[Any, Any]:
        uri, _, pointer = absolute.partition("#")
        if keyword != "false":
            # The schema holding the keyword is above the keyword's token: the last
            # one, or the one before the member name for LOCATED_BELOW keywords.
            tokens = pointer.split("/")
            below = keyword in LOCATED_BELOW and len(tokens) > 2
            drop = 2 if below and tokens[-2] == escape(keyword) else 1
            pointer = "/".join(tokens[:-drop])
        try:
            compiler = self._owner._validator()._compiler
            index: Index = compiler.index
            node = index.resolve(f"{uri}#{pointer}", "", compiler.default).node
        except (SchemaCoreError, LookupError, ValueError):
            return None, None
        if keyword == "false":
            return node, None
        return node, node.get(keyword) if isinstance(node, dict) else None


_DEFAULT: Any = object()  # check_schema's default format checker: the class's own
# The regex strings check_schema reads are a schema's patterns: their bound is the
# schema-side max_pattern_length, not the one for instance strings.
_META_LIMITS = Limits(max_regex_format_length=Limits().max_pattern_length)


class _ValidatorBase:
    """What every compat validator class shares; each concrete class comes from one
    row of :data:`DIALECTS`."""

    META_SCHEMA: ClassVar[dict[str, Any]]
    # The dialect of a schema that declares no $schema (the class's draft).
    DIALECT_URI: ClassVar[str] = DRAFT_2020_12
    FORMAT_CHECKER: ClassVar[FormatChecker]
    TYPE_CHECKER: ClassVar[TypeChecker] = TypeChecker()
    # What ``jsonschema.validators.extend`` copies into the class it makes: that class
    # then hands the whole schema to schemacore under one pseudo-keyword.
    VALIDATORS: ClassVar[Mapping[str, Callable[..., Iterator[Any]]]]
    ID_OF: ClassVar[Callable[[Any], str | None]]
    _meta_validator: ClassVar[_ValidatorBase | None] = None
    _APPLICABLE_VALIDATORS: ClassVar[Callable[[Any], list[tuple[str, Any]]]] = staticmethod(
        _whole_schema
    )

    def __init__(
        self,
        schema: Any,
        resolver: Any = None,
        format_checker: Any = None,
        *,
        registry: Any = None,
        limits: Limits | None = None,
        defer_unresolved: bool = False,
    ) -> None:
        """The arguments of python-jsonschema's classes, in their order. ``schema`` is
        compiled on first use. ``registry`` is a ``referencing.Registry`` or a mapping
        of URIs to schemas; ``format_checker`` (e.g. ``FORMAT_CHECKER``) turns
        ``format`` into an assertion, as in python-jsonschema; ``limits`` are
        schemacore's resource limits; ``defer_unresolved`` is
        :func:`schemacore.compile`'s: a reference to nothing then fails the calls
        that reach it, not the compile. ``resolver`` (python-jsonschema's deprecated
        ``RefResolver``) is refused."""
        if resolver is not None:
            raise TypeError(
                "schemacore.compat takes no RefResolver (deprecated in python-jsonschema): "
                "pass registry= (a referencing.Registry or a mapping of URIs to schemas)"
            )
        self.schema = schema
        self.registry = registry
        self.format_checker = format_checker
        self.limits = limits
        self.defer_unresolved = defer_unresolved
        self._options = _registry_options(registry)
        self._compiled: CoreValidator | None = None
        self._locator = _SchemaLocator(self)

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(schema={reprlib.repr(self.schema)}, format_checker={self.format_checker!r})"

    # -- the protocol -----------------------------------------------------------

    @classmethod
    def check_schema(cls, schema: Any, format_checker: Any = _DEFAULT) -> None:
        """Raise :class:`SchemaError` if ``schema`` is invalid under ``META_SCHEMA``.

        Formats in the meta-schema (``regex`` for ``pattern``, ...) are asserted with
        ``format_checker``, by default ``FORMAT_CHECKER`` (None: not asserted). The
        error raised is the most relevant one (:func:`best_match`).
        """
        if format_checker is _DEFAULT:
            meta = cls.__dict__.get("_meta_validator")
            if meta is None:
                meta = cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER, limits=_META_LIMITS)
                cls._meta_validator = meta  # compiled once per class, on first use
        else:
            meta = cls(cls.META_SCHEMA, format_checker=format_checker, limits=_META_LIMITS)
        error: CoreValidationError | None = best_match(meta.iter_errors(schema))
        if error is None and meta.format_checker is not None:
            error = _regex_error(cls, schema)
        if error is not None:
            raise SchemaError._from_meta(error, schema, meta._locator)

    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` is valid (no error objects are built)."""
        return self._validator().is_valid(instance)

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        """Every way ``instance`` fails the schema, as compat :class:`ValidationError`."""
        compiled = self._validator()
        wrap = ValidationError._wrap
        locator = self._locator
        for error in compiled.iter_errors(instance):
            yield wrap(error, instance, locator)

    def validate(self, instance: Any) -> None:
        """Raise the most relevant error of ``instance`` (:func:`best_match`), if any."""
        if self.is_valid(instance):
            return
        error = best_match(self.iter_errors(instance))
        if error is not None:
            raise error

    def evolve(self, **changes: Any) -> _ValidatorBase:
        """A new validator with some of ``schema``, ``registry``, ``format_checker``,
        ``limits`` and ``defer_unresolved`` changed; its class is the one
        :func:`validator_for` picks for the (new) schema, this one's by default."""
        schema = changes.pop("schema", self.schema)
        cls = validator_for(schema, default=type(self))
        fields = {
            "registry": self.registry,
            "format_checker": self.format_checker,
            "limits": self.limits,
            "defer_unresolved": self.defer_unresolved,
        }
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"evolve() got unexpected fields: {sorted(unknown)}")
        fields.update(changes)
        evolved: _ValidatorBase = cls(schema, **fields)
        return evolved

    def is_type(self, instance: Any, type: str) -> bool:
        """Whether ``instance`` is of the JSON Schema type ``type`` under this class's
        draft (draft-04 counts ``1.0`` as a number only).

        Raises:
            UnknownType: ``type`` is not a JSON Schema type name.
        """
        try:
            return self.TYPE_CHECKER.is_type(instance, type)
        except UndefinedTypeCheck:
            raise UnknownType(type, instance, self.schema) from None

    # -- compiling ----------------------------------------------------------------

    def _validator(self) -> CoreValidator:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = self._compile()
        return compiled

    def _compile(self) -> CoreValidator:
        checker = self.format_checker
        return core_compile(
            self.schema,
            format_assertion=checker is not None,
            formats=format_options(checker) if checker is not None else None,
            limits=self.limits,
            default_dialect=self.DIALECT_URI,
            defer_unresolved=self.defer_unresolved,
            **self._options,
        )


def _regex_error(cls: type[_ValidatorBase], schema: Any) -> CoreValidationError | None:
    """The error for a regular expression the engine refuses, where the meta-schema
    let it through (draft-04 and -06 give ``patternProperties`` names no ``format``,
    and the engine reads patterns as ECMA-262): ``check_schema`` must refuse what
    the same class then refuses to compile."""
    try:
        core_compile(schema, default_dialect=cls.DIALECT_URI)
    except CoreSchemaError as exc:
        if exc.reason != "bad-regex":
            return None  # not a meta-schema matter (a reference, a limit, ...)
        pattern = _at(schema, exc.location)
        return CoreValidationError(
            exc.message,
            keyword="format",
            instance_location=exc.location,
            keyword_location="/format",
            absolute_keyword_location=cls.DIALECT_URI + "#/format",
            instance=pattern,
            params={"format": "regex"},
        )
    except SchemaCoreError:
        return None
    return None


def _at(schema: Any, pointer: str) -> Any:
    """The pattern a bad-regex location names: the string there, or the member name
    (a patternProperties key) that ends it."""
    node = schema
    tokens = parse_pointer(pointer)
    for token in tokens:
        if not isinstance(node, dict) or token not in node:
            return tokens[-1] if tokens else None
        node = node[token]
    return node if isinstance(node, str) else (tokens[-1] if tokens else None)


# -- classes made by jsonschema.validators.extend ----------------------------------

# One compat validator per foreign validator object, kept as long as that object
# lives (those classes are attrs classes with slots: nothing can be stored on them).
_DELEGATES: dict[int, _ValidatorBase] = {}
_DELEGATES_LOCK = threading.Lock()


def _delegate_for(validator: Any, cls: type[_ValidatorBase]) -> _ValidatorBase:
    key = id(validator)
    with _DELEGATES_LOCK:
        found = _DELEGATES.get(key)
        if found is not None and found.schema is validator.schema:
            return found
    delegate = cls(
        validator.schema,
        registry=getattr(validator, "_registry", None),
        format_checker=getattr(validator, "format_checker", None),
    )
    try:
        weakref.finalize(validator, _DELEGATES.pop, key, None)
    except TypeError:
        return delegate  # not weakly referenceable: compile per call, keep nothing
    with _DELEGATES_LOCK:
        _DELEGATES[key] = delegate
    return delegate


class UnsupportedExtension(TypeError):
    """A class made from a compat class by ``jsonschema.validators.extend`` carries
    what schemacore's engine would silently leave out: keyword functions for
    keywords the class's draft does not have, or a type checker of its own.

    Raised by the first validation with such a class (``extend`` itself belongs to
    python-jsonschema), so that no result quietly ignores the extension.
    """


# Per class made by extend: why it is refused, or None (decided on first use).
_REFUSALS: weakref.WeakKeyDictionary[type, str | None] = weakref.WeakKeyDictionary()


def _refusal(made: type, cls: type[_ValidatorBase]) -> str | None:
    """Why validating with ``made`` (a class ``extend`` made from ``cls``) would
    quietly differ from what its author asked for, or None.

    Functions for keywords the draft has (check-jsonschema's ``pattern``, for one)
    are replaced by schemacore's own implementation of the keyword, as documented;
    functions for any other keyword would never run, and neither would a type
    checker other than the class's own."""
    dialect = known_dialect(cls.DIALECT_URI)
    keywords = dialect.keywords if dialect is not None else {}
    extra = sorted(
        str(name)
        for name in getattr(made, "VALIDATORS", {})
        if name != WHOLE_SCHEMA and name not in keywords
    )
    problems = []
    if extra:
        listed = ", ".join(repr(name) for name in extra)
        problems.append(f"keyword functions for {listed}, which {cls.__name__} does not have")
    if getattr(made, "TYPE_CHECKER", cls.TYPE_CHECKER) is not cls.TYPE_CHECKER:
        problems.append("a type checker of its own (schemacore's types are fixed)")
    if not problems:
        return None
    return (
        f"{made.__name__}, made by jsonschema.validators.extend from "
        f"schemacore.compat.{cls.__name__}, has {' and '.join(problems)}: schemacore "
        "validates the whole schema itself and would never call them, so results would "
        "silently leave them out. Use python-jsonschema's own classes for such "
        "extensions, or check those keywords separately."
    )


def _whole_schema_keyword(cls: type[_ValidatorBase]) -> Callable[..., Iterator[Any]]:
    def validate_whole(
        validator: Any, schema_value: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        """Validate ``instance`` against the whole schema with schemacore.

        Called by classes that ``jsonschema.validators.extend`` made from a compat
        class (check-jsonschema makes one for every run). Their per-keyword functions
        are never called: schemacore compiles the schema as a whole. A class whose
        extension would be left out is refused (:class:`UnsupportedExtension`).
        """
        made = type(validator)
        try:
            refused = _REFUSALS[made]
        except KeyError:
            refused = _REFUSALS[made] = _refusal(made, cls)
        if refused is not None:
            raise UnsupportedExtension(refused)
        delegate = _delegate_for(validator, cls)
        if delegate.is_valid(instance):
            return
        yield from delegate.iter_errors(instance)

    return validate_whole


# -- the classes ----------------------------------------------------------------------


def _id_reader(identifier: str) -> Callable[[Any], str | None]:
    def id_of(schema: Any) -> str | None:
        if isinstance(schema, dict):
            found = schema.get(identifier)
            if isinstance(found, str):
                return found
        return None

    return id_of


def _make_class(entry: DialectEntry) -> type[_ValidatorBase]:
    meta_schema = bundled_metaschemas()[entry.meta_schema_uri]
    # What differs by draft comes from the engine's own dialect table.
    dialect = known_dialect(entry.meta_schema_uri)
    assert dialect is not None, entry
    namespace: dict[str, Any] = {
        "META_SCHEMA": meta_schema,
        "DIALECT_URI": entry.meta_schema_uri,
        "FORMAT_CHECKER": FormatChecker(),
        "TYPE_CHECKER": TypeChecker(float_integers=dialect.float_integers),
        "ID_OF": staticmethod(_id_reader(dialect.identifier)),
        "__doc__": (
            f"A {entry.name} validator with python-jsonschema's interface, backed by "
            "schemacore's compiled engine."
        ),
        "__module__": __name__,
    }
    cls: type[_ValidatorBase] = type(entry.class_name, (_ValidatorBase,), namespace)
    cls.VALIDATORS = {WHOLE_SCHEMA: _whole_schema_keyword(cls)}
    return cls


_CLASSES: dict[str, type[_ValidatorBase]] = {}
_BY_META_SCHEMA: dict[str, type[_ValidatorBase]] = {}
for _entry in DIALECTS:
    if _entry.supported:
        _CLASSES[_entry.class_name] = _BY_META_SCHEMA[_entry.meta_schema_uri] = _make_class(_entry)

Draft202012Validator: type[_ValidatorBase] = _CLASSES["Draft202012Validator"]
Draft201909Validator: type[_ValidatorBase] = _CLASSES["Draft201909Validator"]
Draft7Validator: type[_ValidatorBase] = _CLASSES["Draft7Validator"]
Draft6Validator: type[_ValidatorBase] = _CLASSES["Draft6Validator"]
Draft4Validator: type[_ValidatorBase] = _CLASSES["Draft4Validator"]

_UNSUPPORTED = {entry.class_name: entry for entry in DIALECTS if not entry.supported}
_UNSUPPORTED_URIS = {entry.meta_schema_uri: entry for entry in DIALECTS if not entry.supported}


def __getattr__(name: str) -> Any:
    entry = _UNSUPPORTED.get(name)
    if entry is not None:
        raise UnsupportedDialect(
            f"{name} is not available: schemacore implements Drafts 2020-12, 2019-09, 7, "
            f"6 and 4, not {entry.name}"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_LATEST = object()


def validator_for(schema: Any, default: Any = _LATEST) -> Any:
    """The validator class for the dialect ``schema`` declares with ``$schema``.

    No ``$schema`` (or a boolean schema): ``default``, Draft202012Validator unless
    given. A draft the engine does not implement raises :class:`UnsupportedDialect`.
    Any other URI (a custom meta-schema) gets ``default`` too: the engine then
    reads that meta-schema, from the registry, when it compiles the schema.
    """
    fallback = Draft202012Validator if default is _LATEST else default
    if not isinstance(schema, dict) or "$schema" not in schema:
        return fallback
    declared = schema["$schema"]
    if not isinstance(declared, str):
        return fallback
    uri = normalise(declared)
    if uri.startswith("http://json-schema.org/draft/2020-12/"):
        uri = "https://" + uri[len("http://") :]  # the engine accepts both spellings
    found = _BY_META_SCHEMA.get(uri)
    if found is not None:
        return found
    entry = _UNSUPPORTED_URIS.get(uri)
    if entry is not None or uri in OTHER_DRAFTS:
        name = entry.name if entry is not None else OTHER_DRAFTS[uri]
        raise UnsupportedDialect(
            f"the schema declares {name} ({declared!r}); schemacore implements Drafts "
            "2020-12, 2019-09, 7, 6 and 4"
        )
    if default is _LATEST:
        # As python-jsonschema does: code that relies on the fallback hears of it.
        warnings.warn(
            f"$schema {declared!r} names no meta-schema this module has a class for; "
            "validating with Draft202012Validator (pass default= to choose)",
            DeprecationWarning,
            stacklevel=2,
        )
    return fallback


def validate(instance: Any, schema: Any, cls: Any = None, *args: Any, **kwargs: Any) -> None:
    """Check ``schema`` against its meta-schema, then raise the most relevant error of
    ``instance`` (:func:`best_match`), if any. ``cls`` defaults to
    :func:`validator_for`'s choice; ``args``/``kwargs`` go to its constructor."""
    if cls is None:
        cls = validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, *args, **kwargs)
    validator.validate(instance)
