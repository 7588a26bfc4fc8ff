"""Model routes by data classification: which models may see a catalog's tools.

A tool's ``dataClassification`` bounds where its arguments and results may go: a
model route declares the most sensitive class it is cleared for, and a route may
serve a catalog only when it is cleared for every admitted tool's class.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .catalog import AdmittedBundle

__all__ = ["CLASSIFICATIONS", "ModelRoute", "allowed_routes", "catalog_classification"]

CLASSIFICATIONS: Final = ("public", "internal", "confidential", "restricted")
"""The contract's data classes, least sensitive first."""


@dataclass(frozen=True, slots=True)
class ModelRoute:
    """A model endpoint and the most sensitive data class it is cleared for."""

    name: str
    cleared_for: str

    def __post_init__(self) -> None:
        if self.cleared_for not in CLASSIFICATIONS:
            raise ValueError(f"cleared_for must be one of {', '.join(CLASSIFICATIONS)}")


def catalog_classification(bundle: AdmittedBundle) -> str:
    """The most sensitive class among the bundle's governed tools (``public`` when
    none is governed)."""
    rank = 0
    for tool in bundle.registry.values():
        if tool.contract is not None:
            rank = max(rank, CLASSIFICATIONS.index(tool.contract.data_classification))
    return CLASSIFICATIONS[rank]


def allowed_routes(routes: Iterable[ModelRoute], bundle: AdmittedBundle) -> Sequence[ModelRoute]:
    """The routes cleared for every tool of ``bundle``, in the given order."""
    needed = CLASSIFICATIONS.index(catalog_classification(bundle))
    return tuple(r for r in routes if CLASSIFICATIONS.index(r.cleared_for) >= needed)
