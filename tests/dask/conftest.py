"""The Dask tests: a real LocalCluster of two worker processes (loopback only).

Without Dask (the ``dask`` extra) the tests that need it skip with the reason,
except under ``SCHEMACORE_REQUIRE_CLIENTS=1`` (CI), where a missing Dask fails.

Each module leaves no thread behind in the test process: the command line forks its
``--jobs`` workers only from a process with one thread, so a thread left here would
change how later tests (tests/test_cli.py, tests/properties) run.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

REQUIRED = os.environ.get("SCHEMACORE_REQUIRE_CLIENTS") == "1"


def need_dask() -> None:
    """Skip the calling module without Dask, or fail where it is required."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        if REQUIRED:
            raise
        pytest.skip(
            f"Dask is not installed (pip install 'schemacore[dask]'): {exc}",
            allow_module_level=True,
        )


def start_cluster(threads: int = 1) -> Any:
    """Two worker processes on 127.0.0.1, no dashboard, quiet logs."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=threads,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )


@pytest.fixture(autouse=True, scope="module")
def _leave_no_thread() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    utils = sys.modules.get("distributed.utils")
    executor = getattr(utils, "_offload_executor", None)
    if isinstance(executor, ThreadPoolExecutor):
        # Distributed's module-wide offload pool keeps its thread for good once used;
        # a fresh pool starts none until it is used again.
        executor.shutdown(wait=True)
        utils._offload_executor = ThreadPoolExecutor(  # type: ignore[union-attr]
            max_workers=1, thread_name_prefix="Dask-Offload"
        )
    deadline = time.monotonic() + 30
    for thread in set(threading.enumerate()) - before:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = sorted(thread.name for thread in set(threading.enumerate()) - before)
    assert not left, f"threads left running in the test process: {left}"


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A client of a 2-process LocalCluster with 2 threads per worker (so that a
    worker's threads race to compile), shared by a module's tests, which leave it as
    they found it."""
    need_dask()
    from distributed import Client

    with start_cluster(threads=2) as cluster, Client(cluster, timeout=60) as connected:
        yield connected
