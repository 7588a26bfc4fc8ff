"""Hazard: fetching remote (or local) documents named by a schema.

schemacore never opens a connection or a file for a reference: a reference to a URI
that is neither in the ``registry``, nor embedded, nor a bundled meta-schema, nor
supplied by the caller's ``loader`` is a SchemaError at compile time, before any
instance is seen. The loader is asked only for URIs it has to supply, and whatever it
raises becomes a SchemaError.
"""

from __future__ import annotations

import http.client
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

import schemacore
from schemacore import SchemaError

from .support import QUICK, within

META = "https://json-schema.org/draft/2020-12/schema"


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Fail the test if anything tries to reach the network."""
    attempts: list[str] = []

    def refuse(name: str) -> Any:
        def blocked(*args: Any, **kwargs: Any) -> Any:
            attempts.append(f"{name}{args!r}")
            raise AssertionError(f"network access attempted: {name}{args!r}")

        return blocked

    monkeypatch.setattr(socket, "socket", refuse("socket.socket"))
    monkeypatch.setattr(socket, "create_connection", refuse("socket.create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("socket.getaddrinfo"))
    monkeypatch.setattr(urllib.request, "urlopen", refuse("urllib.request.urlopen"))
    monkeypatch.setattr(http.client.HTTPConnection, "connect", refuse("HTTPConnection.connect"))
    yield attempts
    # Also caught when the engine swallowed the AssertionError into a SchemaError.
    assert attempts == [], f"network access attempted: {attempts}"


# -- unresolvable references fail at compile time -------------------------------------

UNRESOLVABLE: list[Any] = [
    pytest.param({"$ref": "http://example.com/schema.json"}, "/$ref", id="http"),
    pytest.param({"$ref": "https://example.com/schema.json#/$defs/x"}, "/$ref", id="https"),
    pytest.param(
        {"properties": {"a": {"items": {"$ref": "https://example.com/s"}}}},
        "/properties/a/items/$ref",
        id="nested",
    ),
    pytest.param(
        {"$id": "https://example.com/root.json", "$ref": "other.json"}, "/$ref", id="relative"
    ),
    pytest.param({"$dynamicRef": "https://example.com/tree#node"}, "/$dynamicRef", id="dynamicRef"),
    pytest.param(
        {"if": False, "then": {"$ref": "http://example.com/never"}},
        "/then/$ref",
        id="unreachable-branch",
    ),
    pytest.param({"$ref": "file:///etc/passwd"}, "/$ref", id="file"),
    pytest.param({"$ref": "urn:example:missing"}, "/$ref", id="urn"),
    pytest.param({"$ref": "//example.com/network-path"}, "/$ref", id="network-path"),
    pytest.param(
        {"$ref": "https://json-schema.org/draft/next/schema"}, "/$ref", id="unbundled-meta"
    ),
]


@pytest.mark.parametrize(("schema", "location"), UNRESOLVABLE)
def test_unresolvable_reference_is_a_schema_error_at_compile(schema: Any, location: str) -> None:
    # Wall-clock time: a fetch would wait on the network, not spend CPU.
    with within(QUICK, clock=time.monotonic), pytest.raises(SchemaError) as caught:
        schemacore.compile(schema)
    assert type(caught.value) is SchemaError
    assert caught.value.location == location
    assert "never fetches" in caught.value.message or "resolve" in caught.value.message
    assert "root:" not in str(caught.value)  # no file was read


@pytest.mark.parametrize(("schema", "location"), UNRESOLVABLE)
def test_unresolvable_reference_fails_before_any_instance(schema: Any, location: str) -> None:
    # The one-off helpers compile first: the (non-JSON) instance is never looked at.
    with pytest.raises(SchemaError):
        schemacore.is_valid(b"not even JSON", schema)
    with pytest.raises(SchemaError):
        schemacore.validate(object(), schema)


def test_unreferenced_definitions_are_never_fetched() -> None:
    # Nothing can ever reach this definition: it is not fetched, and never fails later.
    schema = {"$defs": {"unused": {"$ref": "https://example.com/missing.json"}}, "type": "object"}
    try:
        validator = schemacore.compile(schema)
    except SchemaError:
        return
    assert validator.is_valid({"a": 1})
    assert not validator.is_valid([])
    assert [e.keyword for e in validator.iter_errors([])] == ["type"]


def test_unknown_remote_dialect_is_refused_without_fetching() -> None:
    with pytest.raises(schemacore.UnsupportedCapability):
        schemacore.compile({"$schema": "https://example.com/my-dialect", "type": "string"})


def test_bundled_meta_schema_needs_no_network() -> None:
    validator = schemacore.compile({"$schema": META, "$ref": META})
    assert validator.is_valid({"type": "string"})
    assert not validator.is_valid({"type": 12})


def test_registered_documents_resolve_without_network() -> None:
    registry = {
        "https://example.com/a.json": {"$ref": "b.json", "minimum": 0},
        "https://example.com/b.json#": {"type": "integer"},
    }
    validator = schemacore.compile({"$ref": "https://example.com/a.json"}, registry=registry)
    assert validator.is_valid(3)
    assert not validator.is_valid(-1)
    assert not validator.is_valid(1.5)


# -- the caller's loader --------------------------------------------------------------


class Loader:
    """A loader that records what it is asked for."""

    def __init__(self, documents: dict[str, Any]) -> None:
        self.documents = documents
        self.asked: list[str] = []

    def __call__(self, uri: str) -> Any:
        self.asked.append(uri)
        return self.documents[uri]


def test_loader_is_asked_only_for_what_the_registry_lacks() -> None:
    loader = Loader(
        {
            "https://example.com/loaded.json": {
                "$defs": {"x": {"$ref": "https://example.com/registered.json"}},
                "$ref": "#/$defs/x",
            },
        }
    )
    registry = {"https://example.com/registered.json": {"type": "string"}}
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {"embedded": {"$id": "embedded.json", "maxLength": 3}},
        "allOf": [
            {"$ref": "https://example.com/loaded.json"},
            {"$ref": "https://example.com/loaded.json#/$defs/x"},
            {"$ref": "https://example.com/registered.json"},
            {"$ref": "embedded.json"},
            {"not": {"$ref": META}},
        ],
    }
    validator = schemacore.compile(schema, registry=registry, loader=loader)
    assert loader.asked == ["https://example.com/loaded.json"]
    assert validator.is_valid("abc")
    assert not validator.is_valid("abcd")
    assert not validator.is_valid(1)
    # Validation never asks again.
    assert loader.asked == ["https://example.com/loaded.json"]


@pytest.mark.parametrize(
    "error",
    [
        OSError("connection refused"),
        KeyError("https://example.com/x.json"),
        ValueError("bad JSON"),
        RuntimeError("whatever"),
        SchemaError("the loader's own error"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_loader_exceptions_become_schema_errors(error: Exception) -> None:
    def loader(uri: str) -> Any:
        raise error

    with pytest.raises(SchemaError) as caught:
        schemacore.compile({"$ref": "https://example.com/x.json"}, loader=loader)
    assert type(caught.value) is SchemaError
    assert "https://example.com/x.json" in str(caught.value)


def test_loader_interrupts_are_not_swallowed() -> None:
    def loader(uri: str) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        schemacore.compile({"$ref": "https://example.com/x.json"}, loader=loader)


@pytest.mark.parametrize(
    "document", [42, None, "schema", [{"type": "string"}]], ids=["int", "none", "str", "list"]
)
def test_loader_returning_a_non_schema_is_a_schema_error(document: Any) -> None:
    with pytest.raises(SchemaError):
        schemacore.compile({"$ref": "https://example.com/x.json"}, loader=lambda uri: document)


def test_loaded_documents_are_checked_against_the_meta_schema() -> None:
    with pytest.raises(SchemaError):
        schemacore.compile(
            {"$ref": "https://example.com/x.json"}, loader=lambda uri: {"minLength": -1}
        )


def test_loader_that_itself_tries_the_network_is_caught(no_network: list[str]) -> None:
    def loader(uri: str) -> Any:
        return urllib.request.urlopen(uri)

    with pytest.raises(SchemaError):
        schemacore.compile({"$ref": "https://example.com/x.json"}, loader=loader)
    # That attempt was the caller's, through the caller's loader: let the fixture pass.
    assert len(no_network) == 1
    no_network.clear()
