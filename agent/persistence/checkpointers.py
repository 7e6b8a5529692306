"""Open a LangGraph checkpointer from a URL, sync or async, with no silent substitution.

``memory://`` (tests), ``sqlite:///relative/path`` or ``sqlite:////absolute/path`` (the
zero-setup default), ``postgresql://…`` and ``redis://…`` (production; optional extras). The
backend a URL names is the backend you get: an unreachable server or a missing extra is an error
naming the URL (password masked) before any conversation starts — never a quiet fallback to an
in-memory saver that loses every conversation on restart.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from agent.errors import BackendUnavailableError, ConfigurationError, MissingExtraError
from agent.settings import mask_url

Backend = Literal["memory", "sqlite", "postgres", "redis"]
_SCHEMES: dict[str, Backend] = {
    "memory": "memory",
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "redis": "redis",
    "rediss": "redis",
}


@dataclass(frozen=True)
class CheckpointerURL:
    """A parsed checkpointer URL."""

    url: str
    backend: Backend

    @property
    def masked(self) -> str:
        return mask_url(self.url)

    @property
    def sqlite_path(self) -> Path:
        """The database file of a ``sqlite:///`` URL (three slashes, then the path)."""
        return Path(self.url[len("sqlite:///") :])


def parse_checkpointer_url(url: str) -> CheckpointerURL:
    """Validate a checkpointer URL and name its backend."""
    scheme = urlsplit(url).scheme.lower()
    backend = _SCHEMES.get(scheme)
    if backend is None:
        raise ConfigurationError(
            f"AGENT_CHECKPOINTER_URL={mask_url(url)!r}: unsupported scheme {scheme!r}; use "
            "memory://, sqlite:///path, postgresql://… or redis://…"
        )
    if backend == "sqlite" and (not url.startswith("sqlite:///") or url == "sqlite:///"):
        raise ConfigurationError(
            f"AGENT_CHECKPOINTER_URL={url!r}: write sqlite:///relative/path.sqlite or "
            "sqlite:////absolute/path.sqlite"
        )
    return CheckpointerURL(url=url, backend=backend)


@contextmanager
def open_checkpointer(url: str) -> Iterator[BaseCheckpointSaver[str]]:
    """A ready (set-up) synchronous checkpointer for ``url``; closed on exit."""
    parsed = parse_checkpointer_url(url)
    if parsed.backend == "memory":
        yield InMemorySaver()
    elif parsed.backend == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        conn = _connect_sqlite(parsed)
        try:
            sqlite_saver = SqliteSaver(conn)
            sqlite_saver.setup()
            yield sqlite_saver
        finally:
            conn.close()
    elif parsed.backend == "postgres":
        with _open_postgres(parsed) as saver:
            yield saver
    else:
        with _open_redis(parsed) as redis_saver:
            yield redis_saver


@asynccontextmanager
async def open_async_checkpointer(url: str) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """A ready (set-up) asynchronous checkpointer for ``url``: ``langgraph dev`` uses this."""
    parsed = parse_checkpointer_url(url)
    if parsed.backend == "memory":
        yield InMemorySaver()
    elif parsed.backend == "sqlite":
        import aiosqlite
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        _prepare_sqlite_dir(parsed)
        async with aiosqlite.connect(str(parsed.sqlite_path)) as conn:
            async_sqlite_saver = AsyncSqliteSaver(conn)
            await async_sqlite_saver.setup()
            yield async_sqlite_saver
    elif parsed.backend == "postgres":
        async with _open_async_postgres(parsed) as saver:
            yield saver
    else:
        async with _open_async_redis(parsed) as redis_saver:
            yield redis_saver


def _prepare_sqlite_dir(parsed: CheckpointerURL) -> None:
    try:
        parsed.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackendUnavailableError(
            f"cannot create the folder of {parsed.url}: {exc.strerror}"
        ) from exc


def _connect_sqlite(parsed: CheckpointerURL) -> sqlite3.Connection:
    _prepare_sqlite_dir(parsed)
    try:
        # SqliteSaver serialises access with its own lock, so sharing across threads is safe.
        return sqlite3.connect(str(parsed.sqlite_path), check_same_thread=False)
    except sqlite3.Error as exc:
        raise BackendUnavailableError(f"cannot open {parsed.url}: {exc}") from exc


@contextmanager
def _open_postgres(parsed: CheckpointerURL) -> Iterator[BaseCheckpointSaver[str]]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as exc:
        raise MissingExtraError("A postgresql:// checkpointer", "postgres", str(exc.name)) from exc
    try:
        manager = PostgresSaver.from_conn_string(parsed.url)
        saver = manager.__enter__()
    except psycopg.OperationalError as exc:
        raise BackendUnavailableError(
            f"cannot reach PostgreSQL at {parsed.masked}: {_first_line(exc)}"
        ) from exc
    try:
        saver.setup()
        yield saver
    finally:
        manager.__exit__(None, None, None)


@asynccontextmanager
async def _open_async_postgres(parsed: CheckpointerURL) -> AsyncIterator[BaseCheckpointSaver[str]]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    except ImportError as exc:
        raise MissingExtraError("A postgresql:// checkpointer", "postgres", str(exc.name)) from exc
    try:
        manager = AsyncPostgresSaver.from_conn_string(parsed.url)
        saver = await manager.__aenter__()
    except psycopg.OperationalError as exc:
        raise BackendUnavailableError(
            f"cannot reach PostgreSQL at {parsed.masked}: {_first_line(exc)}"
        ) from exc
    try:
        await saver.setup()
        yield saver
    finally:
        await manager.__aexit__(None, None, None)


@contextmanager
def _open_redis(parsed: CheckpointerURL) -> Iterator[BaseCheckpointSaver[str]]:
    raise ConfigurationError(
        f"AGENT_CHECKPOINTER_URL={parsed.masked}: the Redis checkpointer is not available in "
        "this version; use sqlite:// or postgresql://"
    )
    yield  # pragma: no cover - unreachable, keeps this a generator


@asynccontextmanager
async def _open_async_redis(parsed: CheckpointerURL) -> AsyncIterator[BaseCheckpointSaver[str]]:
    raise ConfigurationError(
        f"AGENT_CHECKPOINTER_URL={parsed.masked}: the Redis checkpointer is not available in "
        "this version; use sqlite:// or postgresql://"
    )
    yield  # pragma: no cover - unreachable, keeps this a generator


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
