"""Find the JSON-Schema-Test-Suite and build its registry of remote documents.

The suite is looked for, in order:

1. ``$JSON_SCHEMA_TEST_SUITE`` (a checkout of the suite; if set it must be valid,
   there is no silent fallback past an explicit choice);
2. ``<repo>/../shared/JSON-Schema-Test-Suite`` (the copy laid beside the clone);
3. a cached download of the commit pinned in ``tests/suite/COMMIT``, fetched with
   urllib from GitHub into ``$XDG_CACHE_HOME/schemacore/suite-<commit>`` (default
   ``~/.cache/schemacore/...``). ``SCHEMACORE_SUITE_NO_DOWNLOAD=1`` disables this.

When none works, :func:`locate_suite` raises :class:`SuiteUnavailable`; callers turn
that into a visible skip (or a failure when ``SCHEMACORE_REQUIRE_SUITE=1``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, BinaryIO

__all__ = [
    "ARCHIVE_URL",
    "PINNED_COMMIT_FILE",
    "REMOTES_BASE_URI",
    "REPO_ROOT",
    "SuiteLocation",
    "SuiteUnavailable",
    "cache_root",
    "download_suite",
    "load_registry",
    "locate_suite",
    "pinned_commit",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
PINNED_COMMIT_FILE = Path(__file__).resolve().with_name("COMMIT")
ARCHIVE_URL = "https://github.com/json-schema-org/JSON-Schema-Test-Suite/archive/{commit}.tar.gz"
REMOTES_BASE_URI = "http://localhost:1234/"
DRAFT = "draft2020-12"

# The real archive is a few MiB; the cap only stops a runaway response.
_MAX_ARCHIVE_BYTES = 128 * 1024 * 1024
_DOWNLOAD_TIMEOUT_SECONDS = 60.0
_COMMIT_RE = re.compile(r"[0-9a-f]{40}")


class SuiteUnavailable(RuntimeError):
    """The suite could not be found locally nor downloaded and verified."""


@dataclass(frozen=True)
class SuiteLocation:
    """Where the suite was found.

    ``source`` is ``"env"``, ``"shared"`` or ``"download"``; ``commit`` is read from
    the checkout's ``COMMIT`` file when it has one, else ``None``.
    """

    path: Path
    source: str
    commit: str | None

    def describe(self) -> str:
        commit = self.commit[:12] if self.commit else "unknown commit"
        return f"{self.path} ({self.source}, {commit})"


def pinned_commit() -> str:
    """The suite commit this repository is tested against."""
    commit = PINNED_COMMIT_FILE.read_text(encoding="ascii").strip()
    if not _COMMIT_RE.fullmatch(commit):
        raise SuiteUnavailable(f"{PINNED_COMMIT_FILE} does not hold a 40-hex commit: {commit!r}")
    return commit


def cache_root() -> Path:
    """The per-user cache folder for downloaded suites."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "schemacore"


def _is_suite(path: Path) -> bool:
    return (path / "tests" / DRAFT).is_dir() and (path / "remotes").is_dir()


def _read_commit(path: Path) -> str | None:
    try:
        text = (path / "COMMIT").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _COMMIT_RE.fullmatch(text) else None


_located: SuiteLocation | SuiteUnavailable | None = None


def locate_suite() -> SuiteLocation:
    """Find (or download) the suite; the outcome, failure included, is memoised so a
    test session tries the network at most once."""
    global _located
    if _located is None:
        try:
            _located = _locate()
        except SuiteUnavailable as exc:
            _located = exc
    if isinstance(_located, SuiteUnavailable):
        raise _located
    return _located


def _locate() -> SuiteLocation:
    explicit = os.environ.get("JSON_SCHEMA_TEST_SUITE")
    if explicit:
        path = Path(explicit).expanduser().resolve()
        if not _is_suite(path):
            raise SuiteUnavailable(
                f"JSON_SCHEMA_TEST_SUITE={explicit!r} is not a JSON-Schema-Test-Suite "
                f"checkout (no tests/{DRAFT} and remotes/ there)"
            )
        return SuiteLocation(path, "env", _read_commit(path))

    shared = (REPO_ROOT.parent / "shared" / "JSON-Schema-Test-Suite").resolve()
    if _is_suite(shared):
        return SuiteLocation(shared, "shared", _read_commit(shared))

    commit = pinned_commit()
    if os.environ.get("SCHEMACORE_SUITE_NO_DOWNLOAD") == "1":
        raise SuiteUnavailable(
            f"no local suite at {shared} and downloads are disabled "
            "(SCHEMACORE_SUITE_NO_DOWNLOAD=1); set JSON_SCHEMA_TEST_SUITE to a checkout"
        )
    path = download_suite(commit, cache_root())
    return SuiteLocation(path, "download", commit)


