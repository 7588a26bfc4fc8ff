"""The dialects schemacore implements, each a table of keyword specs.

A draft's table reuses the specs of the drafts around it and replaces only what its
specification changed: 2019-09 is 2020-12 with ``items``/``additionalItems`` and
``$recursiveRef`` in place of ``prefixItems`` and ``$dynamicRef``; draft-07 drops the
vocabularies, ``$anchor``, ``$defs`` and the ``dependent*``/``unevaluated*``/
``*Contains`` keywords, and lets ``$ref`` stand alone; draft-06 drops ``if``,
``$comment`` and the content keywords; draft-04 has ``id``, boolean exclusive bounds
and no ``const``, ``contains``, ``propertyNames`` or boolean schemas.

``$schema`` picks a resource's dialect; :func:`known` answers for the published
meta-schema URIs, and the compiler follows a custom meta-schema's own ``$schema``
to the draft it extends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .dialect import Dialect, normalise
from .errors import UnsupportedCapability
from .keywords import applicator as ap
from .keywords import content as ct
from .keywords import core
from .keywords import earlier as old
from .keywords import format as fm
from .keywords import metadata as md
from .keywords import unevaluated as ue
from .keywords import validation as va
from .spec import Spec

__all__ = [
    "DEFAULT",
    "DIALECTS",
    "UNSUPPORTED",
    "by_name",
    "known",
    "refuse_unsupported",
]

Table = Mapping[str, tuple[Spec, str | None]]


def _vocabulary(uri: str | None, specs: Iterable[Spec]) -> dict[str, tuple[Spec, str | None]]:
    return {spec.name: (spec, uri) for spec in specs}


def _replace(
    table: Table, *specs: Spec, drop: Iterable[str] = ()
) -> dict[str, tuple[Spec, str | None]]:
    """``table`` with ``specs`` in place of the keywords of their names (keeping
    each one's vocabulary, or none for a new keyword) and ``drop`` left out."""
    result = {name: entry for name, entry in table.items() if name not in set(drop)}
    for spec in specs:
        vocabulary = table[spec.name][1] if spec.name in table else None
        result[spec.name] = (spec, vocabulary)
    return result


def _flat(table: Table) -> dict[str, tuple[Spec, str | None]]:
    """The drafts before 2019-09 have no vocabularies: every keyword is active."""
    return {name: (spec, None) for name, (spec, _) in table.items()}


# -- 2020-12 -------------------------------------------------------------------------

_V2020 = "https://json-schema.org/draft/2020-12/vocab/"
_VOCAB_2020 = {
    name: _V2020 + name
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
_CORE = (
    core.ID, core.SCHEMA, core.REF, core.ANCHOR, core.DYNAMIC_REF, core.DYNAMIC_ANCHOR,
    core.VOCABULARY, core.COMMENT, core.DEFS,
)  # fmt: skip
_APPLICATOR = (
    ap.PREFIX_ITEMS, ap.ITEMS, ap.CONTAINS, ap.ADDITIONAL_PROPERTIES, ap.PROPERTIES,
    ap.PATTERN_PROPERTIES, ap.DEPENDENT_SCHEMAS, ap.PROPERTY_NAMES, ap.IF, ap.THEN, ap.ELSE,
    ap.ALL_OF, ap.ANY_OF, ap.ONE_OF, ap.NOT,
)  # fmt: skip
_UNEVALUATED = (ue.UNEVALUATED_ITEMS, ue.UNEVALUATED_PROPERTIES)
_VALIDATION = (
    va.TYPE, va.CONST, va.ENUM, va.MULTIPLE_OF, va.MAXIMUM, va.EXCLUSIVE_MAXIMUM, va.MINIMUM,
    va.EXCLUSIVE_MINIMUM, va.MAX_LENGTH, va.MIN_LENGTH, va.PATTERN, va.MAX_ITEMS, va.MIN_ITEMS,
    va.UNIQUE_ITEMS, ap.MAX_CONTAINS, ap.MIN_CONTAINS, va.MAX_PROPERTIES, va.MIN_PROPERTIES,
    va.REQUIRED, va.DEPENDENT_REQUIRED,
)  # fmt: skip
_META_DATA = (
    md.TITLE, md.DESCRIPTION, md.DEFAULT, md.DEPRECATED, md.READ_ONLY, md.WRITE_ONLY,
    md.EXAMPLES,
)  # fmt: skip
_CONTENT = (ct.CONTENT_ENCODING, ct.CONTENT_MEDIA_TYPE, ct.CONTENT_SCHEMA)

_FORMATS_04 = frozenset({"date-time", "email", "hostname", "ipv4", "ipv6", "uri"})
_FORMATS_06 = _FORMATS_04 | {"uri-reference", "uri-template", "json-pointer"}
_FORMATS_07 = _FORMATS_06 | {
    "date", "time", "idn-email", "idn-hostname", "iri", "iri-reference",
    "relative-json-pointer", "regex",
}  # fmt: skip
_FORMATS_2019 = _FORMATS_07 | {"duration", "uuid"}

_TABLE_2020: Table = {
    **_vocabulary(_VOCAB_2020["core"], _CORE),
    **_vocabulary(_VOCAB_2020["applicator"], _APPLICATOR),
    **_vocabulary(_VOCAB_2020["unevaluated"], _UNEVALUATED),
    **_vocabulary(_VOCAB_2020["validation"], _VALIDATION),
    **_vocabulary(_VOCAB_2020["meta-data"], _META_DATA),
    **_vocabulary(_VOCAB_2020["format-annotation"], (fm.FORMAT,)),
    **_vocabulary(_VOCAB_2020["content"], _CONTENT),
    # Not 2020-12 keywords, but its meta-schema reserves them for subschemas (a
    # "dependencies" member may also be an array of names) and real schemas keep
    # using them: definitions is indexed for references, and dependencies checked
    # as it was (ignoring it would silently loosen such schemas).
    **_vocabulary(None, (core.DEFINITIONS,)),
    **_vocabulary(_VOCAB_2020["applicator"], (ap.DEPENDENCIES,)),
}

DRAFT_2020_12 = Dialect(
    "2020-12",
    "https://json-schema.org/draft/2020-12/schema",
    _TABLE_2020,
    frozenset(_VOCAB_2020.values()) - {_VOCAB_2020["format-assertion"]},
    _VOCAB_2020,
    formats=_FORMATS_2019,
)

# -- 2019-09 -------------------------------------------------------------------------

_V2019 = "https://json-schema.org/draft/2019-09/vocab/"
_VOCAB_2019 = {
    "core": _V2019 + "core",
    "applicator": _V2019 + "applicator",
    # unevaluated* belong to the applicator vocabulary in 2019-09.
    "unevaluated": _V2019 + "applicator",
    "validation": _V2019 + "validation",
    "meta-data": _V2019 + "meta-data",
    "format-annotation": _V2019 + "format",
    "content": _V2019 + "content",
}


def _revocabulary(table: Table, uris: Mapping[str, str]) -> dict[str, tuple[Spec, str | None]]:
    """``table`` with each 2020-12 vocabulary URI replaced by its 2019-09 one."""
    by_uri = {_VOCAB_2020[name]: uri for name, uri in uris.items()}
    return {
        name: (spec, None if vocabulary is None else by_uri[vocabulary])
        for name, (spec, vocabulary) in table.items()
    }


_TABLE_2019 = _replace(
    _revocabulary(_TABLE_2020, _VOCAB_2019),
    old.ITEMS_EARLIER,
    drop=("prefixItems", "$dynamicRef", "$dynamicAnchor"),
)
_TABLE_2019.update(_vocabulary(_VOCAB_2019["core"], (old.RECURSIVE_REF, old.RECURSIVE_ANCHOR)))
_TABLE_2019.update(_vocabulary(_VOCAB_2019["applicator"], (old.ADDITIONAL_ITEMS,)))

DRAFT_2019_09 = Dialect(
    "2019-09",
    "https://json-schema.org/draft/2019-09/schema",
    _TABLE_2019,
    frozenset(_VOCAB_2019.values()),
    _VOCAB_2019,
    formats=_FORMATS_2019,
)

# -- draft-07, -06, -04 --------------------------------------------------------------

_TABLE_07 = _flat(
    _replace(
        _TABLE_2019,
        drop=(
            "$anchor", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$defs",
            "dependentSchemas", "dependentRequired", "unevaluatedItems",
            "unevaluatedProperties", "minContains", "maxContains", "contentSchema",
            "deprecated",
        ),
    )
)  # fmt: skip

DRAFT_07 = Dialect(
    "draft-07",
    "http://json-schema.org/draft-07/schema",
    _TABLE_07,
    frozenset(),
    {},
    ref_alone=True,
    asserts_content=True,
    formats=_FORMATS_07,
)

_TABLE_06 = _replace(
    _TABLE_07,
    drop=(
        "if", "then", "else", "$comment", "contentEncoding", "contentMediaType", "readOnly",
        "writeOnly",
    ),
)  # fmt: skip

DRAFT_06 = Dialect(
    "draft-06",
    "http://json-schema.org/draft-06/schema",
    _TABLE_06,
    frozenset(),
    {},
    ref_alone=True,
    formats=_FORMATS_06,
)

_TABLE_04 = _replace(
    _TABLE_06,
    old.MAXIMUM_04,
    old.MINIMUM_04,
    old.EXCLUSIVE_MAXIMUM_04,
    old.EXCLUSIVE_MINIMUM_04,
    drop=("$id", "const", "contains", "propertyNames", "examples"),
)
_TABLE_04["id"] = (core.ID_04, None)

DRAFT_04 = Dialect(
    "draft-04",
    "http://json-schema.org/draft-04/schema",
    _TABLE_04,
    frozenset(),
    {},
    identifier="id",
    ref_alone=True,
    float_integers=False,
    boolean_schemas=False,
    formats=_FORMATS_04,
)

DIALECTS: tuple[Dialect, ...] = (DRAFT_2020_12, DRAFT_2019_09, DRAFT_07, DRAFT_06, DRAFT_04)
DEFAULT = DRAFT_2020_12

_BY_URI: dict[str, Dialect] = {dialect.uri: dialect for dialect in DIALECTS}
# Seen in the wild: the http spelling of the 2020-12 and 2019-09 meta-schema URIs.
_BY_URI["http://json-schema.org/draft/2020-12/schema"] = DRAFT_2020_12
_BY_URI["http://json-schema.org/draft/2019-09/schema"] = DRAFT_2019_09
# And the https spelling of the older ones.
for _dialect in (DRAFT_07, DRAFT_06, DRAFT_04):
    _BY_URI[_dialect.uri.replace("http://", "https://", 1)] = _dialect

_BY_NAME: dict[str, Dialect] = {dialect.name: dialect for dialect in DIALECTS}

# Meta-schema URIs of drafts schemacore does not implement, normalised without "#".
UNSUPPORTED = {
    "http://json-schema.org/draft-03/schema": "draft 3",
    "https://json-schema.org/draft-03/schema": "draft 3",
    "http://json-schema.org/schema": "the latest-draft alias",
    "https://json-schema.org/draft/next/schema": "the unreleased 'next' draft",
}


# Each URI with its empty fragment too: one lookup, no string work, per $schema.
_BY_URI.update({uri + "#": dialect for uri, dialect in list(_BY_URI.items())})


def known(uri: str) -> Dialect | None:
    """The dialect a published meta-schema URI names, if schemacore implements it."""
    return _BY_URI.get(uri)


def refuse_unsupported(uri: str, location: str = "", what: str = "$schema") -> None:
    """UnsupportedCapability if ``uri`` names a published draft schemacore does not
    implement (``what`` names the option or keyword that gave it)."""
    name = UNSUPPORTED.get(normalise(uri))
    if name is not None:
        raise UnsupportedCapability(
            f"{what} names {name} ({uri}); schemacore implements drafts 2020-12, "
            "2019-09, 7, 6 and 4",
            location=location,
        )


def by_name(name: str) -> Dialect | None:
    """A dialect by its short name ("2020-12", "draft-07", ...) or meta-schema URI."""
    return _BY_NAME.get(name) or known(name)
