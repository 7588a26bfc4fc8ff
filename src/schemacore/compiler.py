"""Schema -> tree of closures.

Each schema object compiles to one :class:`Node` holding three products of the same
keyword closures:

* ``valid(x) -> bool``: the fast path. One dictionary lookup on ``type(x)`` picks
  the tuple of checks that can apply to that JSON type (so ``type`` itself costs
  nothing more, and string keywords are never called on numbers); no error objects,
  no paths.
* ``errors(x, instance_path, keyword_path)``: the error path, located and complete.
* ``track(x, evaluated) -> bool``: only for schemas an ``unevaluated*`` keyword can
  see, it also records which properties and items were evaluated.

Nodes are cached by (base URI, pointer, dialect, dynamic scope, tracking), so a
recursive ``$ref`` finds the node that is still being built and calls it through
its attributes once it is filled in (a reference cell). ``$dynamicRef`` is resolved
at compile time: the dynamic scope that matters is reduced to the bindings of each
dynamic anchor name to the outermost resource defining it, which is finite, so every
dynamic reference becomes a static call on a node specialised for that scope.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import replace
from time import perf_counter
from typing import Any

from . import dialects
from .codegen import promote
from .dialect import Dialect, normalise
from .errors import ExecutionFailure, SchemaError, UnsupportedCapability
from .formats.uris import is_uri
from .guard import CallState, CallStates
from .keywords import build_node, shared_leaf
from .keywords.core import compile_boolean
from .keywords.validation import TYPE, one_type
from .model import DeferredReference, Node, Options, SchemaContext
from .resources import Index, Target

__all__ = ["Compiler"]

# Where Node.paths stops counting (far beyond any Limits value that makes sense).
_MANY_PATHS = 1 << 62
# The keywords that make Compiler.node look twice at a schema object: a $schema, an
# identifier of some draft, an unevaluated* keyword.
_MARKERS = frozenset(
    {"$schema", "$id", "id", "unevaluatedProperties", "unevaluatedItems"}
    | {d.identifier for d in dialects.DIALECTS}
)


# What a compiler asks of the pipeline about a reference to the root of a document:
# (root node, its compiler, the dynamic anchor names its documents use) of the
# process-wide compile of a published meta-schema, or None.
Published = Callable[[str, Any], "tuple[Node, Compiler, frozenset[str]] | None"]


class Compiler:
    """Compiles the schemas of one validator, sharing one index and node cache."""

    # Class defaults, set on an instance only when used: most compiles use neither.
    # The lookup of published meta-schema roots (pipeline sets it for the schemas it
    # compiles, never for a meta-schema's own compile), and the compilers of the
    # roots this one's nodes call (written when this one writes its code).
    published: Published | None = None
    _shared: list[Compiler] | None = None
    # The references compiled to fail when reached (defer_unresolved), in the order
    # met, each once however many nodes one keyword compiled to.
    _unresolved: dict[DeferredReference, None] | None = None

    def __init__(
        self,
        options: Options,
        registry: Any,
        loader: Any,
        default: Dialect = dialects.DEFAULT,
    ) -> None:
        self.default = default
        self.registry = registry
        self.loader = loader
        self.index = index = Index(registry, loader, options.limits, self.hint)
        # Both mutated in place as documents are indexed, never replaced.
        self._dynamic_names = index.dynamic_names
        self.options = options
        self._cache: dict[tuple[Any, ...], Node] = {}
        # Whether some edge closes a cycle (a node's ``back`` is not empty).
        self.cycles = False
        # In-place edges between nodes, to find reference loops that never consume
        # the instance (they would recurse forever at validation time).
        self._edges: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
        self._dialects: dict[str, Dialect] = {}
        self._resolving: set[str] = set()
        self.references = 0
        # Generated code: whether it is all written, where writing resumes (see
        # codegen.promote), over which nodes, and who is writing it now.
        self.promoted = False
        self._resume = 0
        self._writing: list[Node] | None = None
        self._write_lock = threading.Lock()
        # Whether some node memoises is_valid answers (see recursion.mark_fan_out).
        self.memoises = False
        # How many schema objects are being compiled, one inside the other.
        self._depth = 0
        # Shared by every closure of this validator (see guard.CallStates); made on
        # first use, as most validators' closures never count or memoise anything.
        self._states: CallStates | None = None
        # Leaf subschemas whose nodes are built when first needed (defer_leaf), and
        # how many: max_subschemas counts them as compiled already.
        self._deferred: deque[tuple[SchemaContext, tuple[str, str], Any]] | None = None
        self._deferred_count = 0
        self._complete_lock = threading.Lock()

    @property
    def states(self) -> CallStates:
        """This validator's call bookkeeping, one per thread (made on first use):
        what compiled code keeps, reading ``.now`` where it runs. Two threads that
        both make it are harmless: only its thread-local values are ever read, and
        every closure that keeps it took it while compiling."""
        states = self._states
        if states is None:
            states = self._states = CallStates()
        return states

    @property
    def state(self) -> CallState:
        """This thread's call bookkeeping, for code running now (never to keep: a
        closure keeps :attr:`states`)."""
        return self.states.now

    # -- dialects -----------------------------------------------------------

    @staticmethod
    def hint(schema_uri: Any, location: str) -> Dialect | None:
        """For the index: the published draft a $schema value names, None for any
        other URI (a custom meta-schema, resolved when compiling)."""
        if not isinstance(schema_uri, str):
            return None  # compiling it reports the error
        found = dialects.known(schema_uri)
        if found is None:
            dialects.refuse_unsupported(schema_uri, location)
        return found

    def dialect_for(self, schema_uri: Any, location: str) -> Dialect:
        """The dialect a ``$schema`` value names, or UnsupportedCapability."""
        if not isinstance(schema_uri, str):
            raise SchemaError("$schema must be a URI string", location=location)
        found = dialects.known(schema_uri)
        if found is not None:
            return found
        dialects.refuse_unsupported(schema_uri, location)
        key = normalise(schema_uri)
        cached = self._dialects.get(key)
        if cached is not None:
            return cached
        if key in self._resolving:
            raise UnsupportedCapability(
                f"the meta-schema {schema_uri!r} is its own dialect through a chain of "
                "custom meta-schemas that ends in no published draft",
                location=location,
            )
        try:
            meta = self.index.resource(key, location, self.default)
        except LookupError:
            raise UnsupportedCapability(
                f"$schema names an unknown dialect {schema_uri!r}: "
                + (
                    "no meta-schema for it was given (in the registry, or in the schema itself)"
                    if is_uri(schema_uri)
                    else "it is not an absolute URI (RFC 3986), as $schema must be"
                ),
                location=location,
            ) from None
        if not isinstance(meta, dict):
            raise UnsupportedCapability(
                f"the meta-schema {schema_uri!r} is not a schema object", location=location
            )
        self._resolving.add(key)
        try:
            parent = meta.get("$schema")
            if isinstance(parent, str) and normalise(parent) != key:
                # A custom meta-schema extends the draft its own $schema names.
                draft = self.dialect_for(parent, location)
            else:
                draft = self._draft_of_vocabularies(meta)
        finally:
            self._resolving.discard(key)
        dialect = self._vocabularies_of(meta, draft, schema_uri, location)
        self._dialects[key] = dialect
        return dialect

    def _draft_of_vocabularies(self, meta: dict[str, Any]) -> Dialect:
        """The draft of a self-describing custom meta-schema: the one whose
        vocabularies it declares, else the default."""
        declared = meta.get("$vocabulary")
        if isinstance(declared, dict):
            for draft in dialects.DIALECTS:
                if set(draft.vocabulary_uris.values()) & set(declared):
                    return draft
        return self.default

    @staticmethod
    def _vocabularies_of(meta: dict[str, Any], draft: Dialect, uri: str, location: str) -> Dialect:
        declared = meta.get("$vocabulary")
        if declared is None or not draft.vocabulary_uris:
            return draft  # no $vocabulary (or a draft without vocabularies)
        if not isinstance(declared, dict):
            raise SchemaError(f"$vocabulary of {uri!r} must be an object", location=location)
        known = set(draft.vocabulary_uris.values())
        active = set()
        for vocabulary, required in declared.items():
            if vocabulary in known:
                active.add(vocabulary)
            elif required is True:
                raise UnsupportedCapability(
                    f"the meta-schema {uri!r} requires the vocabulary {vocabulary!r}, "
                    "which schemacore does not implement",
                    location=location,
                    reason="unsupported-vocabulary",
                )
        return draft.with_vocabularies(frozenset(active))

    def dialect_at(self, target: Target, referrer: Dialect) -> Dialect:
        """The dialect in force at a reference target: its resource's $schema, else
        the dialect it was indexed under (the referrer's, for a document that came
        through this reference)."""
        declared = self.index.declared_schema.get(target.base)
        if declared is not None:
            return self.dialect_for(declared, target.pointer)
        return self.index.indexed_as.get(target.base, referrer)

    # -- nodes --------------------------------------------------------------

    def node(
        self,
        value: Any,
        base: str,
        pointer: str,
        dialect: Dialect,
        scope: tuple[tuple[str, str], ...],
        tracking: bool,
        parent: tuple[Any, ...] | None,
    ) -> Node:
        """Compile (or find) the node for ``value``.

        ``parent`` is the key of the node applying ``value`` in place, if any: it
        records the in-place edge used to detect loops without progress.
        """
        if isinstance(value, dict):
            if not _MARKERS.isdisjoint(value):  # most schema objects have none
                if "$schema" in value:
                    dialect = self.dialect_for(value["$schema"], pointer + "/$schema")
                if dialect.identifier in value and not (dialect.ref_alone and "$ref" in value):
                    # The root of an embedded resource: its own base URI, as indexed
                    # at this position (never looked up by the dict's identity).
                    base, pointer = self.index.locate(base, pointer)
                if not tracking and (
                    ("unevaluatedProperties" in value and "unevaluatedProperties" in dialect.active)
                    or ("unevaluatedItems" in value and "unevaluatedItems" in dialect.active)
                ):
                    # Its own unevaluated* keyword needs its in-place subschemas to track.
                    tracking = True
            # Always: a document loaded later may bring the $dynamicRef that needs it.
            if base in self._dynamic_names:
                scope = self._enter(scope, base)
        elif not isinstance(value, bool):
            # Draft-04 has no boolean schemas, but its additionalItems and
            # additionalProperties take a boolean that means what they do: its
            # meta-schema refuses booleans everywhere else.
            raise SchemaError(
                f"a schema must be an object or a boolean, not {type(value).__name__}",
                location=pointer,
                reason="not-a-schema",
            )
        # A node is keyed by where its schema is (one value may be at several places,
        # and False always is), never by the value's identity. A dialect's identity
        # stands for its table (Dialect.with_vocabularies hands out one per set).
        key = (base, pointer, dialect, scope, tracking)
        if parent is not None:
            self._edges.setdefault(parent, []).append(key)
        node = self._cache.get(key)
        if node is not None:
            return node
        limits = self.options.limits
        if len(self._cache) + self._deferred_count >= limits.max_subschemas:
            raise ExecutionFailure(
                f"the schema needs more than max_subschemas={limits.max_subschemas} "
                "compiled subschemas",
                location=pointer,
                limit="max_subschemas",
                value=limits.max_subschemas,
            )
        node = Node(base, pointer)
        self._cache[key] = node
        if isinstance(value, bool):
            compile_boolean(node, value)
        else:
            context = SchemaContext(self, value, base, pointer, dialect, scope, tracking, key, node)
            node.context = context
            limit = limits.max_reference_depth
            self._depth += 1
            if self._depth > limit:
                raise ExecutionFailure(
                    f"subschemas and the references between them nest deeper than "
                    f"max_reference_depth={limit}",
                    location=pointer,
                    limit="max_reference_depth",
                    value=limit,
                )
            build_node(node, context)
            self._depth -= 1
            # Evaluation paths through the subschemas, cycles cut at their closing
            # edges: what one value can be checked against is at most this many,
            # which spares recursion.check_child_fan_out its work when it is small.
            # Deferred leaves (defer_leaf) are one path each.
            children = node.children
            if children:
                back = node.back
                if back:
                    paths = sum(
                        child.paths for tokens, child in children.items() if tokens not in back
                    )
                else:
                    paths = sum([child.paths for child in children.values()])
                paths += 1 + context.leaves
                node.paths = paths if paths < _MANY_PATHS else _MANY_PATHS
            elif context.leaves:
                node.paths = 1 + context.leaves
        node.ready = True
        return node

    @property
    def nodes(self) -> list[Node]:
        """Every node compiled, in the order compilation started them (the deferred
        leaves built first)."""
        self.complete()
        return list(self._cache.values())

    # -- shared meta-schemas -------------------------------------------------

    def shared_root(self, target: Target, referrer: SchemaContext) -> Node | None:
        """The node a reference from ``referrer`` to ``target`` calls instead of
        compiling it again, when ``target`` is the root of a published meta-schema
        as bundled: its compile, made once per process, behaves exactly as this
        one's would. That holds when the options are the same, the reference need
        not record what it evaluated (``unevaluated*``), no resource on the way binds
        a dynamic anchor name the meta-schema uses (its ``$dynamicRef`` and
        ``$recursiveRef`` then resolve within it, as in its own compile), and it
        comes from another document (a meta-schema compiled here, to track or in a
        scope, keeps its own references to its root: each closes a cycle and counts
        a level). Its nodes count against none of this compile's limits on compiling
        (they were built once, within the same limits); the instance depth is
        carried into its count where it is entered (calls.entered)."""
        published = self.published
        if (
            published is None
            or target.pointer != ""
            or referrer.tracking
            or target.base == referrer.base
        ):
            return None
        found = published(target.base, target.node)
        if found is None:
            return None
        node, compiler, names = found
        if not _compiles_alike(compiler.options, self.options) or any(
            name in names for name, _ in referrer.scope
        ):
            return None
        shared = self._shared
        if shared is None:
            shared = self._shared = []
        if compiler not in shared:
            shared.append(compiler)
        return node

    # -- references to nothing ------------------------------------------------

    def defer_reference(self, record: DeferredReference) -> None:
        """Record a reference compiled to fail the calls that reach it."""
        unresolved = self._unresolved
        if unresolved is None:
            unresolved = self._unresolved = {}
        unresolved[record] = None

    @property
    def deferred_references(self) -> tuple[DeferredReference, ...]:
        """The references :meth:`defer_reference` recorded, in the order met."""
        return tuple(self._unresolved or ())

    # -- deferred leaves ----------------------------------------------------

    def defer_leaf(
        self, ctx: SchemaContext, value: Any, keyword: str, name: str
    ) -> tuple[frozenset[type], Callable[[Any], bool]] | bool:
        """For a member subschema (``keyword``/``name`` of ``ctx``) whose only keyword
        is a single ``type``, if any: its node is built when first needed, and what
        a parent's fast path needs is answered now from what every such leaf
        shares: (the Python types it accepts unchecked, its check), or True for a
        leaf that accepts everything. False: compile it now (``ctx.descend``).

        Nothing about such a leaf can fail later: its one keyword is checked here,
        and it is counted against max_subschemas and max_reference_depth now. The
        error path, evaluation, generated code and the analyses that walk every
        node call :meth:`complete` first."""
        if (
            type(value) is not dict
            or not _MARKERS.isdisjoint(value)
            or not ctx.dialect.compilers.keys().isdisjoint(value)
        ):
            return False
        types = None
        if "type" in value and ctx.dialect.active.get("type") is TYPE:
            types = one_type(value["type"])
            if types is None:
                return False  # a list of names, or a bad one: the node words it
        limits = self.options.limits
        if (
            limits.time_budget is not None
            or ctx.base in self._dynamic_names
            or len(self._cache) + self._deferred_count >= limits.max_subschemas
            or self._depth + 1 > limits.max_reference_depth
        ):
            return False  # a deadline per node, a scope, a limit: the full path
        deferred = self._deferred
        if deferred is None:
            deferred = self._deferred = deque()
        deferred.append((ctx, (keyword, name), value))
        self._deferred_count += 1
        ctx.leaves += 1
        if types is None:
            return True
        shared = shared_leaf(types, ctx.dialect.float_integers)
        return shared[3], shared[0]

    def complete(self, until: float | None = None) -> bool:
        """Build the nodes of the deferred leaves (see defer_leaf), all of them, or
        until ``perf_counter()`` passes ``until`` (resumed by the next call): True
        once every one is built."""
        if self._deferred is None:
            return True
        return self._build_deferred(until)

    def _build_deferred(self, until: float | None) -> bool:
        # The list is dropped only once every node is built: a thread that finds it
        # gone finds them all.
        with self._complete_lock:
            pending = self._deferred
            if pending is None:
                return True  # another thread built them meanwhile
            while pending:
                ctx, tokens, value = pending.popleft()  # in schema order
                self._deferred_count -= 1  # counted already: Compiler.node counts it
                ctx.descend(value, *tokens)
                if until is not None and pending and perf_counter() > until:
                    return False
            self._deferred = None
            return True

    def promote(self) -> None:
        """Replace the closures' is_valid with generated code now, all of it."""
        self.promote_for(None)

    def promote_for(self, seconds: float | None) -> bool:
        """Write generated code for about ``seconds`` (one node may overrun it; all
        of it when None), resuming where the last call stopped. True once all of it
        is written. A thread that finds another writing returns at once."""
        if self.promoted:
            return True
        lock = self._write_lock
        if not lock.acquire(blocking=seconds is None):
            return False
        try:
            if not self.promoted:
                until = None if seconds is None else perf_counter() + seconds
                if self._writing is None:
                    # The deferred leaves first, within the same slice of time; then
                    # the shared meta-schemas' code, which this code binds.
                    if not self.complete(until) or not self._promote_shared(until):
                        return False
                    self._writing = self.nodes
                resume = promote(self._writing, self._resume, until)
                if resume < 0:
                    self.promoted = True
                    self._writing = None
                else:
                    self._resume = resume
            return self.promoted
        finally:
            lock.release()

    def _promote_shared(self, until: float | None) -> bool:
        """Write the code of the shared meta-schema compiles (see shared_root), each
        once per process, within the slice until ``until``: True once all is."""
        for compiler in self._shared or ():
            left = None if until is None else max(0.0, until - perf_counter())
            if not compiler.promote_for(left):
                return False
        return True

    def count_reference(self, location: str) -> None:
        limit = self.options.limits.max_references
        self.references += 1
        if self.references > limit:
            raise ExecutionFailure(
                f"the schema needs more than max_references={limit} compiled references",
                location=location,
                limit="max_references",
                value=limit,
            )

    def _enter(
        self, scope: tuple[tuple[str, str], ...], resource: str
    ) -> tuple[tuple[str, str], ...]:
        """Enter a resource: bind its dynamic anchor names not bound further out."""
        names = self.index.dynamic_names.get(resource)
        if not names:
            return scope
        bound = {name for name, _ in scope}
        new = [(name, resource) for name in names if name not in bound]
        if not new:
            return scope
        return tuple(sorted((*scope, *new)))

    def check_progress(self) -> None:
        """Mark the nodes on reference loops without progress (Node.loop), and raise
        ExecutionFailure if one value could be checked against too many subschemas
        in place.

        A loop that applies schemas in place forever is not refused here: whether
        an instance ever takes it is not known until one does (the loop may sit in
        a branch no instance reaches, as in real schemas that validate fine), so the
        call that takes it fails closed then (calls.enter_loop)."""
        if not self.cycles and self._cache:
            # Without a closing edge no chain can loop, and every in-place edge is a
            # child edge counted in Node.paths, so no value is checked in place
            # against more subschemas than the root's paths: when those are few
            # enough, neither walk below can find anything.
            root = next(iter(self._cache.values()))
            if root.paths <= self.options.limits.max_inplace_applications:
                return
        if self.cycles and _has_cycle(self._edges):
            for number, component in enumerate(_loops(self._edges), 1):
                for key in component:
                    self._cache[key].loop = number
                # Each pass round a loop fails closed at once: the fan-out count
                # below counts the schemas of a loop once, without its loop edges.
                members = set(component)
                for key in component:
                    self._edges[key] = [c for c in self._edges.get(key, ()) if c not in members]
        self._check_fan_out()

    def _check_fan_out(self) -> None:
        """Bound how many subschemas one value can be applied to in place.

        References can share subschemas, so a handful of definitions that each apply
        the next one twice make an exponential number of applications to the same
        value; count them through the (now known to be acyclic) in-place edges.
        """
        limit = self.options.limits.max_inplace_applications
        count: dict[tuple[Any, ...], int] = {}
        for start in self._edges:
            if start in count:
                continue
            stack = [start]
            while stack:
                current = stack[-1]
                pending = [c for c in self._edges.get(current, ()) if c not in count]
                if pending:
                    stack.extend(pending)
                    continue
                stack.pop()
                if current in count:
                    continue
                total = 1 + sum(count[c] for c in self._edges.get(current, ()))
                count[current] = total
                if total > limit:
                    raise ExecutionFailure(
                        f"a value could be checked against more than "
                        f"max_inplace_applications={limit} subschemas in place (references "
                        "that apply shared subschemas several times multiply)",
                        location=current[1],  # the key's pointer
                        limit="max_inplace_applications",
                        value=limit,
                    )


