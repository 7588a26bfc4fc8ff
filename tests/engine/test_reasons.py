"""Every SchemaCoreError carries a stable ``reason`` from ``errors.REASONS``.

Mechanically: every ``reason="..."`` written in the engine is a documented code,
every documented code is raised somewhere, and the common failures raise theirs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import schemacore
from schemacore.errors import REASONS

ROOT = Path(schemacore.__file__).parent
_WRITTEN = re.compile(r"""reason=["']([a-z-]+)["']""")
# Reasons that are class defaults or derived from ExecutionFailure.limit, so they
# are never spelt out at a raise.
_IMPLICIT = {
    "bad-keyword-value",
    "unsupported-dialect",
    "limit-exceeded",
    "instance-not-json",
    "checker-failed",
}


def _written() -> set[str]:
    found: set[str] = set()
    for path in ROOT.rglob("*.py"):
        if "runtime" in path.parts:
            continue
        found.update(_WRITTEN.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_written_reason_is_documented() -> None:
    assert _written() <= set(REASONS)


def test_every_documented_reason_is_raised_somewhere() -> None:
    assert set(REASONS) - _written() - _IMPLICIT == set()
    defaults = {
        schemacore.SchemaError.default_reason,
        schemacore.UnsupportedCapability.default_reason,
    }
    assert defaults <= set(REASONS)


DRAFT_03 = "http://json-schema.org/draft-03/schema#"


@pytest.mark.parametrize(
    ("schema", "options", "reason"),
    [
        ({"properties": []}, {}, "meta-schema"),
        ({"pattern": "("}, {}, "bad-regex"),
        ({"$ref": "https://example.com/none"}, {}, "unresolvable-reference"),
        ({"$ref": "#/$defs/none"}, {}, "unresolvable-reference"),
        ({"$ref": "#none"}, {}, "unresolvable-reference"),
        ({"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}}, {}, "duplicate-identifier"),
        ({"const": float("nan")}, {}, "not-json"),
        ({"$schema": DRAFT_03}, {}, "unsupported-dialect"),
        ({"$schema": "https://example.com/unknown"}, {}, "unsupported-dialect"),
        ("not a schema", {}, "not-a-schema"),
    ],
)
def test_common_failures_raise_their_reason(
    schema: object, options: dict[str, object], reason: str
) -> None:
    with pytest.raises(schemacore.SchemaCoreError) as caught:
        schemacore.compile(schema, **options)
    assert caught.value.reason == reason


def test_loader_failure_and_vocabulary_reasons() -> None:
    def loader(uri: str) -> object:
        raise KeyError(uri)

    with pytest.raises(schemacore.SchemaError) as caught:
        schemacore.compile({"$ref": "https://example.com/x"}, loader=loader)
    assert caught.value.reason == "loader-failed"
    meta = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/meta",
        "$vocabulary": {"https://example.com/vocab/custom": True},
    }
    with pytest.raises(schemacore.UnsupportedCapability) as unsupported:
        schemacore.compile(
            {"$schema": "https://example.com/meta"}, registry={"https://example.com/meta": meta}
        )
    assert unsupported.value.reason == "unsupported-vocabulary"


def test_execution_failures_have_reasons_from_their_limit() -> None:
    assert schemacore.ExecutionFailure("x", limit="max_subschemas").reason == "limit-exceeded"
    assert schemacore.ExecutionFailure("x", limit="json_data_model").reason == "instance-not-json"
    with pytest.raises(schemacore.ExecutionFailure) as caught:
        schemacore.compile({"type": "string"}).is_valid({1, 2})
    assert caught.value.reason == "instance-not-json"
