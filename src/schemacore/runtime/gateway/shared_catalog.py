"""One catalog revision for every gateway on a shared PostgreSQL journal.

The database holds the sequence of published checkpoints
(``AdmittedBundle.checkpoint()``: admitted names, their revisions, granted names).
A checkpoint is not the catalog itself, so each process builds the bundle with
the host's ``load(checkpoint)`` (admitting the same tool definitions, from the
provider or a local store) and the gateway swaps to it only when the bundle it got
has exactly the published checkpoint; otherwise it keeps serving the catalog it
has and says why in :attr:`SharedCatalog.problem`. A swap is
:meth:`Gateway.replace_catalog`: calls in flight finish on the bundle they read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..catalog import AdmittedBundle, CatalogCheckpoint
from .gateway import Gateway, GatewayConfigError
from .postgres import PostgresJournal

__all__ = ["SharedCatalog"]

Loader = Callable[[CatalogCheckpoint], AdmittedBundle]


class SharedCatalog:
    """Keeps ``gateway`` on the newest catalog revision published in ``journal``.

    Args:
        gateway: the gateway to keep current.
        journal: the shared journal (the gateway's own, usually).
        load: builds the bundle for a published checkpoint.
        follow: check for a newer revision at each journal heartbeat; with False,
            only :meth:`refresh` does.

    Attributes:
        revision: the revision the gateway serves (0 before any was applied).
        problem: why the newest revision is not served, or None.
    """

    def __init__(
        self, gateway: Gateway, journal: PostgresJournal, load: Loader, *, follow: bool = True
    ) -> None:
        self._gateway = gateway
        self._journal = journal
        self._load = load
        self._lock = threading.Lock()
        self.revision = 0
        self.problem: str | None = None
        if follow:
            journal.on_beat(self._beat)

    def _beat(self) -> None:
        self.refresh()

    def publish(self, bundle: AdmittedBundle) -> int:
        """Serve ``bundle`` here and publish it for every other gateway; returns
        its revision.

        Raises:
            GatewayConfigError: this gateway cannot serve it (nothing is published).
        """
        with self._lock:
            self._gateway.replace_catalog(bundle)
            self.revision = self._journal.publish_catalog(bundle, by=self._gateway.owner)
            self.problem = None
            return self.revision

    def refresh(self) -> bool:
        """Apply a newer published revision, if there is one; True when the catalog
        was swapped. A loader that fails, or gives another checkpoint, or a bundle
        the gateway refuses, leaves the catalog as it was (see :attr:`problem`)."""
        with self._lock:
            latest = self._journal.latest_catalog(after=self.revision)
            if latest is None:
                return False
            revision, checkpoint = latest
            if checkpoint == self._gateway.bundle.checkpoint():
                self.revision, self.problem = revision, None
                return False
            try:
                bundle = self._load(checkpoint)
            except Exception as exc:
                self.problem = f"revision {revision}: the loader raised {type(exc).__name__}"
                return False
            if not isinstance(bundle, AdmittedBundle) or bundle.checkpoint() != checkpoint:
                self.problem = f"revision {revision}: the loader gave another catalog"
                return False
            try:
                self._gateway.replace_catalog(bundle)
            except GatewayConfigError as exc:
                self.problem = f"revision {revision}: {exc}"
                return False
            self.revision, self.problem = revision, None
            return True
