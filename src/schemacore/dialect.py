"""A dialect: the keywords (as :class:`~schemacore.spec.Spec` objects) a schema
resource speaks, and the rules of its draft that are not keywords.

The dialect tables of the drafts schemacore implements are in
:mod:`schemacore.dialects`; this module holds only the type, so that the data
model and the resource index can use it without importing the keywords.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .spec import IN_PLACE, LEAVES, Reach, Shape

if TYPE_CHECKING:
    from .spec import Spec

__all__ = ["DRAFT_2020_12", "OTHER_DRAFTS", "Dialect", "is_2020_12", "normalise"]


def normalise(uri: str) -> str:
    """Drop an empty trailing fragment: ``...schema#`` names the same meta-schema."""
    return uri[:-1] if uri.endswith("#") else uri


@dataclass(frozen=True, eq=False)
class Dialect:
    """One draft's keywords and rules, with the vocabularies active in a resource.

    Dialects compare by identity: :meth:`with_vocabularies` hands out one object
    per set of vocabularies, so the identity stands for the whole table (it is
    part of every compiled node's cache key).
    """

    name: str  # "2020-12", "draft-07", ...
    uri: str  # the draft's meta-schema URI, normalised
    # keyword -> (spec, URI of its vocabulary; None where the draft has none).
    keywords: Mapping[str, tuple[Spec, str | None]]
    vocabularies: frozenset[str]
    # Short vocabulary name -> URI, for has() (drafts before 2019-09 have none).
    vocabulary_uris: Mapping[str, str]
    identifier: str = "$id"  # "id" in draft-04
    # Drafts before 2019-09: "$ref" stands alone (its siblings are ignored) and a
    # fragment-only identifier ("#name") declares a plain-name anchor.
    ref_alone: bool = False
    # Whether a float with a zero fraction (1.0) is an "integer" (not in draft-04).
    float_integers: bool = True
    # Whether true and false are schemas (not in draft-04, whose meta-schema takes
    # them only as the values of additionalItems and additionalProperties).
    boolean_schemas: bool = True
    # Whether contentEncoding/contentMediaType assert by default (draft-07 defined
    # them as assertions an implementation may check; later drafts as annotations).
    asserts_content: bool = False
    formats: frozenset[str] = frozenset()
    # Derived: the active keywords, and the facts of the specs as tables the hot
    # loops read without touching an Enum (their attribute lookups and hashes are
    # slow Python in 3.11): keyword holding subschemas -> their shape (indexed
    # whatever the active vocabularies: a $ref may target a subschema of a keyword
    # that does not apply); active keyword -> (spec, compiler); keyword -> (reach of
    # its single subschema, reach of one of its list or map members); the keywords
    # applying subschemas in place, and those whose subschemas see a value without
    # children.
    active: Mapping[str, Spec] = field(init=False)
    shapes: Mapping[str, Shape] = field(init=False)
    compilers: Mapping[str, tuple[Spec, Any]] = field(init=False)
    reaches: Mapping[str, tuple[Reach, Reach]] = field(init=False)
    in_place: frozenset[str] = field(init=False)
    leaves: frozenset[str] = field(init=False)
    _variants: dict[frozenset[str], Dialect] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        active = {
            name: spec
            for name, (spec, vocabulary) in self.keywords.items()
            if vocabulary is None or vocabulary in self.vocabularies
        }
        assertion = self.vocabulary_uris.get("format-assertion")
        if assertion in self.vocabularies and "format" in self.keywords:
            # The format-assertion vocabulary alone also makes "format" a keyword.
            active["format"] = self.keywords["format"][0]
        set_attr = object.__setattr__
        set_attr(self, "active", active)
        shapes = {
            name: spec.shape
            for name, (spec, _) in self.keywords.items()
            if spec.shape is not Shape.NONE
        }
        set_attr(self, "shapes", shapes)
        set_attr(
            self,
            "compilers",
            {name: (spec, spec.compile) for name, spec in active.items() if spec.compile},
        )
        reaches = {
            name: (spec.reach_of((name,)), spec.reach_of((name, 0)))
            for name, (spec, _) in self.keywords.items()
        }
        set_attr(self, "reaches", reaches)
        set_attr(
            self, "in_place", frozenset(n for n, (one, _) in reaches.items() if one in IN_PLACE)
        )
        set_attr(self, "leaves", frozenset(n for n, (one, _) in reaches.items() if one in LEAVES))
        set_attr(self, "_variants", {self.vocabularies: self})

    def has(self, vocabulary: str) -> bool:
        """Whether the vocabulary of that short name is active (always, in drafts
        without vocabularies)."""
        uri = self.vocabulary_uris.get(vocabulary)
        return uri is None or uri in self.vocabularies

    @property
    def asserts_format(self) -> bool:
        uri = self.vocabulary_uris.get("format-assertion")
        return uri is not None and uri in self.vocabularies

    def with_vocabularies(self, vocabularies: frozenset[str]) -> Dialect:
        """This draft with other vocabularies active (a custom meta-schema's)."""
        found = self._variants.get(vocabularies)
        if found is None:
            found = Dialect(
                self.name,
                self.uri,
                self.keywords,
                vocabularies,
                self.vocabulary_uris,
                self.identifier,
                self.ref_alone,
                self.float_integers,
                self.boolean_schemas,
                self.asserts_content,
                self.formats,
            )
            # Every variant of a draft shares one table of variants.
            object.__setattr__(found, "_variants", self._variants)
            self._variants[vocabularies] = found
        return found

    def __repr__(self) -> str:
        return f"<Dialect {self.name}>"


# Published meta-schema URIs, as facts the runtime layer's admission rule reads (it
# admits 2020-12 only, whatever the engine implements).
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
# Seen in the wild: the http spelling of the 2020-12 meta-schema URI.
_ALSO_2020_12 = "http://json-schema.org/draft/2020-12/schema"

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


def is_2020_12(uri: str) -> bool:
    """Whether ``uri`` names the Draft 2020-12 meta-schema."""
    return normalise(uri) in (DRAFT_2020_12, _ALSO_2020_12)
