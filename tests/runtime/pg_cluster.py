"""A throwaway PostgreSQL cluster on 127.0.0.1 for the tests, CI and the load test.

``python -m tests.runtime.pg_cluster start DIR`` creates a cluster in ``DIR`` (which
must not exist yet; its parent must be one the server user can enter), starts it on
a free loopback port and prints its DSN; ``python -m tests.runtime.pg_cluster stop
DIR`` stops it. PostgreSQL refuses to run
as root, so as root the cluster belongs to the ``postgres`` system user (created by
the distribution's package) and every server command runs as that user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Cluster", "ClusterUnavailable", "find_bindir", "scratch_parent", "start", "stop"]

DATABASE = "schemacore_test"
SUPERUSER = "schemacore"


class ClusterUnavailable(RuntimeError):
    """No PostgreSQL server can be started here (and why)."""


@dataclass(frozen=True)
class Cluster:
    directory: Path
    port: int

    @property
    def dsn(self) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{DATABASE}"


def find_bindir() -> Path | None:
    """The newest server binaries: the distribution's versioned folders, else PATH."""
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if versions:
        return Path(versions[-1]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def scratch_parent() -> Path:
    """A new temporary folder the server user may enter (mkdtemp's is private)."""
    parent = Path(tempfile.mkdtemp(prefix="schemacore-pg-"))
    parent.chmod(0o711)
    return parent


def _as_server_user() -> tuple[list[str], int | None, int | None]:
    """The command prefix that runs a server binary, and the ids that own its files."""
    if os.geteuid() != 0:
        return [], None, None
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        raise ClusterUnavailable("running as root and there is no 'postgres' user") from None
    runuser = shutil.which("runuser")
    if runuser is None:
        raise ClusterUnavailable("running as root and runuser is missing")
    return [runuser, "-u", "postgres", "--"], user.pw_uid, user.pw_gid


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _run(command: list[str], log: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = log.read_text()[-2000:] if log.exists() else ""
        raise ClusterUnavailable(
            f"{' '.join(command)} failed: {done.stderr.strip()[-2000:]} {tail}"
        )


def start(directory: Path, *, durable: bool = False) -> Cluster:
    """Create and start a cluster in ``directory``. ``durable=False`` turns off fsync
    (tests only need a server, not a crash-safe one); the load test keeps it on."""
    bindir = find_bindir()
    if bindir is None:
        raise ClusterUnavailable("no PostgreSQL server binaries (initdb) on this machine")
    prefix, uid, gid = _as_server_user()
    directory.mkdir(parents=True)
    if uid is not None and gid is not None:
        os.chown(directory, uid, gid)
    data, log, sockets = directory / "data", directory / "server.log", directory / "sockets"
    port = _free_port()
    _run(
        [
            *prefix,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ],
        log,
    )
    sockets.mkdir()
    if uid is not None and gid is not None:
        os.chown(sockets, uid, gid)
    options = [
        "-c listen_addresses=127.0.0.1",
        f"-c port={port}",
        f"-c unix_socket_directories={sockets}",
        "-c max_connections=200",
    ]
    if not durable:
        options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
    _run(
        [
            *prefix,
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(log),
            "-o",
            " ".join(options),
            "-w",
            "-t",
            "60",
            "start",
        ],
        log,
    )
    cluster = Cluster(directory, port)
    try:
        _run(
            [
                str(bindir / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
                "-U",
                SUPERUSER,
                DATABASE,
            ],
            log,
        )
    except ClusterUnavailable:
        stop(directory)
        raise
    (directory / "port").write_text(str(port))
    return cluster


def stop(directory: Path) -> None:
    """Stop the cluster in ``directory`` (fast shutdown) and delete its files."""
    bindir = find_bindir()
    data = directory / "data"
    if bindir is not None and (data / "postmaster.pid").exists():
        prefix, _, _ = _as_server_user()
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            check=False,
        )
    shutil.rmtree(directory, ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m tests.runtime.pg_cluster start|stop DIR", file=sys.stderr)
        return 2
    directory = Path(argv[1])
    if argv[0] == "stop":
        stop(directory)
        return 0
    try:
        print(start(directory).dsn)
    except ClusterUnavailable as exc:
        print(f"cannot start PostgreSQL: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
