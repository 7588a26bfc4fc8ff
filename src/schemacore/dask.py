"""Bulk validation on Dask: files or bags checked on a cluster, with the command
line's verdicts and errors (needs the ``dask`` extra: ``pip install
'schemacore[dask]'``).

- :func:`validate_files` checks JSON, JSON Lines, YAML and TOML files by path or
  fsspec URL. Workers read the files (the client learns their sizes only); a JSON
  Lines file is cut into blocks of whole lines whose first line numbers are counted
  on the workers, so every result names its true ``file`` and ``line``.
- :func:`validate_bag` checks the values of a Dask bag.
- Both return a bag of :class:`~schemacore.scale.Result`, in input order.
  :func:`counts` reduces it to a :class:`~schemacore.scale.Summary` (per file:
  valid, invalid, not checked; the command line's exit status), :func:`failures`
  keeps the records that failed and :func:`write_failures` writes them out;
  :func:`compute` runs several of these at once (one pass over the data) with
  Dask's progress bar.

The schema is compiled once per worker process, not per task: tasks carry a
:class:`~schemacore.scale.SharedValidator`, which each process compiles on first
use and caches by the SHA-256 of the schema and options. A worker whose schemacore
version is not the client's refuses the work
(:class:`~schemacore.scale.VersionMismatch`), and the computation fails with that
error rather than give results that might differ.

Results are keyed by their place: a partition is one block of one file, and when
a worker dies Dask computes its partitions again, so no line is lost or counted
twice.
"""

from __future__ import annotations

import logging
import operator
import os
import uuid
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

try:
    import dask.bag as db
    import dask.base
    import distributed
    from dask.delayed import Delayed, delayed
    from dask.diagnostics.progress import ProgressBar
except ImportError as _missing:
    raise ImportError(
        "schemacore.dask needs Dask and its distributed scheduler: pip install 'schemacore[dask]'"
    ) from _missing

import schemacore

from .commandline.checking import Outcome, Plan
from .commandline.documents import LINES, STDIN
from .scale import DEFAULT_BLOCKSIZE, Result, SharedValidator, Summary, check_values
from .scale._files import (
    Block,
    Source,
    block_outcome,
    block_results,
    blocks_of,
    count_newlines,
    document_outcome,
    document_results,
    first_lines,
    no_match,
    sources,
)

__all__ = [
    "DEFAULT_BLOCKSIZE",
    "Scheduler",
    "compute",
    "connect",
    "counts",
    "failures",
    "parse_scheduler",
    "validate_bag",
    "validate_files",
    "write_failures",
]


# Typed views of the parts of Dask's API used here: Dask is only partly annotated,
# and each untyped function is given its signature once, here.
_from_delayed = cast(Callable[[list[Delayed]], db.Bag], db.from_delayed)
_compute = cast(Callable[..., tuple[Any, ...]], dask.base.compute)
_progress_bar = cast(Callable[[], ProgressBar], ProgressBar)
_distributed_progress = cast(Callable[..., None], distributed.progress)
_default_client = cast(Callable[[], distributed.Client], distributed.default_client)
_client = cast(Callable[..., distributed.Client], distributed.Client)
_local_cluster = cast(Callable[..., distributed.LocalCluster], distributed.LocalCluster)


def _bag_call(bag: db.Bag, method: str, *args: Any, **kwargs: Any) -> Any:
    """``bag.method(*args, **kwargs)``: Bag's methods are unannotated."""
    return cast(Callable[..., Any], getattr(bag, method))(*args, **kwargs)


def _gather(client: distributed.Client, futures: Any) -> Any:
    return cast(Callable[[Any], Any], client.gather)(futures)


def _shared(schema: Any, options: dict[str, Any]) -> SharedValidator:
    """The handle tasks carry: compiled here first, so a bad schema fails at once."""
    if isinstance(schema, SharedValidator | schemacore.Validator):
        if options:
            raise TypeError("compile options go with a schema, not a compiled validator")
        return schema if isinstance(schema, SharedValidator) else SharedValidator(schema)
    return SharedValidator.compile(schema, **options)