def download_suite(commit: str, root: Path, *, timeout: float = _DOWNLOAD_TIMEOUT_SECONDS) -> Path:
    """Return ``root/suite-<commit>``, downloading and verifying it first if absent.

    The archive is extracted into a staging folder and moved into place only once
    verified, so an interrupted download never leaves a half-suite in the cache.
    """
    if not _COMMIT_RE.fullmatch(commit):
        raise SuiteUnavailable(f"not a 40-hex commit: {commit!r}")
    target = root / f"suite-{commit}"
    if _is_suite(target) and _read_commit(target) == commit:
        return target

    url = ARCHIVE_URL.format(commit=commit)
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=root, prefix=".download-") as tmp:
            archive = Path(tmp) / "suite.tar.gz"
            with urllib.request.urlopen(url, timeout=timeout) as response:
                _copy_capped(response, archive)
            staging = Path(tmp) / "extract"
            suite = _safe_extract(archive, staging, commit)
            if not _is_suite(suite):
                raise SuiteUnavailable(
                    f"the archive from {url} has no tests/{DRAFT} and remotes/ folders"
                )
            (suite / "COMMIT").write_text(commit + "\n", encoding="ascii")
            if target.exists():
                # A broken earlier attempt; the verified copy replaces it.
                shutil.rmtree(target)
            os.replace(suite, target)
    except SuiteUnavailable:
        raise
    except (OSError, tarfile.TarError, EOFError) as exc:
        # URLError and socket timeouts are OSErrors: no network is the usual cause.
        raise SuiteUnavailable(
            f"could not download the suite from {url}: {exc}; "
            "set JSON_SCHEMA_TEST_SUITE to a local checkout"
        ) from exc
    return target


def _copy_capped(source: BinaryIO, destination: Path) -> None:
    total = 0
    with destination.open("wb") as out:
        while chunk := source.read(1 << 16):
            total += len(chunk)
            if total > _MAX_ARCHIVE_BYTES:
                raise SuiteUnavailable(f"the suite archive exceeds {_MAX_ARCHIVE_BYTES} bytes")
            out.write(chunk)


def _safe_extract(archive: Path, staging: Path, commit: str) -> Path:
    """Extract regular files and folders of ``archive`` below ``staging``.

    Refuses absolute names, ``..`` components, and an archive whose single top
    folder does not name ``commit``. Links and special files are skipped, never
    created, since the suite needs none and they are the usual escape route.
    Returns the top folder.
    """
    staging.mkdir(parents=True)
    staging_resolved = staging.resolve()
    top: str | None = None
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            name = PurePosixPath(member.name)
            if name.is_absolute() or PureWindowsPath(member.name).drive:
                raise SuiteUnavailable(f"refusing absolute archive member: {member.name!r}")
            if ".." in name.parts or "\\" in member.name:
                raise SuiteUnavailable(
                    f"refusing archive member escaping its folder: {member.name!r}"
                )
            if not name.parts:
                continue
            if top is None:
                top = name.parts[0]
                if commit not in top:
                    raise SuiteUnavailable(
                        f"archive top folder {top!r} does not name commit {commit}"
                    )
            elif name.parts[0] != top:
                raise SuiteUnavailable(f"archive has more than one top folder: {member.name!r}")

            destination = staging.joinpath(*name.parts)
            # Defence in depth: the checks above should make this unreachable.
            if not destination.resolve().is_relative_to(staging_resolved):
                raise SuiteUnavailable(f"refusing archive member outside staging: {member.name!r}")
            if member.isdir():
                destination.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                source = tar.extractfile(member)
                if source is None:
                    raise SuiteUnavailable(f"unreadable archive member: {member.name!r}")
                destination.parent.mkdir(parents=True, exist_ok=True)
                with source, destination.open("wb") as out:
                    shutil.copyfileobj(source, out)
    if top is None:
        raise SuiteUnavailable("the suite archive is empty")
    return staging / top


def load_registry(suite: Path) -> dict[str, Any]:
    """Every JSON document under ``remotes/``, keyed by the URI the suite serves it at
    (``http://localhost:1234/<path relative to remotes/>``)."""
    remotes = suite / "remotes"
    registry: dict[str, Any] = {}
    for path in sorted(remotes.rglob("*.json")):
        relative = path.relative_to(remotes).as_posix()
        with path.open(encoding="utf-8") as handle:
            registry[REMOTES_BASE_URI + relative] = json.load(handle)
    return registry
