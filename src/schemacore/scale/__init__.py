"""Validating on many processes or machines, with any framework: the parts that need
none.

- :class:`SharedValidator`: a picklable handle on a validator that is compiled once
  per process (per worker), however many tasks carry it, and refuses a process whose
  schemacore version differs from the one that made it.
- :func:`check_texts` and :func:`check_values`: check JSON texts or values as
  ``schemacore validate`` checks lines of JSON Lines, one :class:`Result` each, its
  errors in the ``--error-format json`` shape; :class:`Summary` counts them.

``schemacore.dask`` builds on these for Dask (the ``dask`` extra); the Spark recipe
of the documentation uses them in ``mapInPandas``. Importing this module imports
no cluster framework.
"""

from __future__ import annotations

from ._files import DEFAULT_BLOCKSIZE
from ._results import FileCounts, Record, Result, Summary, check_texts, check_values
from ._shared import CACHE_SIZE, CacheInfo, SharedValidator, VersionMismatch, cache_info

__all__ = [
    "CACHE_SIZE",
    "DEFAULT_BLOCKSIZE",
    "CacheInfo",
    "FileCounts",
    "Record",
    "Result",
    "SharedValidator",
    "Summary",
    "VersionMismatch",
    "cache_info",
    "check_texts",
    "check_values",
]