def _delayed(function: Callable[..., Any], *args: Any, key: str) -> Delayed:
    # dask.delayed is untyped: one typed call site.
    made = delayed(function, pure=False)(*args, dask_key_name=key)
    return cast(Delayed, made)


def _literal(value: Any) -> Delayed:
    """``value`` as one key of the graph: sent to each worker once, not per task."""
    return cast(Delayed, delayed(value, pure=True))


def _same(value: Any) -> Any:
    return value


def validate_files(
    paths: str | Sequence[str],
    schema: Any,
    *,
    lines: bool = False,
    blocksize: int = DEFAULT_BLOCKSIZE,
    glob: bool = True,
    storage_options: dict[str, Any] | None = None,
    **compile_options: Any,
) -> db.Bag:
    """Check files against ``schema`` on the workers: a bag of results, one per record
    (per line of a JSON Lines file, per document otherwise), in input order.

    Args:
        paths: a path or fsspec URL, or several; glob patterns (``data/*.jsonl``,
            ``s3://bucket/day=*/part-*.jsonl``) stand for the files they match,
            sorted. A pattern that matches nothing gives one result, not checked.
        schema: the schema (compiled here first, with ``compile_options``), a
            compiled :class:`~schemacore.Validator` or a
            :class:`~schemacore.scale.SharedValidator`.
        lines: read every file as JSON Lines, as ``schemacore validate --lines``
            does; otherwise ``.jsonl`` and ``.ndjson`` are JSON Lines, ``.yaml``,
            ``.yml`` and ``.toml`` those formats, anything else one JSON document.
        blocksize: the size in bytes of the blocks a JSON Lines file is cut into,
            one partition each.
        glob: expand glob patterns; False reads each name as the file it names.
        storage_options: for fsspec, to open URLs (credentials, endpoints).
        **compile_options: for :func:`schemacore.compile`.

    Files are read where the tasks run: every worker must reach them by the same
    name. A file that cannot be read or parsed gives results that are not checked,
    with the command line's message.
    """
    shared = _shared(schema, compile_options)
    handle = _literal(shared)
    run = uuid.uuid4().hex[:16]
    names = [paths] if isinstance(paths, str) else list(paths)
    parts: list[Delayed] = []
    found = sources(names, lines=lines, expand=glob, storage_options=storage_options)
    for number, source in enumerate(found):
        prefix = f"schemacore-{run}-{number}"
        if isinstance(source, str):
            parts.append(_delayed(_one, no_match(source), key=f"{prefix}-nomatch"))
        elif source.fmt != LINES:
            parts.append(_delayed(document_results, handle, source, key=f"{prefix}-document"))
        else:
            parts.extend(_block_parts(handle, source, blocksize, prefix))
    return _from_delayed(parts)


def _one(result: Result) -> list[Result]:
    return [result]


def _block_parts(handle: Delayed, source: Source, blocksize: int, prefix: str) -> list[Delayed]:
    blocks = blocks_of(source, blocksize)
    if len(blocks) == 1:
        return [_delayed(block_results, handle, blocks[0], 1, key=f"{prefix}-check-0")]
    counted = [
        _delayed(count_newlines, block, key=f"{prefix}-count-{block.index}")
        for block in blocks[:-1]
    ]
    numbers = _delayed(first_lines, counted, key=f"{prefix}-first-lines")
    return [
        _delayed(
            block_results,
            handle,
            block,
            _delayed(operator.getitem, numbers, block.index, key=f"{prefix}-line-{block.index}"),
            key=f"{prefix}-check-{block.index}",
        )
        for block in blocks
    ]


