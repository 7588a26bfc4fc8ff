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
    """A compiled schema: a bool check, and an error iterator when the peer has one.

    ``native`` is the library's own validator object, for the few measurements that
    need more of its API (:meth:`Peer.raiser`, :meth:`Peer.outputs`); reading those
    happens outside any timing, so compiling costs every peer the same two fields.
    """

    is_valid: Callable[[Any], bool]
    iter_errors: Callable[[Any], Iterable[Any]] | None
    native: Any = None


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
    # What `import` brings the library in (import-time row); empty: nothing to import.
    module: str = ""
    # The hand-written checker has nothing to compile, so compile rows do not apply.
    has_compile: bool = True
    # Whether tracemalloc sees what a compiled validator holds (not a Rust heap).
    traced_memory: bool = True

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

    def raiser(self, compiled: Compiled) -> Callable[[Any], None] | None:
        """The library's own way to raise an error for an invalid instance (its choice
        of which error), or None when it has none."""
        return None

    def outputs(self, compiled: Compiled) -> dict[str, Callable[[Any], Any]]:
        """Standard output formats it can write: format name -> instance -> output."""
        return {}


class SchemaCore(Peer):
    name = "schemacore"
    distribution = "schemacore"
    module = "schemacore"

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
            return Compiled(validator.is_valid, validator.iter_errors, validator)

        return compile

    def raiser(self, compiled: Compiled) -> Callable[[Any], None]:
        return compiled.native.validate  # type: ignore[no-any-return]  # the best error

    def outputs(self, compiled: Compiled) -> dict[str, Callable[[Any], Any]]:
        evaluate = compiled.native.evaluate

        def writer(fmt: str) -> Callable[[Any], Any]:
            return lambda instance: evaluate(instance).output(fmt)

        return {fmt: writer(fmt) for fmt in ("flag", "basic", "list")}


class PythonJsonschema(Peer):
    name = "jsonschema"
    distribution = "jsonschema"
    module = "jsonschema"

    def _load(self) -> None:
        import jsonschema
        import jsonschema.exceptions
        import referencing
        import referencing.jsonschema

        self._cls = jsonschema.Draft202012Validator
        self._best_match = jsonschema.exceptions.best_match
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
            return Compiled(validator.is_valid, validator.iter_errors, validator)

        return compile

    def raiser(self, compiled: Compiled) -> Callable[[Any], None]:
        # What jsonschema.validate() raises: best_match over every error (the
        # validator's own .validate raises the first one it meets instead).
        iter_errors = compiled.native.iter_errors
        best_match = self._best_match

        def validate(instance: Any) -> None:
            error = best_match(iter_errors(instance))
            if error is not None:
                raise error

        return validate


def _refuse_remote(uri: str) -> Any:
    raise LookupError(f"benchmarks never fetch remote schemas ({uri})")


class FastJsonschema(Peer):
    name = "fastjsonschema"
    distribution = "fastjsonschema"
    module = "fastjsonschema"

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
            check = compile_schema(schema, handlers=handlers, use_default=False, use_formats=False)

            def is_valid(instance: Any) -> bool:
                try:
                    check(instance)
                except failure:
                    return False
                return True

            return Compiled(is_valid, None, check)

        return compile

    def raiser(self, compiled: Compiled) -> Callable[[Any], None]:
        return compiled.native  # type: ignore[no-any-return]  # raises the first error


class JsonschemaRs(Peer):
    name = "jsonschema-rs"
    distribution = "jsonschema-rs"
    module = "jsonschema_rs"
    traced_memory = False

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
            return Compiled(validator.is_valid, validator.iter_errors, validator)

        return compile

    def raiser(self, compiled: Compiled) -> Callable[[Any], None]:
        return compiled.native.validate  # type: ignore[no-any-return]  # the first error

    def outputs(self, compiled: Compiled) -> dict[str, Callable[[Any], Any]]:
        # Its evaluate() (newer releases) writes flag, list and hierarchical; no basic.
        evaluate = getattr(compiled.native, "evaluate", None)
        if evaluate is None:
            return {}
        return {"flag": lambda x: evaluate(x).flag(), "list": lambda x: evaluate(x).list()}


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
