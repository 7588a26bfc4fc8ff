"""The documents a schema file's ``$ref``s name, read from local files only.

``schemacore validate`` compiles a schema file with a registry (:class:`FileDocuments`)
that holds, lazily, the documents of local files:

- a schema without an ``$id`` that refers to another document by a relative
  reference has its file's location as base URI (a ``file://`` URI of its absolute,
  resolved path; the working directory for standard input), so
  ``"$ref": "defs.json#/$defs/x"`` names ``defs.json`` beside it;
- the folder of a schema's absolute ``$id`` (``https://example.com/schemas/`` for
  ``https://example.com/schemas/root.json``) is read from the schema file's folder,
  and so is the URI prefix ``--base-uri`` names;
- a ``file://`` URI names that file.

Any other URI is not in the registry: the engine finds no document there, as
without it, and nothing is fetched. A file is read only inside the allowed roots (the
working directory and the schema's folder, or the ``--ref-root`` folders), checked
after ``..`` and symlinks are resolved; it is parsed by the readers (and under the
limits) of the schema file itself, and read once per run. The registry pickles with
what it has read, so a ``--jobs`` worker compiling the schema again sees the same
documents without reading a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from urllib.request import url2pathname

from .. import dialects
from ..dialect import Dialect
from ..uri import URI, join, split_fragment
from .documents import JSON, LINES, STDIN, InputError, format_of, parse, read_bytes

__all__ = [
    "FileDocuments",
    "Prepared",
    "ReferenceFileError",
    "folder_of",
    "prepare",
    "rebase",
    "refers_relatively",
]

# The keywords whose value is a reference to a schema.
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")


class ReferenceFileError(Exception):
    """A referenced file that is not read: outside the allowed roots, unreadable,
    not a JSON value. The message names the reference and the file, and the flag
    that would allow it where one would."""


class FileDocuments(Mapping[str, Any]):
    """A lazy registry for ``schemacore.compile``: an absolute URI -> the JSON value
    of the local file it names, read when the engine first asks.

    ``mappings`` are (URI prefix, folder) pairs: a URI under a prefix names the file
    at the rest of its path in that folder; a ``file://`` URI names its own file.
    ``roots`` are the folders (resolved) files may be read from. ``known`` seeds it:
    URI -> document; ``files`` resolved path -> document (the schema file itself,
    not read again).

    ``uri in registry`` reads the file (once); a URI naming no file (every URI when
    ``enabled`` is False) is not in it, and the last one asked is ``missing``, for
    the caller to say why when the engine finds nothing there. A file refused
    (outside the roots, unreadable, not JSON) raises :class:`ReferenceFileError`,
    which passes through the engine to the caller.
    """

    __slots__ = ("_by_uri", "_enabled", "_files", "_mappings", "_roots", "missing")

    def __init__(
        self,
        mappings: Sequence[tuple[str, Path]],
        roots: Sequence[Path],
        *,
        enabled: bool = True,
        known: Mapping[str, Any] | None = None,
        files: Mapping[Path, Any] | None = None,
    ) -> None:
        self._enabled = enabled
        self.missing: str | None = None
        # The longest prefix first: a --base-uri inside an $id's folder wins.
        self._mappings = tuple(sorted(((_normal(p), f) for p, f in mappings), key=_longest))
        self._roots = tuple(roots)
        # Each URI answered, and each file read: a file is parsed once whatever
        # URIs name it.
        self._by_uri: dict[str, Any] = dict(known or {})
        self._files: dict[Path, Any] = dict(files or {})

    def __bool__(self) -> bool:
        # Never empty to the engine (which reads ``registry or {}``): it holds
        # every file it has yet to read.
        return True

    def __contains__(self, uri: object) -> bool:
        if not isinstance(uri, str):
            return False
        if uri in self._by_uri:
            return True
        path = self._path(uri) if self._enabled else None
        value = _ABSENT if path is None else self._read(uri, path)
        if value is _ABSENT:
            # The engine asks for "uri" and then "uri#": the document is the same.
            # A file that is not there is a document that is not there (which
            # --defer-unresolved may defer); one that cannot be read is an error.
            self.missing = split_fragment(uri)[0]
            return False
        self._by_uri[uri] = value
        return True

    def why_missing(self, uri: str) -> str:
        """Why ``uri`` (one not in the registry) names no document, and the flag
        that would read it from a file where one would."""
        if not self._enabled:
            return "file references are off (--no-file-refs)"
        path = self._path(uri)
        if path is not None:
            return f"there is no file {os.path.realpath(path)}"
        folder = folder_of(uri)
        if folder is None:
            return "it names no local file, and nothing is fetched from the network"
        rest = unquote(_normal(uri)[len(_normal(folder)) :]) or "a file"
        return (
            "no local file is mapped to it, and nothing is fetched from the network; "
            f"to read it from the schema's folder (as {rest}), pass --base-uri {folder}"
        )

    def __getitem__(self, uri: str) -> Any:
        if uri not in self:
            raise KeyError(uri)
        return self._by_uri[uri]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._by_uri))

    def __len__(self) -> int:
        return len(self._by_uri)

    def _path(self, uri: str) -> Path | None:
        """The file ``uri`` names, before ``..`` and symlinks are resolved; None
        when it names none (no mapping, not a ``file://`` URI)."""
        head, _ = split_fragment(uri)
        parts = URI.parse(head)
        normal = _normal(head)
        for prefix, folder in self._mappings:
            if normal.startswith(prefix):
                self._plain(uri, parts)
                # Split before decoding: an encoded "/" (%2F) stays inside one name,
                # and no name can make the path absolute. ".." is left for the
                # containment check, which sees the resolved path.
                names = [unquote(name) for name in normal[len(prefix) :].split("/")]
                return folder.joinpath(*names)
        if parts.scheme is not None and parts.scheme.lower() == "file":
            self._plain(uri, parts)
            if parts.authority not in (None, "", "localhost"):
                raise _refused(uri, "it names a file on another host")
            return Path(url2pathname(parts.path))
        return None

    @staticmethod
    def _plain(uri: str, parts: URI) -> None:
        if parts.query is not None:
            raise _refused(uri, "a URI with a query names no file")

    def _read(self, uri: str, path: Path) -> Any:
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError) as exc:  # a NUL (%00) in the path
            raise _refused(uri, f"it names no file that can be read ({exc})") from None
        if real in self._files:
            return self._files[real]
        # is_relative_to compares whole names: /data2 is not inside /data.
        if not any(real.is_relative_to(root) for root in self._roots):
            allowed = ", ".join(str(root) for root in self._roots)
            raise _refused(
                uri,
                f"{real} is outside the folders referenced files are read from "
                f"({allowed}); allow its folder with --ref-root DIR",
            )
        if not real.exists():
            return _ABSENT
        fmt = format_of(str(real))
        try:
            value = parse(str(real), read_bytes(str(real)), JSON if fmt == LINES else fmt).value
        except InputError as exc:
            raise _refused(uri, str(exc)) from None
        self._files[real] = value
        return value


