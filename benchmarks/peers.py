"""Adapters giving every validator the same shape: ``compile(schema) -> Compiled``.

Each peer is optional. A missing one is reported, never fatal. Each runs in its own
documented mode for Draft 2020-12 with its defaults otherwise (formats as annotations,
no network), except fastjsonschema, which only knows drafts 4 to 7 and therefore runs
only on workloads declared draft-7-compatible; nothing is translated for it.

Adapters return the peers' own bound methods, so the timed loops call the library
directly; the one wrapper is fastjsonschema's, which raises instead of returning a bool.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Compiled", "Compiler", "Peer", "PeerSkipped", "WorkloadInfo", "all_peers"]

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Compiled:
    """A compiled schema: a bool check, and an error iterator when the peer has one."""

    is_valid: Callable[[Any], bool]
    iter_errors: Callable[[Any], Iterable[Any]] | None


Compiler = Callable[[Any], Compiled]


class PeerSkipped(Exception):
    """This peer cannot do this workload's work as specified; the message says why."""


@dataclass(frozen=True)
class WorkloadInfo:
    """What an adapter may know about a workload when preparing for it."""

    name: str
    draft7: bool
    registry: Mapping[str, Any]


class Peer:
    name: str = ""
    distribution: str = ""
    # The hand-written checker has nothing to compile, so compile rows do not apply.
    has_compile: bool = True

    def __init__(self) -> None:
        self.missing: str | None = None
        try:
            self._load()
        except ImportError as exc:
            self.missing = f"not installed ({exc})"

    def _load(self) -> None:
        raise NotImplementedError

    def version(self) -> str:
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return "unknown version"

    def describe(self) -> str:
        return self.version()

    def compiler(self, workload: WorkloadInfo) -> Compiler:
        """Prepare for ``workload`` (registries are built here, outside any timing) and
        return its compile function. Raises :class:`PeerSkipped` when not applicable."""
        raise NotImplementedError


class SchemaCore(Peer):
    name = "schemacore"
    distribution = "schemacore"

    def _load(self) -> None:
        # Prefer this checkout's source over any installed copy: we measure the tree.
        src = REPO_ROOT / "src"
        if (src / "schemacore").is_dir() and str(src) not in sys.path:
            sys.path.insert(0, str(src))
        import schemacore

        self._module = schemacore

    def version(self) -> str:
        return str(getattr(self._module, "__version__", "unknown version"))

    def describe(self) -> str:
        return f"{self.version()} from {Path(self._module.__file__ or '?').parent}"

    def compiler(self, workload: WorkloadInfo) -> Compiler:
        compile_schema = self._module.compile
        registry = dict(workload.registry) or None

        def compile(schema: Any) -> Compiled:
            validator = compile_schema(schema, registry=registry)
            return Compiled(validator.is_valid, validator.iter_errors)

        return compile


class PythonJsonschema(Peer):
    name = "jsonschema"
    distribution = "jsonschema"

    def _load(self) -> None:
        import jsonschema
        import referencing
        import referencing.jsonschema

        self._cls = jsonschema.Draft202012Validator
        self._referencing = referencing
        self._draft = referencing.jsonschema.DRAFT202012

    def describe(self) -> str:
        try:
            referencing = importlib.metadata.version("referencing")
        except importlib.metadata.PackageNotFoundError:
            referencing = "?"
        return f"{self.version()} (referencing {referencing})"

    def compiler(self, workload: WorkloadInfo) -> Compiler:
        cls = self._cls
        kwargs: dict[str, Any] = {}
        if workload.registry:
            ref = self._referencing
            resources = [
                (uri, ref.Resource.from_contents(doc, default_specification=self._draft))
                for uri, doc in workload.registry.items()
            ]
            # The meta-schemas stay available: jsonschema adds them to any registry.
            kwargs["registry"] = ref.Registry().with_resources(resources).crawl()

        def compile(schema: Any) -> Compiled:
            validator = cls(schema, **kwargs)
            return Compiled(validator.is_valid, validator.iter_errors)

        return compile


def _refuse_remote(uri: str) -> Any:
    raise LookupError(f"benchmarks never fetch remote schemas ({uri})")


class FastJsonschema(Peer):
    name = "fastjsonschema"
    distribution = "fastjsonschema"

    def _load(self) -> None:
        import fastjsonschema

        self._module = fastjsonschema

    def compiler(self, workload: WorkloadInfo) -> Compiler:
        if not workload.draft7:
            raise PeerSkipped("draft 7 only, and this workload uses 2020-12-only keywords")
        if workload.registry:
            raise PeerSkipped("this workload needs remote documents")
        compile_schema = self._module.compile
        failure = self._module.JsonSchemaValueException
        handlers = {"http": _refuse_remote, "https": _refuse_remote}

        def compile(schema: Any) -> Compiled:
            # use_default=False: never write defaults into the instance (the others don't);
            # use_formats=False: formats are annotations for everyone. detailed_exceptions
            # stays at its default: turning it off made no measurable difference here, and
            # in 2.22.3 it fails to compile any schema with `const` (KeyError).
            check = compile_schema(
                schema, handlers=handlers, use_default=False, use_formats=False
            )

            def is_valid(instance: Any) -> bool:
                try:
                    check(instance)
                except failure:
                    return False
                return True

            return Compiled(is_valid, None)

        return compile


class JsonschemaRs(Peer):
    name = "jsonschema-rs"
    distribution = "jsonschema-rs"

    def _load(self) -> None:
        import jsonschema_rs

        self._module = jsonschema_rs
        cls = jsonschema_rs.Draft202012Validator
        signature = getattr(cls, "__text_signature__", None) or ""
        try:
            names = set(inspect.signature(cls).parameters)
        except (TypeError, ValueError):
            names = set()
        # Newer releases can refuse network access outright; older ones cannot.
        self._offline = "offline" in names or "offline=" in signature

    def compiler(self, workload: WorkloadInfo) -> Compiler:
        module = self._module
        cls = module.Draft202012Validator
        kwargs: dict[str, Any] = {}
        if self._offline:
            kwargs["offline"] = True
        if workload.registry:
            if not hasattr(module, "Registry"):
                raise PeerSkipped("this version has no Registry for remote documents")
            kwargs["registry"] = module.Registry(
                list(workload.registry.items()), draft=module.Draft202012
            )

        def compile(schema: Any) -> Compiled:
            validator = cls(schema, **kwargs)
            return Compiled(validator.is_valid, validator.iter_errors)

        return compile


class HandWritten(Peer):
    name = "hand-written"
    distribution = ""
    has_compile = False

    def _load(self) -> None:
        from benchmarks.handwritten import check_tool_call

        self._checkers: dict[str, Callable[[Any], bool]] = {"tool-args": check_tool_call}

    def version(self) -> str:
        return "benchmarks/handwritten.py"

    def compiler(self, workload: WorkloadInfo) -> Compiler:
        check = self._checkers.get(workload.name)
        if check is None:
            raise PeerSkipped("written by hand for tool-args only")
        compiled = Compiled(check, None)
        return lambda schema: compiled


def all_peers() -> list[Peer]:
    """Every peer, schemacore first (it is the reference for agreement and ratios)."""
    return [SchemaCore(), PythonJsonschema(), FastJsonschema(), JsonschemaRs(), HandWritten()]
