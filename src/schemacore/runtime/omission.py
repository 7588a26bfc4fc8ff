"""Which tools an admission mode may leave out of a batch, and which must follow them.

* ``strict`` (the default) leaves nothing out: any diagnostic refuses the batch.
* ``quarantine`` leaves out a tool whose every problem is an
  ``unsupported_capability`` schema (or contract schema) error, as seed 000 says.
* ``isolate`` leaves out every tool with any problem, each with its own
  diagnostic, and then every tool that depends on one left out (a contract whose
  ``compensation.toolRef`` names its ``toolId``), with a diagnostic that says so.

In every mode, batch-level problems refuse the whole batch: an unreadable listing,
an invalid authority, a contract for a tool not in the batch, two tools with one
name or two contracts with one ``toolId`` (which of the two is meant is unknown).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final, Literal

from .errors import UNSUPPORTED_CAPABILITY, VALIDATION, BoundaryError

__all__ = [
    "MODES",
    "AdmissionMode",
    "dependency_errors",
    "is_batch_level",
    "omittable",
]

AdmissionMode = Literal["strict", "quarantine", "isolate"]
MODES: Final = ("strict", "quarantine", "isolate")

_BATCH_LEVEL_CODES: Final = frozenset({"tool-name-duplicate", "contract-tool-id-duplicate"})
_SCHEMA_FIELDS: Final = frozenset({"inputSchema", "outputSchema", "contract"})


def is_batch_level(code: str) -> bool:
    """Whether a per-tool diagnostic with ``code`` is about the batch as a whole."""
    return code in _BATCH_LEVEL_CODES


def omittable(mode: AdmissionMode, problems: Iterable[tuple[str, str, str]]) -> bool:
    """Whether ``mode`` may leave out a tool with these (field, error class, code)
    problems instead of refusing the batch."""
    problems = list(problems)
    if mode == "quarantine":
        return all(f in _SCHEMA_FIELDS and c == UNSUPPORTED_CAPABILITY for f, c, _ in problems)
    if mode == "isolate":
        return not any(is_batch_level(code) for _, _, code in problems)
    return False


def dependency_errors(
    tool_ids: Sequence[str | None],
    compensation_refs: Sequence[str | None],
    left_out: Iterable[int],
) -> Mapping[int, BoundaryError]:
    """The tools (by index) that must be left out because the tool their
    ``compensation.toolRef`` names is left out, followed transitively; each with
    the error its diagnostic carries. ``tool_ids`` and ``compensation_refs`` hold
    each tool's contract ``toolId`` and ``toolRef`` (None when it has none)."""
    out = set(left_out)
    found: dict[int, BoundaryError] = {}
    changed = True
    while changed:
        changed = False
        gone = {tool_ids[i] for i in out if tool_ids[i] is not None}
        for index, ref in enumerate(compensation_refs):
            if index in out or ref is None or ref not in gone:
                continue
            out.add(index)
            changed = True
            found[index] = BoundaryError(
                "tool-dependency-left-out",
                "the tool's compensation tool (compensation.toolRef) was left out of the "
                "batch, so its calls could not be undone",
                error_class=VALIDATION,
                path="/compensation/toolRef",
            )
    return found
