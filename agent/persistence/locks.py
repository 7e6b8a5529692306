"""One send at a time per conversation, in this process and across processes.

Two sends to the same conversation at once (a double-click, a retry after a timeout, two tabs)
would both read the same checkpoint and both write a successor: the history forks and the
first writer's message is lost from the latest state. The Python API and the CLI therefore
hold a per-conversation lock around each turn, chosen to match the checkpointer:

- every backend: a thread lock per conversation (sends inside one process);
- SQLite: an ``fcntl`` lock file per conversation next to the database;
- PostgreSQL: a session advisory lock on a key hashed from the conversation id;
- Redis: a lock key with an owner token and an expiry, renewed while the turn runs, so a
  crashed holder cannot block the conversation for longer than the expiry.

A send that cannot get the lock within the timeout fails with :class:`ConversationBusyError`
(the HTTP routes' 409). The LangGraph server has its own guard: runs on one thread are queued
(its default ``multitask_strategy="enqueue"``) or refused (``"reject"``, 409).
"""

from __future__ import annotations

import fcntl
import hashlib
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent.errors import ConversationBusyError
from agent.persistence.checkpointers import parse_checkpointer_url

POLL_SECONDS = 0.05


class ConversationLocks(ABC):
    """Per-conversation mutual exclusion; :meth:`hold` is the whole interface."""

    def __init__(self) -> None:
        self._local: dict[str, threading.Lock] = {}
        self._local_guard = threading.Lock()

    @contextmanager
    def hold(self, conversation_id: str, timeout: float) -> Iterator[None]:
        deadline = time.monotonic() + timeout
        with self._local_guard:
            local = self._local.setdefault(conversation_id, threading.Lock())
        if not local.acquire(timeout=max(timeout, 0.0)):
            raise ConversationBusyError(conversation_id, timeout)
        try:
            with self._hold_across_processes(conversation_id, deadline, timeout):
                yield
        finally:
            local.release()

    @abstractmethod
    def _hold_across_processes(self, conversation_id: str, deadline: float, timeout: float) -> Any:
        """A context manager that excludes other processes, or raises ConversationBusyError."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


class InProcessLocks(ConversationLocks):
    """For memory://, which no other process can see."""

    @contextmanager
    def _hold_across_processes(
        self, conversation_id: str, deadline: float, timeout: float
    ) -> Iterator[None]:
        yield


class FileLocks(ConversationLocks):
    """For SQLite: one lock file per conversation beside the database."""

    def __init__(self, directory: Path) -> None:
        super().__init__()
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def _hold_across_processes(
        self, conversation_id: str, deadline: float, timeout: float
    ) -> Iterator[None]:
        name = hashlib.sha256(conversation_id.encode()).hexdigest()[:40]
        with (self.directory / f"{name}.lock").open("a") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise ConversationBusyError(conversation_id, timeout) from None
                    time.sleep(POLL_SECONDS)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


class PostgresLocks(ConversationLocks):
    """Session advisory locks; each held lock keeps its own connection from a small pool."""

    def __init__(self, url: str, pool_size: int = 10) -> None:
        super().__init__()
        from psycopg_pool import ConnectionPool

        self._pool = ConnectionPool(
            url, min_size=0, max_size=pool_size, kwargs={"autocommit": True}, open=True
        )

    def close(self) -> None:
        self._pool.close()

    @contextmanager
    def _hold_across_processes(
        self, conversation_id: str, deadline: float, timeout: float
    ) -> Iterator[None]:
        key = int.from_bytes(
            hashlib.sha256(conversation_id.encode()).digest()[:8], "big", signed=True
        )
        with self._pool.connection() as conn:
            while True:
                row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                if row and row[0]:
                    break
                if time.monotonic() >= deadline:
                    raise ConversationBusyError(conversation_id, timeout)
                time.sleep(POLL_SECONDS)
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))


class RedisLocks(ConversationLocks):
    """A lock key per conversation with an owner token and an expiry, renewed while held."""

    def __init__(self, url: str, expiry: float = 60.0) -> None:
        super().__init__()
        import redis

        self._client = redis.Redis.from_url(url)
        self.expiry = expiry

    def close(self) -> None:
        self._client.close()

    @contextmanager
    def _hold_across_processes(
        self, conversation_id: str, deadline: float, timeout: float
    ) -> Iterator[None]:
        lock = self._client.lock(
            f"agent:conversation-lock:{conversation_id}",
            timeout=self.expiry,
            blocking=True,
            blocking_timeout=max(deadline - time.monotonic(), 0.0),
            thread_local=False,
        )
        if not lock.acquire(token=uuid.uuid4().hex.encode()):
            raise ConversationBusyError(conversation_id, timeout)
        stop = threading.Event()

        def renew() -> None:  # a long turn must not outlive its lock
            while not stop.wait(self.expiry / 3):
                lock.extend(self.expiry, replace_ttl=True)

        renewer = threading.Thread(target=renew, daemon=True, name="conversation-lock-renewer")
        renewer.start()
        try:
            yield
        finally:
            stop.set()
            renewer.join()
            lock.release()


def conversation_locks(checkpointer_url: str, pool_size: int = 10) -> ConversationLocks:
    """The locks that match a checkpointer: whoever shares the history shares the lock."""
    parsed = parse_checkpointer_url(checkpointer_url)
    if parsed.backend == "sqlite":
        return FileLocks(parsed.sqlite_path.parent / f"{parsed.sqlite_path.name}.locks")
    if parsed.backend == "postgres":
        return PostgresLocks(parsed.url, pool_size)
    if parsed.backend == "redis":
        return RedisLocks(parsed.url)
    return InProcessLocks()
