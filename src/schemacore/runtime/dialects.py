"""Which JSON Schema dialects a caller lets admission hand to the engine.

A tool schema is validated under its own declared dialect or not at all: it is
never reinterpreted under another draft's rules. ``dialects=`` lists the dialects
the caller accepts, by short name or meta-schema URI; Draft 2020-12 (the MCP
default when no ``$schema`` is declared) is always one of them, listed or not:
``("draft-07",)`` admits draft-07 and 2020-12. A listed dialect
other than 2020-12 is not checked by the runtime but handed to the engine
(``schemacore.compile``), which validates it under its own rules or refuses it as
``unsupported_capability``: listing a draft admits its tools as soon as the
engine can validate it, with no other change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["DEFAULT_DIALECTS", "DIALECT_URIS", "dialect_name", "parse_dialects"]

DIALECT_URIS: Final = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-07": "http://json-schema.org/draft-07/schema",
    "draft-06": "http://json-schema.org/draft-06/schema",
    "draft-04": "http://json-schema.org/draft-04/schema",
}
"""Short name -> meta-schema URI (without the empty fragment) of the known dialects."""

DEFAULT_DIALECTS: Final = ("2020-12",)
"""Seed 000's rule: only Draft 2020-12 is admitted unless the caller lists more."""


def _spellings(uri: str) -> tuple[str, ...]:
    # Publishers write either scheme for the same meta-schema, with or without "#".
    rest = uri.partition("://")[2]
    return tuple(f"{scheme}://{rest}{tail}" for scheme in ("http", "https") for tail in ("", "#"))


_BY_URI: Final = {
    spelling: name for name, uri in DIALECT_URIS.items() for spelling in _spellings(uri)
}


def dialect_name(uri: str) -> str | None:
    """The short name of the dialect whose meta-schema ``uri`` names, or None when it
    is none of :data:`DIALECT_URIS` (any scheme, with or without a trailing ``#``)."""
    return _BY_URI.get(uri)


def parse_dialects(dialects: Iterable[str]) -> frozenset[str]:
    """The short names of ``dialects`` (short names or meta-schema URIs), and
    ``"2020-12"``: the MCP default dialect, of every schema that declares none, is
    admitted whatever the list (refusing it would refuse most tools).

    Raises:
        TypeError: ``dialects`` is a string or not an iterable of strings.
        ValueError: an unknown dialect.
    """
    if isinstance(dialects, (str, bytes)):
        raise TypeError('dialects is a list of dialect names, such as ("2020-12", "draft-07")')
    names = {"2020-12"}
    try:
        items = list(dialects)
    except TypeError:
        raise TypeError("dialects must be an iterable of dialect names") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"a dialect is a name or a URI string, not {type(item).__name__}")
        name = item if item in DIALECT_URIS else dialect_name(item)
        if name is None:
            known = ", ".join(DIALECT_URIS)
            raise ValueError(f"unknown dialect {item!r}: use one of {known} or its meta-schema URI")
        names.add(name)
    return frozenset(names)
