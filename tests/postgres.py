"""A throwaway PostgreSQL cluster for the tests: Debian's server binaries, a temp folder, a free
loopback port, trust authentication inside the cluster only.

The server refuses to run as root, so as root it runs as the `postgres` user the package creates
(runuser); as anyone else, as that user. One cluster per test session; a fresh database per test.
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg

__all__ = ["Cluster", "postgres_bin", "raw_sql", "start_cluster"]


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder, or None when the package is missing."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name or 0))
    found = [p for p in found if (p / "initdb").is_file()]
    return found[-1] if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    bin: Path
    folder: Path
    port: int
    as_postgres: bool

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://referee@127.0.0.1:{self.port}/{database}"

    def admin(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(
            host="127.0.0.1", port=self.port, user="referee", dbname="postgres", autocommit=True
        )

    def database(self) -> str:
        """A fresh, empty database's URL (from template0: nothing in it but PostgreSQL's own)."""
        name = f"t_{uuid.uuid4().hex[:16]}"
        with self.admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def stop(self) -> None:
        self._pg("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.folder.parent, ignore_errors=True)  # the temp folder it was made in

    def _pg(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, text=True, encoding="utf-8")


def start_cluster(base: Path) -> Cluster:
    """initdb and start a cluster under `base` (a folder the server's user can enter)."""
    binaries = postgres_bin()
    if binaries is None:
        raise RuntimeError("PostgreSQL is not installed (scripts/setup.sh installs it)")
    base.chmod(0o755)
    folder = base / "pg"
    (folder / "sock").mkdir(parents=True)
    as_postgres = os.getuid() == 0
    if as_postgres:
        shutil.chown(folder, "postgres")
        shutil.chown(folder / "sock", "postgres")
    cluster = Cluster(bin=binaries, folder=folder, port=_free_port(), as_postgres=as_postgres)
    data = str(folder / "data")
    cluster._pg("initdb", "-D", data, "-U", "referee", "--auth=trust", "--no-sync")
    options = f"-p {cluster.port} -k {folder / 'sock'} -c listen_addresses=127.0.0.1 -c fsync=off"
    cluster._pg("pg_ctl", "-D", data, "-w", "-l", str(folder / "log"), "-o", options, "start")
    return cluster


def raw_sql(home: Path, url: str | None, sql: str, params: tuple[object, ...] = ()) -> None:
    """Run a statement on a store's database behind referee's back (as an attacker would): the
    embedded one in `home`, else the PostgreSQL database at `url` (`%s` placeholders)."""
    if url is None:
        with sqlite3.connect(home / "referee.db") as conn:
            conn.execute(sql.replace("%s", "?"), params)
        return
    with psycopg.connect(url, autocommit=True) as pg:
        pg.execute(sql.encode(), params)  # type: ignore[call-overload]