def _compiles_alike(shared: Options, own: Options) -> bool:
    """Whether a published meta-schema compiled under ``shared`` is what a compile
    under ``own`` would make of it: the same options, but for defer_unresolved,
    which changes nothing where every reference resolves."""
    return shared == own or (
        own.defer_unresolved and shared == replace(own, defer_unresolved=False)
    )


Key = tuple[Any, ...]


def _has_cycle(edges: dict[Key, list[Key]]) -> bool:
    """Whether the in-place edges hold a cycle (a colouring walk; most schemas with
    references have none, and then the components need not be found)."""
    grey, black = 1, 2
    colour: dict[Key, int] = {}
    for start in edges:
        if start in colour:
            continue
        colour[start] = grey
        stack = [(start, iter(edges.get(start, ())))]
        while stack:
            current, children = stack[-1]
            for child in children:
                state = colour.get(child)
                if state == grey:
                    return True
                if state is None:
                    colour[child] = grey
                    stack.append((child, iter(edges.get(child, ()))))
                    break
            else:
                colour[current] = black
                stack.pop()
    return False


def _loops(edges: dict[Key, list[Key]]) -> list[list[Key]]:
    """The strongly connected components of the in-place edges that hold a cycle
    (iterative Tarjan: schemas are deep)."""
    index: dict[Key, int] = {}
    low: dict[Key, int] = {}
    on_stack: set[Key] = set()
    stack: list[Key] = []
    found: list[list[Key]] = []
    for root in list(edges):
        if root in index:
            continue
        work: list[tuple[Key, Iterator[Key]]] = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    found.append(component)
    return found
