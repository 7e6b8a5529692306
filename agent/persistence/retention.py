"""Retention for the SQL checkpointers: forget idle conversations, drop old checkpoints.

LangGraph keeps every checkpoint of a thread, so even a trimmed conversation accumulates one
row per step. ``agent prune`` bounds that: it deletes threads idle longer than the TTL, and in
the others keeps only the newest ``keep_last`` checkpoints per namespace, with their pending
writes (and, on Postgres, the channel blobs they reference). It never touches the latest
checkpoint, so the state the next turn loads is exactly what it was.

Idleness comes from the checkpoint id itself: LangGraph ids are time-ordered UUIDv6, so the
newest id of a thread carries the time of its last write. On Redis, keys expire natively
(``AGENT_CONVERSATION_TTL``), so there is nothing here for it.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.checkpoint.base import id as checkpoint_id_module

from agent.errors import BackendUnavailableError, ConfigurationError
from agent.persistence.checkpointers import CheckpointerURL, parse_checkpointer_url
from agent.persistence.sqlite_files import LOCK_TIMEOUT_SECONDS

_GREGORIAN_TO_UNIX_100NS = 0x01B21DD213814000


def checkpoint_time(checkpoint_id: str) -> datetime:
    """When a checkpoint was written, read from its UUIDv6 id."""
    ticks = checkpoint_id_module.UUID(checkpoint_id).time - _GREGORIAN_TO_UNIX_100NS
    return datetime.fromtimestamp(ticks / 10_000_000, tz=UTC)


@dataclass(frozen=True)
class StorageStats:
    """What a backend holds: rows per table and the bytes of their payloads."""

    checkpoints: int
    writes: int
    blobs: int
    payload_bytes: int


@dataclass
class PruneReport:
    backend: str
    threads_examined: int = 0
    idle_threads_deleted: list[str] = field(default_factory=list)
    checkpoints_deleted: int = 0
    writes_deleted: int = 0
    blobs_deleted: int = 0
    before: StorageStats | None = None
    after: StorageStats | None = None
    dry_run: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "dry_run": self.dry_run,
            "threads_examined": self.threads_examined,
            "idle_threads_deleted": self.idle_threads_deleted,
            "checkpoints_deleted": self.checkpoints_deleted,
            "writes_deleted": self.writes_deleted,
            "blobs_deleted": self.blobs_deleted,
            "before": self.before.__dict__ if self.before else None,
            "after": self.after.__dict__ if self.after else None,
        }


class Retention(ABC):
    """The SQL each backend needs; the pruning rules live in :meth:`prune`, once."""

    backend: str

    @abstractmethod
    def latest_checkpoints(self) -> dict[str, str]:
        """Each thread's newest checkpoint id."""

    @abstractmethod
    def checkpoint_ids(self, thread_id: str) -> list[tuple[str, str]]:
        """(namespace, checkpoint id) of a thread, newest first within each namespace."""

    @abstractmethod
    def delete_thread(self, thread_id: str) -> None: ...

    @abstractmethod
    def delete_checkpoints(
        self, thread_id: str, doomed: Sequence[tuple[str, str]]
    ) -> tuple[int, int, int]:
        """Delete the given checkpoints and their writes (and orphaned blobs); return the
        numbers of checkpoints, writes and blobs deleted."""

    @abstractmethod
    def stats(self, thread_id: str | None = None) -> StorageStats: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the connection."""

    def prune(
        self,
        *,
        idle_for: timedelta | None,
        keep_last: int = 1,
        now: datetime | None = None,
        dry_run: bool = False,
    ) -> PruneReport:
        if keep_last < 1:
            raise ConfigurationError("keep_last must be at least 1: the latest state is kept")
        now = now or datetime.now(UTC)
        report = PruneReport(self.backend, before=self.stats(), dry_run=dry_run)
        for thread_id, newest in sorted(self.latest_checkpoints().items()):
            report.threads_examined += 1
            if idle_for is not None and now - checkpoint_time(newest) > idle_for:
                report.idle_threads_deleted.append(thread_id)
                if not dry_run:
                    self.delete_thread(thread_id)
                continue
            doomed = _beyond_newest(self.checkpoint_ids(thread_id), keep_last)
            if dry_run:
                report.checkpoints_deleted += len(doomed)
            elif doomed:
                counts = self.delete_checkpoints(thread_id, doomed)
                report.checkpoints_deleted += counts[0]
                report.writes_deleted += counts[1]
                report.blobs_deleted += counts[2]
        report.after = self.stats()
        return report


def _beyond_newest(ids: Sequence[tuple[str, str]], keep_last: int) -> list[tuple[str, str]]:
    kept: dict[str, int] = {}
    doomed = []
    for namespace, checkpoint_id in ids:
        kept[namespace] = kept.get(namespace, 0) + 1
        if kept[namespace] > keep_last:
            doomed.append((namespace, checkpoint_id))
    return doomed


class SqliteRetention(Retention):
    backend = "sqlite"

    def __init__(self, parsed: CheckpointerURL) -> None:
        if not parsed.sqlite_path.is_file():
            raise BackendUnavailableError(f"no checkpoint database at {parsed.url}")
        self._conn = sqlite3.connect(str(parsed.sqlite_path), timeout=LOCK_TIMEOUT_SECONDS)

    def close(self) -> None:
        self._conn.close()

    def latest_checkpoints(self) -> dict[str, str]:
        rows = self._conn.execute(
            "SELECT thread_id, max(checkpoint_id) FROM checkpoints GROUP BY thread_id"
        )
        return dict(rows.fetchall())

    def checkpoint_ids(self, thread_id: str) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = ? "
            "ORDER BY checkpoint_ns, checkpoint_id DESC",
            (thread_id,),
        )
        return [(ns, cid) for ns, cid in rows.fetchall()]

    def delete_thread(self, thread_id: str) -> None:
        with self._conn:
            self._conn.execute("DELETE FROM checkpoints WHERE thread_id = ?", (thread_id,))
            self._conn.execute("DELETE FROM writes WHERE thread_id = ?", (thread_id,))

    def delete_checkpoints(
        self, thread_id: str, doomed: Sequence[tuple[str, str]]
    ) -> tuple[int, int, int]:
        rows = [(thread_id, ns, cid) for ns, cid in doomed]
        where = "thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
        with self._conn:
            checkpoints = self._conn.executemany(f"DELETE FROM checkpoints WHERE {where}", rows)
            deleted = checkpoints.rowcount
            writes = self._conn.executemany(f"DELETE FROM writes WHERE {where}", rows)
        return deleted, writes.rowcount, 0

    def stats(self, thread_id: str | None = None) -> StorageStats:
        where, params = ("WHERE thread_id = ?", (thread_id,)) if thread_id else ("", ())
        checkpoints, checkpoint_bytes = self._conn.execute(
            "SELECT count(*), coalesce(sum(length(checkpoint) + length(metadata)), 0) "
            f"FROM checkpoints {where}",
            params,
        ).fetchone()
        writes, write_bytes = self._conn.execute(
            f"SELECT count(*), coalesce(sum(length(value)), 0) FROM writes {where}", params
        ).fetchone()
        return StorageStats(checkpoints, writes, 0, checkpoint_bytes + write_bytes)


class PostgresRetention(Retention):
    backend = "postgres"

    def __init__(self, parsed: CheckpointerURL) -> None:
        import psycopg

        from agent.persistence.checkpointers import check_postgres

        check_postgres(parsed.url)
        self._conn = psycopg.connect(parsed.url, autocommit=True)

    def close(self) -> None:
        self._conn.close()

    def latest_checkpoints(self) -> dict[str, str]:
        rows = self._conn.execute(
            "SELECT thread_id, max(checkpoint_id) FROM checkpoints GROUP BY thread_id"
        )
        return {thread: newest for thread, newest in rows.fetchall()}

    def checkpoint_ids(self, thread_id: str) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = %s "
            "ORDER BY checkpoint_ns, checkpoint_id DESC",
            (thread_id,),
        )
        return [(ns, cid) for ns, cid in rows.fetchall()]

    def delete_thread(self, thread_id: str) -> None:
        with self._conn.transaction():
            for table in ("checkpoints", "checkpoint_writes", "checkpoint_blobs"):
                self._conn.execute(f"DELETE FROM {table} WHERE thread_id = %s", (thread_id,))

    def delete_checkpoints(
        self, thread_id: str, doomed: Sequence[tuple[str, str]]
    ) -> tuple[int, int, int]:
        namespaces = [ns for ns, _ in doomed]
        ids = [cid for _, cid in doomed]
        with self._conn.transaction():
            deleted = self._conn.execute(
                "DELETE FROM checkpoints c USING unnest(%s::text[], %s::text[]) AS d(ns, id) "
                "WHERE c.thread_id = %s AND c.checkpoint_ns = d.ns AND c.checkpoint_id = d.id",
                (namespaces, ids, thread_id),
            ).rowcount
            writes = self._conn.execute(
                "DELETE FROM checkpoint_writes w USING unnest(%s::text[], %s::text[]) AS d(ns, id) "
                "WHERE w.thread_id = %s AND w.checkpoint_ns = d.ns AND w.checkpoint_id = d.id",
                (namespaces, ids, thread_id),
            ).rowcount
            # a blob lives as long as some remaining checkpoint points at its version
            blobs = self._conn.execute(
                "DELETE FROM checkpoint_blobs b WHERE b.thread_id = %s AND NOT EXISTS ("
                "SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id "
                "AND c.checkpoint_ns = b.checkpoint_ns "
                "AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)",
                (thread_id,),
            ).rowcount
        return deleted, writes, blobs

    def stats(self, thread_id: str | None = None) -> StorageStats:
        where, params = ("WHERE thread_id = %s", (thread_id,)) if thread_id else ("", ())
        checkpoints, checkpoint_bytes = self._fetch(
            "SELECT count(*), coalesce(sum(pg_column_size(checkpoint) + "
            f"pg_column_size(metadata)), 0) FROM checkpoints {where}",
            params,
        )
        writes, write_bytes = self._fetch(
            f"SELECT count(*), coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes {where}",
            params,
        )
        blobs, blob_bytes = self._fetch(
            f"SELECT count(*), coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs {where}",
            params,
        )
        return StorageStats(checkpoints, writes, blobs, checkpoint_bytes + write_bytes + blob_bytes)

    def _fetch(self, sql: str, params: tuple[Any, ...]) -> tuple[int, int]:
        row = self._conn.execute(sql, params).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])


@contextmanager
def open_retention(url: str) -> Iterator[Retention]:
    """Retention for the checkpointer at ``url`` (SQLite or Postgres)."""
    parsed = parse_checkpointer_url(url)
    retention: Retention
    if parsed.backend == "sqlite":
        retention = SqliteRetention(parsed)
    elif parsed.backend == "postgres":
        retention = PostgresRetention(parsed)
    elif parsed.backend == "redis":
        raise ConfigurationError(
            "Redis expires conversations itself: set AGENT_CONVERSATION_TTL (e.g. 24h); "
            "`agent prune` is for sqlite:/// and postgresql:// checkpointers"
        )
    else:
        raise ConfigurationError("memory:// keeps nothing after the process ends: nothing to prune")
    try:
        yield retention
    finally:
        retention.close()
