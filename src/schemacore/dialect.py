"""``$schema`` and ``$vocabulary``: which keywords a schema resource speaks.

schemacore implements Draft 2020-12 only. A resource may name the 2020-12
meta-schema, or a custom meta-schema (given through the registry) whose own dialect
is 2020-12; the custom meta-schema's ``$vocabulary`` then decides which keyword
families are active. Any other draft, and any dialect it cannot identify, is an
:class:`~schemacore.errors.UnsupportedCapability`: reinterpreting a draft-07 schema
with 2020-12 rules would silently change what it accepts.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_VOCABULARIES",
    "DRAFT_2020_12",
    "KNOWN_VOCABULARIES",
    "OTHER_DRAFTS",
    "VOCAB",
    "Dialect",
    "is_2020_12",
]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

_PREFIX = "https://json-schema.org/draft/2020-12/vocab/"
VOCAB = {
    name: _PREFIX + name
    for name in (
        "core",
        "applicator",
        "unevaluated",
        "validation",
        "meta-data",
        "format-annotation",
        "format-assertion",
        "content",
    )
}

KNOWN_VOCABULARIES = frozenset(VOCAB.values())
DEFAULT_VOCABULARIES = KNOWN_VOCABULARIES - {VOCAB["format-assertion"]}

# Meta-schema URIs of the other published drafts, normalised without "#".
OTHER_DRAFTS = {
    "http://json-schema.org/schema": "the latest-draft alias",
    "http://json-schema.org/draft-03/schema": "draft 3",
    "http://json-schema.org/draft-04/schema": "draft 4",
    "http://json-schema.org/draft-06/schema": "draft 6",
    "http://json-schema.org/draft-07/schema": "draft 7",
    "https://json-schema.org/draft/2019-09/schema": "draft 2019-09",
    "https://json-schema.org/draft/next/schema": "the unreleased 'next' draft",
}


def normalise(uri: str) -> str:
    """Drop an empty trailing fragment: ``...schema#`` names the same meta-schema."""
    return uri[:-1] if uri.endswith("#") else uri


# Seen in the wild: the http spelling of the 2020-12 meta-schema URI.
_ALSO_2020_12 = "http://json-schema.org/draft/2020-12/schema"


def is_2020_12(uri: str) -> bool:
    return normalise(uri) in (DRAFT_2020_12, _ALSO_2020_12)


@dataclass(frozen=True, slots=True)
class Dialect:
    """The active vocabularies of a schema resource."""

    vocabularies: frozenset[str]

    def has(self, name: str) -> bool:
        return VOCAB[name] in self.vocabularies

    @property
    def asserts_format(self) -> bool:
        return VOCAB["format-assertion"] in self.vocabularies


DEFAULT_DIALECT = Dialect(DEFAULT_VOCABULARIES)
