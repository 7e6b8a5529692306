"""SQLite files the agent owns (bookings, embedded memories): open, migrate, transact.

Each file carries its schema version in ``PRAGMA user_version``; :func:`migrate` applies the
missing numbered migrations in one transaction, so ``setup`` is idempotent and an upgraded
package upgrades old files. ``BEGIN IMMEDIATE`` takes the write lock up front, which
serialises writers across threads and processes.

Switching a new file to WAL needs an exclusive lock, and SQLite answers "database is locked"
at once instead of calling the busy handler when two processes race to do it (waiting could
deadlock them). :func:`enable_wal` retries that until the timeout, so two processes opening
the same fresh file both succeed.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from agent.errors import BackendUnavailableError

LOCK_TIMEOUT_SECONDS = 30
_WAL_RETRY_SECONDS = 0.02


def enable_wal(conn: sqlite3.Connection, timeout: float = LOCK_TIMEOUT_SECONDS) -> None:
    """Put the file in WAL mode, waiting out other processes doing the same."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            # the primary result code, whatever extended BUSY variant SQLite reported
            busy = exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(_WAL_RETRY_SECONDS)


class SqliteFile:
    """One connection to one SQLite file, shared by threads under a lock."""

    def __init__(self, path: Path, what: str, migrations: Mapping[int, str]) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(
                str(path),
                check_same_thread=False,
                isolation_level=None,
                timeout=LOCK_TIMEOUT_SECONDS,
            )
            self.conn.row_factory = sqlite3.Row
            enable_wal(self.conn)
        except (OSError, sqlite3.Error) as exc:
            raise BackendUnavailableError(f"cannot open the {what} file {path}: {exc}") from exc
        self.lock = threading.RLock()
        self._migrate(migrations)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction holding both the thread lock and SQLite's write lock."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    def _migrate(self, migrations: Mapping[int, str]) -> None:
        with self.transaction() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for target in sorted(v for v in migrations if v > version):
                # executescript would commit the open transaction: run statement by statement
                for statement in migrations[target].split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {int(target)}")