class _Absent:
    """A file a reference names that is not there."""


_ABSENT: Any = _Absent()


def _longest(mapping: tuple[str, Path]) -> int:
    return -len(mapping[0])


def _refused(uri: str, why: str) -> ReferenceFileError:
    return ReferenceFileError(f"cannot resolve reference {uri!r}: {why}")


def _normal(uri: str) -> str:
    """``uri`` with its scheme and authority in lower case (they are not case
    sensitive; the path is)."""
    parts = URI.parse(uri)
    if parts.scheme is None:
        return uri
    authority = parts.authority.lower() if parts.authority is not None else None
    return parts._replace(scheme=parts.scheme.lower(), authority=authority).unparse()


def folder_of(uri: str) -> str | None:
    """The folder URI of an absolute hierarchical URI (``https://h/a/b.json`` ->
    ``https://h/a/``), None for one without folders (``urn:...``) or a relative one."""
    parts = URI.parse(split_fragment(uri)[0])
    if parts.scheme is None or (parts.authority is None and not parts.path.startswith("/")):
        return None
    head = parts.path.rpartition("/")[0]
    return URI(parts.scheme, parts.authority, head + "/", None, None).unparse()


@dataclass(frozen=True, slots=True)
class Prepared:
    """What to compile a schema file as: the schema (a copy when its base had to be
    written into it) and the registry of the documents it may reference."""

    schema: Any
    registry: FileDocuments


