"""Per-call bookkeeping for the instance limits, and the optional instance walk.

A compiled validator is shared between threads, so what one validation call counts
(recursion depth, its deadline) lives in a :class:`CallState` per thread, which the
validator resets at the start of each call. Compiled code keeps the thread-local
:class:`CallStates` and reads this thread's state from it once per use (an attribute
of a thread-local object costs several times one of a plain object, and a recursive
step reads and writes the depth three times). Only recursive references and, when a
time budget is set, schema nodes touch it: the common path pays nothing.
"""

from __future__ import annotations

import math
import threading
from decimal import Decimal
from typing import Any

from .errors import ExecutionFailure
from .jsonvalue import JSON_VALUES, describe_non_json
from .limits import Limits
from .paths import Path, to_pointer

__all__ = ["CallState", "CallStates", "check_json_value", "non_json", "scan_instance"]


class CallState:
    """What one validation call on one thread has used so far (see CallStates)."""

    __slots__ = ("applied", "deadline", "depth", "memo", "reads", "repeats", "running")

    def __init__(self) -> None:
        self.depth = 0
        self.deadline = math.inf
        # (id(node), id(value)) -> (value, is_valid answer), for the nodes that
        # memoise (see calls.memoised); None until one does, cleared after each call.
        self.memo: dict[tuple[int, int], tuple[Any, bool]] | None = None
        # The same nodes on the error and evaluation paths: (id(node), id(value)) ->
        # value for each application, and how many applications repeated an earlier one.
        self.applied: dict[tuple[int, int], Any] | None = None
        self.repeats = 0
        # What the contexts written after the call (see keywords.applicator, contains)
        # share of it: they go on counting its repeated applications, so walking every
        # context of a report that doubles with each level fails as the report would.
        self.reads: dict[str, Any] | None = None
        # (id(node), id(value)) of the applications in progress of the nodes on a
        # reference loop without progress (Node.loop): meeting one again means the
        # loop is running, and the call fails closed (calls.loop_failure).
        self.running: set[tuple[int, int]] | None = None

    def forget(self) -> None:
        """Drop what the memoising nodes kept of the last call's instance."""
        reads = self.reads
        if reads is not None:
            reads.update(open=False, applied=self.applied, repeats=self.repeats)
            self.reads = None
        self.memo = None
        self.applied = None
        self.repeats = 0


class CallStates(threading.local):
    """One validator's :class:`CallState` per thread, as ``now`` (made on a thread's
    first use: threading.local runs ``__init__`` once per thread)."""

    def __init__(self) -> None:
        self.now = CallState()


def non_json(value: Any, path: Path = None) -> ExecutionFailure:
    """The error for a value outside the JSON data model."""
    return ExecutionFailure(
        f"the instance contains {describe_non_json(value)} ({JSON_VALUES})",
        location=to_pointer(path),
        limit="json_data_model",
    )


def non_string_key(key: Any, path: Path = None) -> ExecutionFailure:
    return ExecutionFailure(
        f"the instance has an object key of type {type(key).__name__}; JSON object keys "
        "are strings",
        location=to_pointer(path),
        limit="json_data_model",
    )


_SCALARS = (str, int, bool, type(None))


def check_json_value(value: Any) -> None:
    """Raise unless ``value`` is a JSON scalar or container (not looking inside)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise non_json(value)
    elif isinstance(value, Decimal):
        if not Decimal.is_finite(value):
            raise non_json(value)
    elif not isinstance(value, (dict, list, *_SCALARS)):
        raise non_json(value)


def scan_instance(instance: Any, limits: Limits) -> None:
    """Walk the whole instance once (iteratively) and enforce the instance limits."""
    max_nodes = limits.max_instance_nodes
    assert max_nodes is not None
    max_depth = limits.max_instance_depth
    stack: list[tuple[Any, int, Path]] = [(instance, 0, None)]
    # Values are counted when their container is reached, before any is pushed, so
    # refusing a huge container costs nothing proportional to it.
    seen = 1
    while stack:
        value, depth, path = stack.pop()
        kind = type(value)
        if kind is dict or kind is list or isinstance(value, (dict, list)):
            seen += len(value)
            if seen > max_nodes:
                raise ExecutionFailure(
                    f"the instance has more than max_instance_nodes={max_nodes} values",
                    location=to_pointer(path),
                    limit="max_instance_nodes",
                    value=max_nodes,
                )
        if kind is dict or (kind is not list and isinstance(value, dict)):
            if depth >= max_depth:
                raise _too_deep(max_depth, path)
            for key, member in value.items():
                if not isinstance(key, str):
                    raise non_string_key(key, path)
                stack.append((member, depth + 1, (path, key)))
        elif kind is list or isinstance(value, list):
            if depth >= max_depth:
                raise _too_deep(max_depth, path)
            for index, item in enumerate(value):
                stack.append((item, depth + 1, (path, index)))
        elif kind is float:
            if value - value != 0.0:
                raise non_json(value, path)
        elif kind not in _SCALARS:
            try:
                check_json_value(value)
            except ExecutionFailure as exc:
                raise non_json(value, path) from exc


def _too_deep(limit: int, path: Path) -> ExecutionFailure:
    return ExecutionFailure(
        f"the instance is nested deeper than max_instance_depth={limit}",
        location=to_pointer(path),
        limit="max_instance_depth",
        value=limit,
    )


def too_deep(limit: int, reference: str, where: str = "") -> ExecutionFailure:
    """Recursion through the schema went deeper than the instance depth limit, at the
    recursive ``reference`` or schema (a URI) and instance location ``where`` if known."""
    return ExecutionFailure(
        f"validation recursed deeper than max_instance_depth={limit} "
        f"(through the schema at {reference})",
        location=where,
        schema_location=reference,
        limit="max_instance_depth",
        value=limit,
    )
