"""Applicator vocabulary: keywords that apply subschemas.

In-place applicators (``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/
``else``, ``dependentSchemas``) apply to the same instance and, when the node tracks
evaluation for ``unevaluated*``, pass evaluated locations up from the branches that
passed. Child applicators (``properties``, ``items``, ...) apply to members and
record which members they evaluated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from itertools import islice
from time import monotonic
from typing import Any

from ..calls import call_errors, call_track, call_valid, passing
from ..display import show
from ..emit import Writer, branch_test, callable_of, closed, edge, emit_body, emit_child
from ..errors import ExecutionFailure, ValidationError
from ..guard import non_string_key, too_deep
from ..model import (
    Evaluated,
    Keyword,
    Node,
    SchemaContext,
    leftover_errors,
    locate,
    make_error,
)
from ..paths import Path
from ..spec import Marks, Reach, Role, Shape, Spec
from ..units import Steps, Unit, Walker, drop_annotations, first_message, join
from .core import pattern_search
from .dispatch import discriminator
from .validation import compile_dependent_required, whole

__all__ = [
    "ADDITIONAL_PROPERTIES",
    "ALL_OF",
    "ANY_OF",
    "CONTAINS",
    "DEPENDENCIES",
    "DEPENDENT_SCHEMAS",
    "ELSE",
    "IF",
    "ITEMS",
    "MAX_CONTAINS",
    "MIN_CONTAINS",
    "NOT",
    "ONE_OF",
    "PATTERN_PROPERTIES",
    "PREFIX_ITEMS",
    "PROPERTIES",
    "PROPERTY_NAMES",
    "THEN",
    "indexed_items",
    "pattern_searches",
    "rest_items",
    "string_key",
    "unmatched_keys",
    "walk_indexed_items",
    "walk_rest_items",
]

ValidFn = Callable[[Any], bool]


def pattern_searches(ctx: SchemaContext, patterns: Any, keyword: str) -> list[Any]:
    """Compile the regular expressions that are the keys of ``patternProperties``."""
    return [pattern_search(ctx, pattern, keyword, pattern) for pattern in patterns]


def string_key(key: Any) -> None:
    """Raise for a key that is not a string (str subclasses are fine)."""
    if not isinstance(key, str):
        raise non_string_key(key)


def unmatched_keys(x: Any, names: frozenset[str], searches: list[Any]) -> Iterator[str]:
    """The keys of ``x`` that neither ``names`` nor any pattern search covers."""
    for key in x:
        if key in names:
            continue
        if type(key) is not str:
            string_key(key)
        for search in searches:
            if search(key):
                break
        else:
            yield key


def _mapping(ctx: SchemaContext, value: Any, keyword: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ctx.schema_error(f"{keyword} must be an object of schemas", keyword)
    return value


def _schema_list(ctx: SchemaContext, value: Any, keyword: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise ctx.schema_error(f"{keyword} must be a non-empty array of schemas", keyword)
    return value


# -- object members --------------------------------------------------------------


def compile_properties(ctx: SchemaContext, value: Any) -> Keyword | None:
    mapping = _mapping(ctx, value, "properties")
    # Per member: the Python types its subschema accepts without a check (a leaf's
    # "type"), answered in line, and its check, called for any other value. A leaf's
    # node is built when first needed (Compiler.defer_leaf), most never are.
    plan: dict[str, tuple[frozenset[type], Callable[[Any], bool]]] = {}
    defer = ctx.compiler.defer_leaf
    compiled = ctx.dialect.compilers.keys()
    deferred = False
    for name, sub in mapping.items():
        # A subschema with a keyword to compile is no leaf: asked here, no call.
        leaf = (
            defer(ctx, sub, "properties", name)
            if type(sub) is dict and compiled.isdisjoint(sub)
            else False
        )
        if leaf is False:
            node = ctx.descend(sub, "properties", name)
            if not node.trivial:
                plan[name] = (passing(node), call_valid(node))
        else:
            deferred = True
            if leaf is not True:
                plan[name] = leaf
    if not plan and not ctx.tracking:
        return None
    planned = tuple(plan.items())
    count = len(planned)

    def valid(x: Any) -> bool:
        if len(x) < count:
            for key, member in x.items():
                entry = plan.get(key)
                if entry is not None and type(member) not in entry[0] and not entry[1](member):
                    return False
        else:
            for key, (passes, check) in planned:
                if key in x and type(x[key]) not in passes and not check(x[key]):
                    return False
        return True

    # Names and error functions side by side rather than a pair per property: fewer
    # objects to keep. With deferred leaves, the functions are bound on first use.
    error_names = tuple(mapping)
    error_fns: list[Any] = (
        [] if deferred else [call_errors(ctx.children[("properties", name)]) for name in mapping]
    )

    def bind() -> list[Any]:
        ctx.compiler.complete()
        error_fns[:] = [call_errors(ctx.children[("properties", name)]) for name in error_names]
        return error_fns

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        here = (kpath, "properties")
        for key, child_errors in zip(error_names, error_fns or bind(), strict=True):
            if key in x:
                yield from child_errors(x[key], (ipath, key), (here, key))

    track = None
    if ctx.tracking:
        names = frozenset(mapping)

        def track(x: Any, acc: Evaluated) -> bool:
            # Mark first, so that the error path sees these names as evaluated even
            # when one of them fails; then the loop of valid(), inlined to save a frame.
            acc.props.update(names.intersection(x))
            for key, (_, check) in planned:
                if key in x and not check(x[key]):
                    return False
            return True

    return Keyword("properties", "object", valid, errors, track, cost=40)


def compile_pattern_properties(ctx: SchemaContext, value: Any) -> Keyword | None:
    mapping = _mapping(ctx, value, "patternProperties")
    searches = pattern_searches(ctx, mapping, "patternProperties")
    children = [ctx.descend(sub, "patternProperties", pattern) for pattern, sub in mapping.items()]
    checks = tuple(zip(searches, [call_valid(c) for c in children], strict=True))

    def valid(x: Any) -> bool:
        for key, member in x.items():
            if type(key) is not str:
                string_key(key)
            for search, check in checks:
                if search(key) and not check(member):
                    return False
        return True

    error_triples = tuple(
        zip(searches, list(mapping), [call_errors(c) for c in children], strict=True)
    )

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        here = (kpath, "patternProperties")
        for key, member in x.items():
            if type(key) is not str:
                string_key(key)
            for search, pattern, child_errors in error_triples:
                if search(key):
                    yield from child_errors(member, (ipath, key), (here, pattern))

    track = None
    if ctx.tracking:

        def track(x: Any, acc: Evaluated) -> bool:
            for key in x:
                if type(key) is not str:
                    string_key(key)
                for search in searches:
                    if search(key):
                        acc.props.add(key)
                        break
            return valid(x)

    return Keyword("patternProperties", "object", valid, errors, track, cost=60)


def compile_additional_properties(ctx: SchemaContext, value: Any) -> Keyword | None:
    known: frozenset[str] = frozenset()
    searches: list[Any] = []
    if ctx.active("properties") and isinstance(ctx.schema["properties"], dict):
        known = frozenset(ctx.schema["properties"])
    if ctx.active("patternProperties") and isinstance(ctx.schema["patternProperties"], dict):
        searches = pattern_searches(ctx, ctx.schema["patternProperties"], "patternProperties")
    child = ctx.descend(value, "additionalProperties")
    if child.trivial and not ctx.tracking:
        return None
    check = call_valid(child)
    child_errors = call_errors(child)
    forbidden = value is False

    if forbidden and not searches:

        def valid(x: Any) -> bool:
            if known.issuperset(x):
                return True
            for key in x:
                if type(key) is not str:
                    string_key(key)
            return False

    elif forbidden:

        def valid(x: Any) -> bool:
            for _ in unmatched_keys(x, known, searches):
                return False
            return True

    else:

        def valid(x: Any) -> bool:
            for key in unmatched_keys(x, known, searches):
                if not check(x[key]):
                    return False
            return True

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        extra = list(unmatched_keys(x, known, searches))
        return leftover_errors(
            "additionalProperties", value, x, extra, child_errors, ipath, kpath, ctx
        )

    track = None
    if ctx.tracking:

        def track(x: Any, acc: Evaluated) -> bool:
            acc.all_props = True
            return valid(x)

    return Keyword("additionalProperties", "object", valid, errors, track, cost=45)


def compile_property_names(ctx: SchemaContext, value: Any) -> Keyword | None:
    child = ctx.descend(value, "propertyNames")
    if child.trivial:
        return None
    check = call_valid(child)
    child_errors = call_errors(child)

    def valid(x: Any) -> bool:
        for key in x:
            if type(key) is not str:
                string_key(key)
            if not check(key):
                return False
        return True

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        here = (kpath, "propertyNames")
        for key in x:
            if type(key) is not str:
                string_key(key)
            # The name is the instance; it lives at the object's location.
            yield from child_errors(key, ipath, here)

    return Keyword("propertyNames", "object", valid, errors, cost=55)


def compile_dependent_schemas(
    ctx: SchemaContext, value: Any, keyword: str = "dependentSchemas"
) -> Keyword | None:
    mapping = _mapping(ctx, value, keyword)
    nodes = {name: ctx.inplace(sub, keyword, name) for name, sub in mapping.items()}
    checks = tuple((name, call_valid(n)) for name, n in nodes.items() if not n.trivial)
    if not checks and not ctx.tracking:
        return None
    error_pairs = tuple((name, call_errors(n)) for name, n in nodes.items())

    def valid(x: Any) -> bool:
        for name, check in checks:
            if name in x and not check(x):
                return False
        return True

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        here = (kpath, keyword)
        for name, node_errors in error_pairs:
            if name in x:
                yield from node_errors(x, ipath, (here, name))

    track = None
    if ctx.tracking:
        trackers = tuple((name, call_track(n)) for name, n in nodes.items())

        def track(x: Any, acc: Evaluated) -> bool:
            ok = True
            for name, tracker in trackers:
                if name in x and not tracker(x, acc):
                    ok = False
            return ok

    return Keyword(keyword, "object", valid, errors, track, cost=70)


def compile_dependencies(ctx: SchemaContext, value: Any) -> Keyword | None:
    """Draft 7's ``dependencies``, still reserved by the 2020-12 meta-schema.

    Schemas written for older drafts keep using it; ignoring it would silently
    loosen them, so each entry acts as ``dependentRequired`` (an array of names) or
    ``dependentSchemas`` (a schema), as it did.
    """
    mapping = _mapping(ctx, value, "dependencies")
    names = {k: v for k, v in mapping.items() if isinstance(v, list)}
    schemas = {k: v for k, v in mapping.items() if not isinstance(v, list)}
    parts = []
    if names:
        parts.append(compile_dependent_required(ctx, names, "dependencies"))
    if schemas:
        parts.append(compile_dependent_schemas(ctx, schemas, "dependencies"))
    kept = [part for part in parts if part is not None]
    if not kept:
        return None
    if len(kept) == 1:
        return kept[0]
    first, second = kept

    def valid(x: Any) -> bool:
        return first.valid(x) and second.valid(x)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        yield from first.errors(x, ipath, kpath)
        yield from second.errors(x, ipath, kpath)

    track = None
    if second.track is not None:
        second_track = second.track

        def track(x: Any, acc: Evaluated) -> bool:
            return first.valid(x) and second_track(x, acc)

    return Keyword("dependencies", "object", valid, errors, track, cost=70)


# -- array items -----------------------------------------------------------------


def compile_prefix_items(ctx: SchemaContext, value: Any) -> Keyword | None:
    return indexed_items(ctx, value, "prefixItems")


def indexed_items(ctx: SchemaContext, value: Any, keyword: str) -> Keyword:
    """An array of subschemas, one per item from the first (``prefixItems``, and
    ``items`` in its array form before 2020-12)."""
    nodes = [
        ctx.descend(sub, keyword, i) for i, sub in enumerate(_schema_list(ctx, value, keyword))
    ]
    checks = tuple(call_valid(n) for n in nodes)
    error_fns = tuple(call_errors(n) for n in nodes)
    size = len(nodes)

    def valid(x: Any) -> bool:
        for check, item in zip(checks, x):  # noqa: B905 - shorter of the two on purpose
            if not check(item):
                return False
        return True

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        here = (kpath, keyword)
        for index, (node_errors, item) in enumerate(zip(error_fns, x)):  # noqa: B905
            yield from node_errors(item, (ipath, index), (here, index))

    track = None
    if ctx.tracking:

        def track(x: Any, acc: Evaluated) -> bool:
            reached = min(size, len(x))
            if reached > acc.prefix:
                acc.prefix = reached
            return valid(x)

    return Keyword(keyword, "array", valid, errors, track, cost=40)


def compile_items(ctx: SchemaContext, value: Any) -> Keyword | None:
    start = 0
    if ctx.active("prefixItems") and isinstance(ctx.schema["prefixItems"], list):
        start = len(ctx.schema["prefixItems"])
    return rest_items(ctx, value, "items", start)


def rest_items(ctx: SchemaContext, value: Any, keyword: str, start: int) -> Keyword | None:
    """One subschema for every item from ``start`` on (``items``, and
    ``additionalItems`` before 2020-12)."""
    child = ctx.descend(value, keyword)
    if child.trivial and not ctx.tracking:
        return None
    check = call_valid(child)
    child_errors = call_errors(child)
    # Items of a type the subschema accepts without a check are answered in line.
    passes = passing(child)

    if start:

        def valid(x: Any) -> bool:
            for item in islice(x, start, None):
                if type(item) not in passes and not check(item):
                    return False
            return True

    else:

        def valid(x: Any) -> bool:
            for item in x:
                if type(item) not in passes and not check(item):
                    return False
            return True

    if child.ready:

        def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
            # A finished child's error path begins with its check anyway: checking
            # here spares the valid items (nearly all, when one item at the end is
            # wrong) a path and a generator each. Read now, as its error path does:
            # generated code may have replaced the closure. A failure is left to
            # the error path, which raises it located.
            here = (kpath, keyword)
            item_valid = child.valid
            for index in range(start, len(x)):
                item = x[index]
                try:
                    if item_valid(item):
                        continue
                except ExecutionFailure:
                    pass
                yield from child_errors(item, (ipath, index), here)

    else:

        def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
            # Through an edge closing a cycle, each application is counted where it
            # happens (calls.recursion): every item takes the error path.
            here = (kpath, keyword)
            for index in range(start, len(x)):
                yield from child_errors(x[index], (ipath, index), here)

    track = None
    if ctx.tracking:

        def track(x: Any, acc: Evaluated) -> bool:
            acc.all_items = True
            return valid(x)

    return Keyword(keyword, "array", valid, errors, track, cost=45)


def _count(ctx: SchemaContext, keyword: str) -> int | None:
    if not ctx.active(keyword):
        return None
    value = whole(ctx.schema[keyword])
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ctx.schema_error(f"{keyword} must be a non-negative integer", keyword)
    return value


def compile_contains(ctx: SchemaContext, value: Any) -> Keyword | None:
    child = ctx.descend(value, "contains")
    check = call_valid(child)
    child_errors = call_errors(child)
    low = _count(ctx, "minContains")
    high = _count(ctx, "maxContains")
    minimum = 1 if low is None else low

    def matches(x: Any) -> int:
        found = 0
        for item in x:
            if check(item):
                found += 1
        return found

    if high is None:

        def valid(x: Any) -> bool:
            if minimum == 0:
                return True
            found = 0
            for item in x:
                if check(item):
                    found += 1
                    if found >= minimum:
                        return True
            return False

    else:

        def valid(x: Any) -> bool:
            return minimum <= matches(x) <= high

    def located_matches(x: Any, ipath: Path, kpath: Path, enough: float) -> int:
        # matches(), stopping once ``enough`` items matched, with a failure on an
        # item located where the item is.
        found = 0
        for index, item in enumerate(x):
            try:
                hit = check(item)
            except ExecutionFailure as exc:
                raise locate(exc, child_errors, item, (ipath, index), (kpath, "contains")) from None
            if hit:
                found += 1
                if found >= enough:
                    break
        return found

    states = ctx.compiler.states
    budget = ctx.options.limits.time_budget

    def item_errors(x: Any, ipath: Path, kpath: Path) -> Callable[[], tuple[ValidationError, ...]]:
        """The errors of every item, written when the context is first read: the
        first error of a million-item array must not wait for a million reports."""
        state = states.now
        depth = state.depth
        reads = state.reads
        if reads is None:
            reads = state.reads = {"open": True}

        def write() -> tuple[ValidationError, ...]:
            # Read at this error's depth, with no remembered answers (the instance may
            # have changed since), a time budget for all the contexts of the report
            # and, once the call is over, its count of repeated applications; the
            # caller's state is put back.
            state = states.now  # the thread reading it
            saved = (state.depth, state.deadline, state.memo, state.applied, state.repeats)
            state.depth, state.memo = depth, None
            started = monotonic()
            if budget is not None:
                # The contexts of one report share one more time budget.
                state.deadline = started + budget - reads.get("spent", 0.0)
            after_call = not reads["open"]
            if after_call:
                state.applied, state.repeats = reads["applied"], reads["repeats"]
            try:
                here = (kpath, "contains")
                return tuple(
                    error
                    for index, item in enumerate(x)
                    for error in child_errors(item, (ipath, index), here)
                )
            finally:
                reads["spent"] = reads.get("spent", 0.0) + monotonic() - started
                if after_call:
                    reads.update(applied=state.applied, repeats=state.repeats)
                    state.applied, state.repeats = saved[3], saved[4]
                # (Within the call, the repeats counted here are the call's.)
                state.depth, state.deadline, state.memo = saved[:3]

        return write

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        # Without maxContains, counting stops where valid() would.
        found = located_matches(x, ipath, kpath, minimum if high is None else math.inf)
        if found < minimum:
            if low is None:
                yield ValidationError._at(
                    "the array contains no item that matches the contains schema",
                    "contains",
                    ipath,
                    (kpath, "contains"),
                    ctx.location("contains"),
                    x,
                    item_errors(x, ipath, kpath),
                    {"matched": 0},
                )
            else:
                yield make_error(
                    f"the array contains {found} matching item(s), fewer than minContains "
                    f"{show(minimum)}",
                    "minContains",
                    x,
                    ipath,
                    (kpath, "minContains"),
                    ctx.location("minContains"),
                    params={"minContains": minimum, "matched": found},
                )
        if high is not None and found > high:
            yield make_error(
                f"the array contains {found} matching items, more than maxContains {show(high)}",
                "maxContains",
                x,
                ipath,
                (kpath, "maxContains"),
                ctx.location("maxContains"),
                params={"maxContains": high, "matched": found},
            )

    track = None
    if ctx.tracking:

        def track(x: Any, acc: Evaluated) -> bool:
            found = 0
            for index, item in enumerate(x):
                if check(item):
                    found += 1
                    acc.items.add(index)
            return minimum <= found and (high is None or found <= high)

    return Keyword("contains", "array", valid, errors, track, cost=60)


# -- in place ----------------------------------------------------------------------


def _branches(ctx: SchemaContext, keyword: str, value: Any) -> list[Node]:
    return [ctx.inplace(sub, keyword, i) for i, sub in enumerate(_schema_list(ctx, value, keyword))]


def compile_all_of(ctx: SchemaContext, value: Any) -> Keyword | None:
    nodes = _branches(ctx, "allOf", value)
    checks = tuple(call_valid(n) for n in nodes if not n.trivial)
    if not checks and not ctx.tracking:
        return None
    error_fns = tuple(call_errors(n) for n in nodes)

    def valid(x: Any) -> bool:
        for check in checks:
            if not check(x):
                return False
        return True

    # A tagged union (keywords.dispatch) reports only its tag's branch: the others
    # cannot apply. Recognised on first use, when every branch is finished.
    dispatch: list[tuple[str, dict[str, int]] | None] = []

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        here = (kpath, "allOf")
        if not dispatch:
            dispatch.append(discriminator(nodes))
        tagged = dispatch[0]
        if tagged is not None and type(x) is dict:
            tag = x.get(tagged[0])
            if type(tag) is str:
                index = tagged[1].get(tag)
                if index is not None:
                    yield from error_fns[index](x, ipath, (here, index))
                return
        for index, node_errors in enumerate(error_fns):
            yield from node_errors(x, ipath, (here, index))

    track = None
    if ctx.tracking:
        trackers = tuple(call_track(n) for n in nodes)

        def track(x: Any, acc: Evaluated) -> bool:
            for tracker in trackers:
                if not tracker(x, acc):
                    return False
            return True

    return Keyword("allOf", None, valid, errors, track, cost=80)


def compile_any_of(ctx: SchemaContext, value: Any) -> Keyword | None:
    nodes = _branches(ctx, "anyOf", value)
    if any(n.trivial for n in nodes) and not ctx.tracking:
        return None
    checks = tuple(call_valid(n) for n in nodes)
    error_fns = tuple(call_errors(n) for n in nodes)

    def valid(x: Any) -> bool:
        for check in checks:
            if check(x):
                return True
        return False

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        # Each branch's errors decide too: no separate (and deeper) is_valid pass.
        here = (kpath, "anyOf")
        found: list[ValidationError] = []
        for index, node_errors in enumerate(error_fns):
            branch = list(node_errors(x, ipath, (here, index)))
            if not branch:
                return
            found.extend(branch)
        yield make_error(
            "the value is not valid under any of the anyOf schemas",
            "anyOf",
            x,
            ipath,
            here,
            ctx.location("anyOf"),
            tuple(found),
            params={"matched": []},
        )

    track = None
    if ctx.tracking:
        trackers = tuple(call_track(n) for n in nodes)

        def track(x: Any, acc: Evaluated) -> bool:
            # Every passing branch contributes its evaluated locations: no short cut.
            ok = False
            for tracker in trackers:
                branch = Evaluated()
                if tracker(x, branch):
                    ok = True
                    acc.merge(branch)
            return ok

    return Keyword("anyOf", None, valid, errors, track, cost=85)


def compile_one_of(ctx: SchemaContext, value: Any) -> Keyword | None:
    nodes = _branches(ctx, "oneOf", value)
    checks = tuple(call_valid(n) for n in nodes)
    error_fns = tuple(call_errors(n) for n in nodes)

    def valid(x: Any) -> bool:
        found = False
        for check in checks:
            if check(x):
                if found:
                    return False
                found = True
        return found

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        here = (kpath, "oneOf")
        passing: list[int] = []
        found: list[ValidationError] = []
        for index, node_errors in enumerate(error_fns):
            branch = list(node_errors(x, ipath, (here, index)))
            if branch:
                found.extend(branch)
            else:
                passing.append(index)
        if not passing:
            yield make_error(
                "the value is not valid under any of the oneOf schemas",
                "oneOf",
                x,
                ipath,
                here,
                ctx.location("oneOf"),
                tuple(found),
                params={"matched": []},
            )
        elif len(passing) > 1:
            yield make_error(
                f"the value is valid under more than one of the oneOf schemas "
                f"(indexes {', '.join(map(str, passing))})",
                "oneOf",
                x,
                ipath,
                (kpath, "oneOf"),
                ctx.location("oneOf"),
                params={"matched": list(passing)},
            )

    track = None
    if ctx.tracking:
        trackers = tuple(call_track(n) for n in nodes)

        def track(x: Any, acc: Evaluated) -> bool:
            passed: Evaluated | None = None
            for tracker in trackers:
                branch = Evaluated()
                if tracker(x, branch):
                    if passed is not None:
                        return False
                    passed = branch
            if passed is None:
                return False
            acc.merge(passed)
            return True

    return Keyword("oneOf", None, valid, errors, track, cost=85)


def compile_not(ctx: SchemaContext, value: Any) -> Keyword:
    # "not" passes no annotations up, so its subschema never needs tracking.
    node = ctx.inplace(value, "not", tracking=False)
    check = call_valid(node)

    def valid(x: Any) -> bool:
        return not check(x)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        if check(x):
            yield make_error(
                "the value must not be valid under the not schema",
                "not",
                x,
                ipath,
                (kpath, "not"),
                ctx.location("not"),
            )

    return Keyword("not", None, valid, errors, cost=75)


def compile_if(ctx: SchemaContext, value: Any) -> Keyword | None:
    has_then = ctx.active("then")
    has_else = ctx.active("else")
    condition = ctx.inplace(value, "if")
    if not (has_then or has_else or ctx.tracking):
        return None  # without then/else, "if" only annotates
    then = ctx.inplace(ctx.schema["then"], "then") if has_then else None
    otherwise = ctx.inplace(ctx.schema["else"], "else") if has_else else None
    test = call_valid(condition)
    then_valid = call_valid(then) if then is not None else None
    else_valid = call_valid(otherwise) if otherwise is not None else None

    def valid(x: Any) -> bool:
        if test(x):
            return then_valid is None or then_valid(x)
        return else_valid is None or else_valid(x)

    then_errors = call_errors(then) if then is not None else None
    else_errors = call_errors(otherwise) if otherwise is not None else None

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        if test(x):
            if then_errors is not None:
                yield from then_errors(x, ipath, (kpath, "then"))
        elif else_errors is not None:
            yield from else_errors(x, ipath, (kpath, "else"))

    track = None
    if ctx.tracking:
        condition_track = call_track(condition)
        then_track = call_track(then) if then is not None else None
        else_track = call_track(otherwise) if otherwise is not None else None

        def track(x: Any, acc: Evaluated) -> bool:
            branch = Evaluated()
            if condition_track(x, branch):
                acc.merge(branch)
                return then_track is None or then_track(x, acc)
            return else_track is None or else_track(x, acc)

    return Keyword("if", None, valid, errors, track, cost=80)


# -- generated code -------------------------------------------------------------------


def emit_properties(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if len(ctx.schema["properties"]) > _WRITTEN_PROPERTIES:
        # The closure's table of checks serves as well: writing code must cost a
        # bounded time per node, whatever the schema's size (see codegen.promote).
        return False
    # "required" runs first (it is cheaper), so a required name is there by now.
    required = node.keywords.get("required")
    present = set(ctx.schema["required"]) if required is not None else set()
    optional = [
        name
        for name in ctx.schema["properties"]
        if name not in present and not node.children[("properties", name)].trivial
    ]
    many = len(optional) > _MANY_PROPERTIES
    if many:
        # Objects usually hold a few of many declared names (a meta-schema declares
        # sixty keywords, a schema uses three): look up the names the value has in a
        # table of checks rather than every declared name in the value.
        table = {name: callable_of(node, ("properties", name)) for name in optional}
        key, value, check = w.var(), w.var(), w.var()
        w.add(i, f"for {key}, {value} in {x}.items():")
        w.add(i + 1, f"{check} = {w.const(table)}.get({key})")
        w.add(i + 1, f"if {check} is not None and not {check}({value}): return False")
    for name in ctx.schema["properties"]:
        child = node.children[("properties", name)]
        if child.trivial or (many and name not in present):
            continue
        value = w.var()
        if name in present:
            w.add(i, f"{value} = {x}[{w.const(name)}]")
            emit_child(w, i, node, ("properties", name), value, d)
            continue
        w.add(i, f"{value} = {x}.get({w.const(name)}, MISSING)")
        w.add(i, f"if {value} is not MISSING:")
        emit_body(w, i + 1, node, ("properties", name), value, d)
    return True


# Above this many optional declared properties, generated code walks the value's
# names instead of the declared ones; above _WRITTEN_PROPERTIES, it calls the
# closure instead.
_MANY_PROPERTIES = 8
_WRITTEN_PROPERTIES = 256


def emit_additional_properties(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if ctx.active("patternProperties"):
        return False
    known = frozenset(ctx.schema["properties"]) if ctx.active("properties") else frozenset()
    if closed(node, ctx):
        # The closure re-checks and refuses keys that are not strings.
        w.add(i, f"if not {w.const(known)}.issuperset({x}) and not {w.const(k.valid)}({x}):")
        w.add(i + 1, "return False")
        return True
    key, value = w.var(), w.var()
    w.add(i, f"for {key}, {value} in {x}.items():")
    w.add(i + 1, f"if {key} not in {w.const(known)}:")
    # The closure refuses keys that are not strings.
    w.add(i + 2, f"if type({key}) is not str and not {w.const(k.valid)}({x}): return False")
    emit_child(w, i + 2, node, ("additionalProperties",), value, d)
    return True


def emit_items(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if ctx.active("prefixItems"):
        return False
    item = w.var()
    target, closing, where = edge(node, ("items",))
    if closing is not None and not closing.memo and not closing.loop:
        # Every item is one level deeper: count the level once around the loop, not
        # once per item (only for a non-empty array, as the per-item count would).
        context = closing.context
        assert context is not None
        states = w.const(context.compiler.states)
        limit = w.const(context.options.limits.max_instance_depth)
        level, state = w.var(), w.var()
        w.add(i, f"if {x}:")
        w.add(i + 1, f"{state} = {states}.now")
        w.add(i + 1, f"{state}.depth = {level} = {state}.depth + 1")
        w.add(
            i + 1,
            f"if {level} > {limit}: raise {w.const(too_deep)}({limit}, {w.const(where)})",
        )
        w.add(i + 1, "try:")
        w.add(i + 2, f"for {item} in {x}:")
        w.add(i + 3, f"if not {w.const(target)}.valid({item}): return False")
        w.add(i + 1, f"finally: {state}.depth = {level} - 1")
        return True
    w.add(i, f"for {item} in {x}:")
    emit_body(w, i + 1, node, ("items",), item, d)
    return True


def emit_all_of(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    count = len(ctx.schema["allOf"])
    branches = [node.children[("allOf", index)] for index in range(count)]
    dispatch = discriminator(branches) if t == "object" else None
    if dispatch is not None:
        name, indexes = dispatch
        table = {value: branches[index].children[("then",)] for value, index in indexes.items()}
        tag, then = w.var(), w.var()
        w.add(i, f"{tag} = {x}.get({w.const(name)})")
        w.add(i, f"if type({tag}) is str:")
        w.add(i + 1, f"{then} = {w.const(table)}.get({tag})")
        w.add(i + 1, f"if {then} is not None and not {then}.valid({x}): return False")
        # A str subclass may hash or compare in its own way: every condition decides.
        w.add(i, f"elif isinstance({tag}, str) and not {w.const(k.valid)}({x}): return False")
        return True
    for index in range(count):
        emit_child(w, i, node, ("allOf", index), x, d)
    return True


def emit_any_of(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    count = len(ctx.schema["anyOf"])
    if count == 1:
        emit_child(w, i, node, ("anyOf", 0), x, d)
        return True
    tests = [f"{branch_test(w, node, ('anyOf', index))}({x})" for index in range(count)]
    w.add(i, f"if not ({' or '.join(tests)}): return False")
    return True


def emit_one_of(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    if len(ctx.schema["oneOf"]) == 1:
        emit_child(w, i, node, ("oneOf", 0), x, d)
        return True
    count = w.var()
    w.add(i, f"{count} = 0")
    for index in range(len(ctx.schema["oneOf"])):
        test = branch_test(w, node, ("oneOf", index))
        w.add(i, f"if {test}({x}):")
        w.add(i + 1, f"if {count}: return False")
        w.add(i + 1, f"{count} = 1")
    w.add(i, f"if not {count}: return False")
    return True


def emit_not(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    w.add(i, f"if {branch_test(w, node, ('not',))}({x}): return False")
    return True


def emit_if(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    then = node.children.get(("then",))
    otherwise = node.children.get(("else",))
    w.add(i, f"if {branch_test(w, node, ('if',))}({x}):")
    mark = len(w.lines)
    if then is not None:
        emit_child(w, i + 1, node, ("then",), x, d)
    if len(w.lines) == mark:
        w.add(i + 1, "pass")
    if otherwise is not None:
        w.add(i, "else:")
        emit_body(w, i + 1, node, ("else",), x, d)
    return True


def emit_dependent_schemas(
    w: Writer, i: int, node: Node, ctx: SchemaContext, k: Keyword, x: str, t: str, d: int
) -> bool:
    for name in ctx.schema["dependentSchemas"]:
        child = node.children[("dependentSchemas", name)]
        if child.trivial:
            continue
        w.add(i, f"if {w.const(name)} in {x}:")
        emit_body(w, i + 1, node, ("dependentSchemas", name), x, d)
    return True


# -- evaluation (annotations and output units) -------------------------------------


def walk_properties(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    matched = [name for name in value if name in x]
    for name in matched:
        yield ev.child(node, ("properties", name), x[name], join(u.instance_location, name), u)
    u.valid = all(c.valid for c in u.children)
    u.annotation = matched


def walk_pattern_properties(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    searches = list(zip(value, pattern_searches(ctx, value, "patternProperties"), strict=True))
    matched = []
    for key, member in x.items():
        hit = False
        for pattern, search in searches:
            if search(key):
                hit = True
                where = join(u.instance_location, key)
                yield ev.child(node, ("patternProperties", pattern), member, where, u)
        if hit:
            matched.append(key)
    u.valid = all(c.valid for c in u.children)
    u.annotation = matched


def walk_additional_properties(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    known = ctx.schema.get("properties", {}) if ctx.active("properties") else {}
    patterns = ctx.schema.get("patternProperties", {}) if ctx.active("patternProperties") else {}
    searches = pattern_searches(ctx, patterns, "patternProperties")
    extra = [k for k in x if k not in known and not any(s(k) for s in searches)]
    for key in extra:
        yield ev.child(node, ("additionalProperties",), x[key], join(u.instance_location, key), u)
    u.valid = all(c.valid for c in u.children)
    u.annotation = extra


def walk_property_names(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    for key in x:
        # The name is the instance; annotations on names are not kept (there is no
        # instance location for a name), so the unit carries only the verdict.
        result = yield ev.child(node, ("propertyNames",), key, u.instance_location, u)
        result.children = [c for c in result.children if not c.valid]
    u.valid = all(c.valid for c in u.children)


def walk_prefix_items(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    return walk_indexed_items(ev, node, "prefixItems", value, x, u)


def walk_items(ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    start = len(ctx.schema.get("prefixItems", ())) if ctx.active("prefixItems") else 0
    return walk_rest_items(ev, node, "items", start, x, u)


def walk_rest_items(ev: Walker, node: Node, keyword: str, start: int, x: Any, u: Unit) -> Steps:
    if not isinstance(x, list):
        return
    for index in range(start, len(x)):
        yield ev.child(node, (keyword,), x[index], join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if len(x) > start:
        u.annotation = True


def walk_indexed_items(ev: Walker, node: Node, keyword: str, value: Any, x: Any, u: Unit) -> Steps:
    if not isinstance(x, list):
        return
    count = min(len(value), len(x))
    for index in range(count):
        yield ev.child(node, (keyword, index), x[index], join(u.instance_location, index), u)
    u.valid = all(c.valid for c in u.children)
    if count:
        u.annotation = True if count == len(x) else count - 1


def walk_contains(ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    if not isinstance(x, list):
        return
    matched = []
    for index, item in enumerate(x):
        result = yield ev.child(node, ("contains",), item, join(u.instance_location, index), u)
        if result.valid:
            matched.append(index)
    compiled = node.keywords.get("contains")
    u.valid = compiled is None or compiled.valid(x)
    if not u.valid and compiled is not None:
        u.error = first_message(compiled.errors(x, None, None), "contains failed")
    # Items that did not match are not an error of contains' subschema.
    u.children = [c for c in u.children if c.valid]
    u.annotation = True if len(matched) == len(x) and x else matched


def walk_all_of(ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    for index in range(len(value)):
        yield ev.child(node, ("allOf", index), x, u.instance_location, u)
    u.valid = all(c.valid for c in u.children)


def walk_any_of(ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    for index in range(len(value)):
        yield ev.child(node, ("anyOf", index), x, u.instance_location, u)
    u.valid = any(c.valid for c in u.children)
    if not u.valid:
        u.error = "the value is not valid under any of the anyOf schemas"


def walk_one_of(ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    for index in range(len(value)):
        yield ev.child(node, ("oneOf", index), x, u.instance_location, u)
    passed = sum(1 for c in u.children if c.valid)
    u.valid = passed == 1
    if passed == 0:
        u.error = "the value is not valid under any of the oneOf schemas"
    elif passed > 1:
        u.error = "the value is valid under more than one of the oneOf schemas"


def walk_not(ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    result = yield ev.child(node, ("not",), x, u.instance_location, u)
    u.valid = not result.valid
    if not u.valid:
        u.error = "the value must not be valid under the not schema"
    # Whatever happened inside "not" yields no annotations.
    drop_annotations(result)


def walk_if(ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit) -> Steps:
    condition = yield ev.child(node, ("if",), x, u.instance_location, u)
    # The condition's verdict is not an error; its annotations count if it passed.
    branch = "then" if condition.valid else "else"
    if not condition.valid:
        u.children.clear()
    if (branch,) in node.children and ctx.active(branch):
        target = node.children[(branch,)]
        location = u.keyword_location.rpartition("/")[0] + "/" + branch
        result = yield target, x, u.instance_location, location, (branch,) in node.back, u
        u.valid = result.valid


def walk_dependent_schemas(
    ev: Walker, node: Node, ctx: SchemaContext, value: Any, x: Any, u: Unit
) -> Steps:
    if not isinstance(x, dict):
        return
    keyword = u.keyword or "dependentSchemas"
    for name, sub in value.items():
        if name in x and not isinstance(sub, list):
            yield ev.child(node, (keyword, name), x, u.instance_location, u)
    u.valid = all(c.valid for c in u.children)
    if keyword == "dependencies":
        ev.assertion(node, "dependencies", x, u)


PROPERTIES = Spec(
    "properties",
    compile_properties,
    Role.APPLICATOR,
    "object",
    Shape.MAP,
    Reach.NAMED,
    marks=Marks.NAMES,
    emit=emit_properties,
    evaluate=walk_properties,
)
PATTERN_PROPERTIES = Spec(
    "patternProperties",
    compile_pattern_properties,
    Role.APPLICATOR,
    "object",
    Shape.MAP,
    Reach.PATTERN,
    marks=Marks.PATTERNS,
    evaluate=walk_pattern_properties,
)
ADDITIONAL_PROPERTIES = Spec(
    "additionalProperties",
    compile_additional_properties,
    Role.APPLICATOR,
    "object",
    Shape.ONE,
    Reach.REST_MEMBERS,
    marks=Marks.ALL_MEMBERS,
    emit=emit_additional_properties,
    evaluate=walk_additional_properties,
)
PROPERTY_NAMES = Spec(
    "propertyNames",
    compile_property_names,
    Role.APPLICATOR,
    "object",
    Shape.ONE,
    Reach.KEYS,
    evaluate=walk_property_names,
)
DEPENDENT_SCHEMAS = Spec(
    "dependentSchemas",
    compile_dependent_schemas,
    Role.APPLICATOR,
    "object",
    Shape.MAP,
    Reach.SOMETIMES,
    emit=emit_dependent_schemas,
    evaluate=walk_dependent_schemas,
)
# A member of "dependencies" may also be an array of names: the walks skip it.
DEPENDENCIES = Spec(
    "dependencies",
    compile_dependencies,
    Role.APPLICATOR,
    "object",
    Shape.MAP,
    Reach.SOMETIMES,
    evaluate=walk_dependent_schemas,
)
PREFIX_ITEMS = Spec(
    "prefixItems",
    compile_prefix_items,
    Role.APPLICATOR,
    "array",
    Shape.LIST,
    Reach.INDEXED,
    marks=Marks.PREFIX,
    evaluate=walk_prefix_items,
)
ITEMS = Spec(
    "items",
    compile_items,
    Role.APPLICATOR,
    "array",
    Shape.ONE,
    Reach.REST_ITEMS,
    marks=Marks.ALL_ITEMS,
    emit=emit_items,
    evaluate=walk_items,
)
CONTAINS = Spec(
    "contains",
    compile_contains,
    Role.APPLICATOR,
    "array",
    Shape.ONE,
    Reach.EVERY_ITEM,
    marks=Marks.SOME_ITEMS,
    passes_errors=False,
    evaluate=walk_contains,
)
MIN_CONTAINS = Spec("minContains", None, Role.PART, "array", part_of="contains")
MAX_CONTAINS = Spec("maxContains", None, Role.PART, "array", part_of="contains")
ALL_OF = Spec(
    "allOf",
    compile_all_of,
    Role.APPLICATOR,
    None,
    Shape.LIST,
    Reach.ALWAYS,
    emit=emit_all_of,
    evaluate=walk_all_of,
)
ANY_OF = Spec(
    "anyOf",
    compile_any_of,
    Role.APPLICATOR,
    None,
    Shape.LIST,
    Reach.SOMETIMES,
    passes_errors=False,
    emit=emit_any_of,
    evaluate=walk_any_of,
)
ONE_OF = Spec(
    "oneOf",
    compile_one_of,
    Role.APPLICATOR,
    None,
    Shape.LIST,
    Reach.SOMETIMES,
    passes_errors=False,
    emit=emit_one_of,
    evaluate=walk_one_of,
)
NOT = Spec(
    "not",
    compile_not,
    Role.APPLICATOR,
    None,
    Shape.ONE,
    Reach.NEGATED,
    passes_errors=False,
    emit=emit_not,
    evaluate=walk_not,
)
IF = Spec(
    "if",
    compile_if,
    Role.APPLICATOR,
    None,
    Shape.ONE,
    Reach.SOMETIMES,
    passes_errors=False,
    emit=emit_if,
    evaluate=walk_if,
)
THEN = Spec("then", None, Role.PART, None, Shape.ONE, Reach.SOMETIMES, part_of="if")
ELSE = Spec("else", None, Role.PART, None, Shape.ONE, Reach.SOMETIMES, part_of="if")
