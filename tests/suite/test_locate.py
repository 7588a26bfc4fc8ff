"""The suite locator's download path, exercised offline with archives built here."""

from __future__ import annotations

import io
import tarfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.suite import locate

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TOP = f"JSON-Schema-Test-Suite-{COMMIT}"


def _archive(entries: dict[str, bytes | None], *, links: dict[str, str] | None = None) -> bytes:
    """A .tar.gz whose members are files (bytes) or folders (None), plus symlinks."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content in entries.items():
            info = tarfile.TarInfo(name)
            if content is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    return buffer.getvalue()


def _good_entries(top: str = TOP) -> dict[str, bytes | None]:
    return {
        f"{top}/": None,
        f"{top}/tests/draft2020-12/type.json": b"[]",
        f"{top}/remotes/integer.json": b'{"type": "integer"}',
    }


def _serve(monkeypatch: pytest.MonkeyPatch, payload: bytes) -> list[str]:
    requested: list[str] = []

    def fake_urlopen(url: str, timeout: float) -> io.BytesIO:
        requested.append(url)
        return io.BytesIO(payload)

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    return requested


def test_download_extracts_verifies_and_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requested = _serve(monkeypatch, _archive(_good_entries()))
    suite = locate.download_suite(COMMIT, tmp_path)
    assert suite == tmp_path / f"suite-{COMMIT}"
    assert (suite / "tests" / "draft2020-12" / "type.json").read_bytes() == b"[]"
    assert (suite / "COMMIT").read_text().strip() == COMMIT
    assert requested == [locate.ARCHIVE_URL.format(commit=COMMIT)]
    registry = locate.load_registry(suite)
    assert registry == {"http://localhost:1234/integer.json": {"type": "integer"}}

    # A second call is served from the cache.
    assert locate.download_suite(COMMIT, tmp_path) == suite
    assert len(requested) == 1


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (f"{TOP}/../evil.json", "escaping"),
        ("/etc/evil.json", "absolute"),
        (f"{TOP}/tests/../../evil.json", "escaping"),
    ],
)
def test_download_refuses_escaping_members(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, message: str
) -> None:
    entries = _good_entries()
    entries[name] = b"{}"
    _serve(monkeypatch, _archive(entries))
    with pytest.raises(locate.SuiteUnavailable, match=message):
        locate.download_suite(COMMIT, tmp_path)
    assert not (tmp_path / f"suite-{COMMIT}").exists()
    assert not (tmp_path.parent / "evil.json").exists()


def test_download_refuses_wrong_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _serve(monkeypatch, _archive(_good_entries("JSON-Schema-Test-Suite-main")))
    with pytest.raises(locate.SuiteUnavailable, match="does not name commit"):
        locate.download_suite(COMMIT, tmp_path)


def test_download_refuses_archive_without_draft(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(monkeypatch, _archive({f"{TOP}/README.md": b"hello"}))
    with pytest.raises(locate.SuiteUnavailable, match="draft2020-12"):
        locate.download_suite(COMMIT, tmp_path)
    assert not (tmp_path / f"suite-{COMMIT}").exists()


def test_download_skips_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _serve(monkeypatch, _archive(_good_entries(), links={f"{TOP}/escape": "/etc"}))
    suite = locate.download_suite(COMMIT, tmp_path)
    assert not (suite / "escape").exists()
    assert not (suite / "escape").is_symlink()


def test_download_failure_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(url: str, timeout: float) -> Any:
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(locate.SuiteUnavailable, match="could not download"):
        locate.download_suite(COMMIT, tmp_path)


def test_explicit_location_must_be_a_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JSON_SCHEMA_TEST_SUITE", str(tmp_path))
    with pytest.raises(locate.SuiteUnavailable, match="JSON_SCHEMA_TEST_SUITE"):
        locate._locate()


def test_no_download_when_disabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JSON_SCHEMA_TEST_SUITE", raising=False)
    monkeypatch.setenv("SCHEMACORE_SUITE_NO_DOWNLOAD", "1")
    # A repository root with no shared/ folder beside it.
    monkeypatch.setattr(locate, "REPO_ROOT", tmp_path / "clone")
    with pytest.raises(locate.SuiteUnavailable, match="downloads are disabled"):
        locate._locate()


def test_pinned_commit_is_well_formed() -> None:
    assert len(locate.pinned_commit()) == 40
