"""Running checks in input order: in this process, or spread over worker processes.

Each worker gets the compiled validator once (a Validator pickles as its schema and
options, and recompiles on load). At most ``2 * jobs`` tasks are in flight, so
memory stays bounded, and outcomes are yielded in the order the tasks came in.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import threading
from collections import deque
from collections.abc import Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor

import schemacore

from .checking import Checker, ChunkTask, DocumentTask, Outcome, Plan

__all__ = ["Item", "in_process", "in_workers"]

# A task for a checker, or an outcome the main process already knows (a file it
# could not open, the end of a file).
Item = DocumentTask | ChunkTask | Outcome

_checker: Checker | None = None


def in_process(checker: Checker, items: Iterable[Item]) -> Generator[Outcome, None, None]:
    """Check each item here, one after the other."""
    for item in items:
        yield item if isinstance(item, Outcome) else checker.run(item)


def _install(validator: schemacore.Validator, plan: Plan) -> None:
    global _checker
    # Ctrl-C is for the main process, which stops the pool; a worker's traceback
    # would only add noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _checker = Checker(validator, plan)


def _run(task: DocumentTask | ChunkTask) -> Outcome:
    assert _checker is not None, "the worker was not initialised"
    return _checker.run(task)


def in_workers(
    validator: schemacore.Validator, plan: Plan, items: Iterable[Item], jobs: int
) -> Generator[Outcome, None, None]:
    """Check the items in ``jobs`` worker processes; yield outcomes in input order."""
    context = multiprocessing.get_context(_start_method())
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_install, initargs=(validator, plan)
    )
    pending: deque[Future[Outcome] | Outcome] = deque()
    try:
        for item in items:
            pending.append(item if isinstance(item, Outcome) else pool.submit(_run, item))
            while len(pending) > 2 * jobs:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start_method() -> str:
    """fork where it is safe: on Linux, in a process running no other thread (the
    command line is one); it starts at once and inherits the compiled validator.
    Elsewhere spawn, a fresh interpreter, which imports the main module again (a
    script calling ``main(argv)`` needs the ``if __name__ == "__main__"`` guard)."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return "fork"
    return "spawn"


def _result(entry: Future[Outcome] | Outcome) -> Outcome:
    return entry if isinstance(entry, Outcome) else entry.result()