def prepare(
    schema: Any,
    name: str,
    *,
    base_uri: str | None = None,
    ref_roots: Sequence[Path] = (),
    file_refs: bool = True,
    default_dialect: str | None = None,
) -> Prepared:
    """The schema read from the file ``name`` ('-': standard input), and a registry
    reading the files it references (see the module).

    ``base_uri`` is a URI prefix read from the schema's folder, besides its
    ``$id``'s folder; ``ref_roots`` replace the default allowed roots (the working
    directory and the schema's folder); ``file_refs`` False leaves the schema as it
    is, with a registry that reads nothing: only what it holds (and the bundled
    meta-schemas) resolves.
    """
    base, folder = _location(name)
    if not file_refs:
        return Prepared(schema, FileDocuments((), (), enabled=False))
    rebased, own, id_folder = rebase(schema, base, default_dialect)
    if not refers_relatively(schema):
        # Nothing to resolve against the file: the schema compiles as written, and
        # its output (absoluteKeywordLocation) is what it always was.
        rebased, own = schema, {}
    mappings = [(prefix, folder) for prefix in (id_folder, base_uri) if prefix is not None]
    # dict.fromkeys: each root once (the working directory is often the folder).
    roots = list(dict.fromkeys(ref_roots or (Path.cwd().resolve(), folder)))
    # The schema file is not read again when something names it by its path.
    files = {Path(os.path.realpath(name)): schema} if name != STDIN else {}
    return Prepared(rebased, FileDocuments(mappings, roots, known=own, files=files))


def refers_relatively(schema: Any) -> bool:
    """Whether some reference in ``schema`` is relative and names more than a
    fragment (``defs.json#/$defs/x``, not ``#/$defs/x``): one that needs a base URI
    to name a document. Data keywords are walked too: a false alarm only gives the
    schema its file's base URI."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for keyword in _REFERENCES:
                value = node.get(keyword)
                if (
                    isinstance(value, str)
                    and not value.startswith("#")
                    and URI.parse(value).scheme is None
                ):
                    return True
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return False


def rebase(
    schema: Any, base: str, default_dialect: str | None
) -> tuple[Any, dict[str, Any], str | None]:
    """``schema`` based at ``base`` (its file's URI) as the engine would take a
    retrieval URI, without changing what it means: (the schema, documents to
    register, the folder URI of its absolute ``$id`` or None).

    The engine reads a root's base from its ``$id`` (draft-04: ``id``) alone, so the
    file's URI is written there when there is none, and a relative one is resolved
    against it. Before 2019-09 an identifier beside ``$ref`` is ignored: there the
    root's ``$ref`` is resolved against the file's URI instead, and the schema is
    registered under that URI for the reference to find it.
    """
    if not isinstance(schema, dict):
        return schema, {}, None
    dialect = _dialect(schema, default_dialect)
    declared = schema.get(dialect.identifier)
    id_folder = folder_of(declared) if isinstance(declared, str) else None
    if dialect.ref_alone and "$ref" in schema:
        reference = schema["$ref"]
        if not isinstance(reference, str):
            return schema, {}, id_folder  # the meta-schema check reports it
        return {**schema, "$ref": join(base, reference)}, {base: schema}, id_folder
    if declared is None:
        return {**schema, dialect.identifier: base}, {}, None
    if not isinstance(declared, str) or URI.parse(declared).scheme is not None:
        return schema, {}, id_folder
    if split_fragment(declared)[1] and not dialect.ref_alone:
        return schema, {}, None  # no identifier at all: the engine says why
    # A relative identifier (before 2019-09 "#name" too: a plain-name anchor).
    return {**schema, dialect.identifier: join(base, declared)}, {}, None


def _dialect(schema: dict[str, Any], default_dialect: str | None) -> Dialect:
    """The published draft whose identifier keyword the engine reads at the root of
    ``schema``. A custom meta-schema as the default counts as 2020-12: its draft is
    known only once the engine has resolved it."""
    declared = schema.get("$schema")
    found = dialects.known(declared) if isinstance(declared, str) else None
    if found is None and default_dialect is not None:
        found = dialects.by_name(default_dialect)
    return found or dialects.DEFAULT


def _location(name: str) -> tuple[str, Path]:
    """The base URI and the folder of the schema file ``name`` (the working
    directory for standard input), both resolved."""
    if name == STDIN:
        folder = Path.cwd().resolve()
        return folder.as_uri() + "/", folder
    path = Path(name).resolve()
    return path.as_uri(), path.parent