def validate_bag(bag: db.Bag, schema: Any, **compile_options: Any) -> db.Bag:
    """Check the values of ``bag`` against ``schema``: a bag of results, one per
    value, in order.

    A value is a JSON value, or a :class:`~schemacore.scale.Record` naming its
    place (``file``, ``line``), which its result then names (else both are None).
    Each value is checked as the command line checks a line of JSON Lines (see
    :func:`~schemacore.scale.check_values`). ``schema`` and ``compile_options`` are
    as for :func:`validate_files`.
    """
    handle = _literal(_shared(schema, compile_options))
    return cast(db.Bag, _bag_call(bag, "map_partitions", _check_partition, handle))


def _check_partition(values: Any, shared: SharedValidator) -> list[Result]:
    return check_values(shared, values)


def counts(results: db.Bag) -> db.Item:
    """The :class:`~schemacore.scale.Summary` of a bag of results, as a Dask item to
    compute: per file, how many records were valid, invalid or not checked."""
    return cast(db.Item, _bag_call(results, "reduction", Summary.of, _total))


def _total(summaries: Sequence[Summary]) -> Summary:
    total = Summary()
    for summary in summaries:
        total = total + summary
    return total


def _is_failure(unchecked: bool, result: Result) -> bool:
    return not result.valid and (unchecked or result.checked)


def failures(results: db.Bag, *, unchecked: bool = True) -> db.Bag:
    """The results that failed: invalid, and (when ``unchecked``) not checked; each
    with its errors and, for a line or a value, its text."""
    return cast(db.Bag, _bag_call(results, "filter", partial(_is_failure, unchecked)))


def write_failures(
    results: db.Bag,
    path: str,
    *,
    unchecked: bool = True,
    storage_options: dict[str, Any] | None = None,
) -> list[Delayed]:
    """Write the failed results as JSON Lines, one file per partition, by the
    workers (``path`` is a folder or a pattern with ``*``, such as
    ``out/invalid-*.jsonl``; fsspec URLs too): tasks to compute. Each line is
    :meth:`Result.to_dict <schemacore.scale.Result.to_dict>`: file, line, status,
    errors, text."""
    texts = _bag_call(failures(results, unchecked=unchecked), "map_partitions", _jsonl)
    written = _bag_call(texts, "to_textfiles", path, compute=False, storage_options=storage_options)
    return cast(list[Delayed], written)


def _jsonl(results: Iterable[Result]) -> list[str]:
    """A partition's results as one text of JSON Lines (none for no results): each
    line ends with a newline, and an empty partition writes an empty file."""
    text = "".join(result.to_json() + "\n" for result in results)
    return [text] if text else []


def compute(*collections: Any, progress: bool = True) -> tuple[Any, ...]:
    """Compute Dask collections together (one pass over data they share, such as
    :func:`counts` and :func:`write_failures` of the same results), showing Dask's
    own progress bar: distributed's when a ``distributed.Client`` is the current
    scheduler, else ``dask.diagnostics.ProgressBar`` (both on standard output)."""
    try:
        client: distributed.Client | None = _default_client()
    except ValueError:  # no client: the local schedulers
        client = None
    if client is None:
        if not progress:
            return _compute(*collections)
        with _progress_bar():
            return _compute(*collections)
    futures = cast(Callable[[list[Any]], list[Any]], client.compute)(list(collections))
    if progress:
        _distributed_progress(futures)
    return tuple(_gather(client, futures))


@dataclass(frozen=True, slots=True)
class Scheduler:
    """Where to run: ``workers`` local worker processes (``address`` None), or the
    scheduler at ``address``."""

    address: str | None = None
    workers: int | None = None


def parse_scheduler(text: str) -> Scheduler:
    """Read ``local``, ``local:N`` (N worker processes on this machine; ``local``
    is one per CPU) or a scheduler's address (``tcp://host:8786``, ``host:8786``).

    Raises:
        ValueError: none of these, with what was expected.
    """
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2]
        if not count:
            return Scheduler(workers=os.cpu_count() or 1)
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"local:N needs a number of workers of 1 or more, not {count!r}")
        return Scheduler(workers=int(count))
    host, _, port = text.rpartition("://")[2].rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(
            f"not a scheduler address (tcp://HOST:PORT or HOST:PORT) nor local[:N]: {text!r}"
        )
    return Scheduler(address=text)


@contextmanager
def connect(
    scheduler: str | Scheduler = "local", *, timeout: float = 30.0
) -> Iterator[distributed.Client]:
    """A ``distributed.Client`` for :func:`parse_scheduler`'s ``scheduler``, closed
    (with its local cluster) on leaving: ``local[:N]`` starts N worker processes of
    one thread each, on the loopback interface and without a dashboard.

    Raises:
        ValueError: ``scheduler`` cannot be read.
        OSError: the scheduler cannot be reached within ``timeout`` seconds.
    """
    where = parse_scheduler(scheduler) if isinstance(scheduler, str) else scheduler
    if where.address is not None:
        with _client(where.address, timeout=timeout) as client:
            yield client
        return
    cluster = _local_cluster(
        n_workers=where.workers,
        threads_per_worker=1,  # checking is pure Python: one thread per process
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    with cluster, _client(cluster, timeout=timeout) as client:
        yield client


def iter_outcomes(
    client: distributed.Client,
    validator: schemacore.Validator,
    plan: Plan,
    names: Sequence[str],
    *,
    lines: bool = False,
    blocksize: int = DEFAULT_BLOCKSIZE,
    window: int | None = None,
) -> Generator[Outcome, None, None]:
    """For ``schemacore validate --dask``: what the command line prints for
    ``names`` (files as given, never globs), checked on ``client``'s workers and
    yielded in input order, the same outcomes a local run yields (one per block of
    a JSON Lines file and its end, one per document). At most ``window`` blocks
    (twice the cluster's threads by default) are in flight.

    Raises:
        ValueError: standard input is among ``names`` (workers cannot read it).
        VersionMismatch: a worker runs another schemacore version.
    """
    if STDIN in names:
        raise ValueError("standard input ('-') cannot be read by Dask workers")
    shared = SharedValidator(validator)
    # One key holding the handle: each worker fetches it once, and it can be
    # computed again if the worker holding it dies.
    handle = client.submit(_same, shared, key=f"schemacore-validator-{shared.key}")
    if window is None:
        threads = cast(Callable[[], dict[str, int]], client.nthreads)()
        window = max(2, 2 * sum(threads.values()))
    run = uuid.uuid4().hex[:16]
    pending: deque[distributed.Future[Outcome] | Outcome] = deque()

    def drain(limit: int) -> Iterator[Outcome]:
        while len(pending) > limit:
            entry = pending.popleft()
            yield entry if isinstance(entry, Outcome) else entry.result()

    found = sources(names, lines=lines, expand=False)
    for number, source in enumerate(found):
        assert isinstance(source, Source)  # expand=False: never a pattern
        prefix = f"schemacore-{run}-{number}"
        if source.fmt != LINES:
            pending.append(
                client.submit(
                    document_outcome, handle, plan, source, key=f"{prefix}-document", pure=False
                )
            )
            yield from drain(window)
            continue
        blocks = blocks_of(source, blocksize)
        numbers = _first_lines_on(client, blocks, prefix)
        for block in blocks:
            pending.append(
                client.submit(
                    block_outcome,
                    handle,
                    plan,
                    block,
                    numbers[block.index],
                    key=f"{prefix}-check-{block.index}",
                    pure=False,
                )
            )
            yield from drain(window)
    yield from drain(0)


def _first_lines_on(client: distributed.Client, blocks: list[Block], prefix: str) -> list[int]:
    """The first line of each block, from newlines counted on the workers (the
    counts are small numbers; the data stays where it is read)."""
    if len(blocks) == 1:
        return [1]
    keys = [f"{prefix}-count-{block.index}" for block in blocks[:-1]]
    counted = client.map(count_newlines, blocks[:-1], key=keys, pure=False)
    return first_lines(cast(list[int], _gather(client, counted)))
