"""Open a LangGraph checkpointer from a URL, sync or async, with no silent substitution.

``memory://`` (tests), ``sqlite:///relative/path`` or ``sqlite:////absolute/path`` (the
zero-setup default), ``postgresql://…`` (a connection pool; extra ``postgres``) and
``redis://…`` (needs the RediSearch and RedisJSON modules: Redis Stack or Redis 8; extra
``redis``). The backend a URL names is the backend you get, checked when it opens: an
unreachable server, a Redis without the modules or a missing extra is an error naming the URL
(password masked) before any conversation starts — never a quiet fallback to an in-memory saver
that loses every conversation on restart.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from agent.errors import BackendUnavailableError, ConfigurationError, MissingExtraError
from agent.persistence.sqlite_files import LOCK_TIMEOUT_SECONDS, enable_wal
from agent.settings import Settings, mask_url

Backend = Literal["memory", "sqlite", "postgres", "redis"]
_SCHEMES: dict[str, Backend] = {
    "memory": "memory",
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "redis": "redis",
    "rediss": "redis",
}
REQUIRED_REDIS_MODULES = {"search": "RediSearch", "rejson": "RedisJSON"}
CONNECT_TIMEOUT_SECONDS = 5


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


@dataclass(frozen=True)
class CheckpointerOptions:
    """How a checkpointer is opened beyond its URL."""

    ttl: timedelta | None = None  # Redis: native key expiry
    refresh_on_read: bool = True
    pool_size: int = 10

    @classmethod
    def from_settings(cls, settings: Settings) -> CheckpointerOptions:
        return cls(
            ttl=settings.conversation_ttl,
            refresh_on_read=settings.ttl_refresh_on_read,
            pool_size=settings.postgres_pool_size,
        )

    def redis_ttl(self) -> dict[str, Any] | None:
        if self.ttl is None:
            return None
        return {
            "default_ttl": self.ttl.total_seconds() / 60,  # the saver counts minutes
            "refresh_on_read": self.refresh_on_read,
        }


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
def open_checkpointer(
    url: str, options: CheckpointerOptions | None = None
) -> Iterator[BaseCheckpointSaver[str]]:
    """A ready (set-up, reachable) synchronous checkpointer for ``url``; closed on exit."""
    parsed = parse_checkpointer_url(url)
    options = options or CheckpointerOptions()
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
        with _open_postgres(parsed, options) as postgres_saver:
            yield postgres_saver
    else:
        with _open_redis(parsed, options) as redis_saver:
            yield redis_saver


@asynccontextmanager
async def open_async_checkpointer(
    url: str, options: CheckpointerOptions | None = None
) -> AsyncIterator[BaseCheckpointSaver[str]]:
    """A ready asynchronous checkpointer for ``url``: ``langgraph dev`` uses this."""
    parsed = parse_checkpointer_url(url)
    options = options or CheckpointerOptions()
    if parsed.backend == "memory":
        yield InMemorySaver()
    elif parsed.backend == "sqlite":
        import aiosqlite
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        _prepare_sqlite_file(parsed)
        async with aiosqlite.connect(str(parsed.sqlite_path), timeout=LOCK_TIMEOUT_SECONDS) as conn:
            async_sqlite_saver = AsyncSqliteSaver(conn)
            await async_sqlite_saver.setup()
            yield async_sqlite_saver
    elif parsed.backend == "postgres":
        async with _open_async_postgres(parsed, options) as postgres_saver:
            yield postgres_saver
    else:
        async with _open_async_redis(parsed, options) as redis_saver:
            yield redis_saver


# -- SQLite ------------------------------------------------------------------------------------
def _prepare_sqlite_file(parsed: CheckpointerURL) -> None:
    """Create the folder and put the file in WAL mode before the saver's own setup runs.

    The savers' setup switches to WAL too, but fails outright when another process is doing
    the same to a fresh file; :func:`enable_wal` waits that out. WAL mode is stored in the
    file, so the savers' switch is then a no-op.
    """
    try:
        parsed.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackendUnavailableError(
            f"cannot create the folder of {parsed.url}: {exc.strerror}"
        ) from exc
    try:
        conn = sqlite3.connect(str(parsed.sqlite_path), timeout=LOCK_TIMEOUT_SECONDS)
        try:
            enable_wal(conn)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise BackendUnavailableError(f"cannot open {parsed.url}: {exc}") from exc


def _connect_sqlite(parsed: CheckpointerURL) -> sqlite3.Connection:
    _prepare_sqlite_file(parsed)
    try:
        # SqliteSaver serialises access with its own lock, so sharing across threads is safe.
        return sqlite3.connect(
            str(parsed.sqlite_path), check_same_thread=False, timeout=LOCK_TIMEOUT_SECONDS
        )
    except sqlite3.Error as exc:
        raise BackendUnavailableError(f"cannot open {parsed.url}: {exc}") from exc


# -- PostgreSQL ----------------------------------------------------------------------------------
_POSTGRES_CONNECTION = {"autocommit": True, "prepare_threshold": 0}


def check_postgres(url: str) -> None:
    """Fail with a clear message unless the PostgreSQL server at ``url`` accepts us."""
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_SECONDS).close()
    except psycopg.OperationalError as exc:
        reason = " ".join(str(exc).split())
        raise BackendUnavailableError(
            f"cannot reach PostgreSQL at {mask_url(url)}: {reason}"
        ) from exc


# Two processes starting at once would both run the saver's migrations and one would fail on
# a duplicate migration row; a session advisory lock makes setup one-at-a-time. The waiter
# polls with pg_try_advisory_lock instead of blocking in pg_advisory_lock: a blocked statement
# keeps a snapshot open, and the migrations' CREATE INDEX CONCURRENTLY waits for every open
# snapshot — the two processes would wait for each other forever.
_SETUP_LOCK_KEY = 0x61676E74  # "agnt"
_SETUP_POLL_SECONDS = 0.1


@contextmanager
def _postgres_setup_lock(url: str) -> Iterator[None]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        while not _scalar(conn.execute("SELECT pg_try_advisory_lock(%s)", (_SETUP_LOCK_KEY,))):
            time.sleep(_SETUP_POLL_SECONDS)
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK_KEY,))


@asynccontextmanager
async def _async_postgres_setup_lock(url: str) -> AsyncIterator[None]:
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        while True:
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (_SETUP_LOCK_KEY,))
            if _scalar_row(await cursor.fetchone()):
                break
            await asyncio.sleep(_SETUP_POLL_SECONDS)
        try:
            yield
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK_KEY,))


def _scalar(cursor: Any) -> Any:
    return _scalar_row(cursor.fetchone())


def _scalar_row(row: Any) -> Any:
    return row[0] if row else None


def _postgres_modules() -> Any:
    try:
        import psycopg_pool
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
    except ImportError as exc:
        raise MissingExtraError("A postgresql:// checkpointer", "postgres", str(exc.name)) from exc
    return psycopg_pool, PostgresSaver, dict_row


@contextmanager
def _open_postgres(
    parsed: CheckpointerURL, options: CheckpointerOptions
) -> Iterator[BaseCheckpointSaver[str]]:
    psycopg_pool, postgres_saver_class, dict_row = _postgres_modules()
    check_postgres(parsed.url)
    pool = psycopg_pool.ConnectionPool(
        parsed.url,
        min_size=1,
        max_size=options.pool_size,
        kwargs={**_POSTGRES_CONNECTION, "row_factory": dict_row},
        open=False,
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECONDS)
    except psycopg_pool.PoolTimeout as exc:
        pool.close()
        raise BackendUnavailableError(
            f"cannot reach PostgreSQL at {parsed.masked} within {CONNECT_TIMEOUT_SECONDS} s"
        ) from exc
    try:
        saver = postgres_saver_class(pool)
        with _postgres_setup_lock(parsed.url):
            saver.setup()
        yield saver
    finally:
        pool.close()


@asynccontextmanager
async def _open_async_postgres(
    parsed: CheckpointerURL, options: CheckpointerOptions
) -> AsyncIterator[BaseCheckpointSaver[str]]:
    psycopg_pool, _, dict_row = _postgres_modules()
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    check_postgres(parsed.url)
    pool = psycopg_pool.AsyncConnectionPool(
        parsed.url,
        min_size=1,
        max_size=options.pool_size,
        kwargs={**_POSTGRES_CONNECTION, "row_factory": dict_row},
        open=False,
    )
    try:
        await pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECONDS)
    except psycopg_pool.PoolTimeout as exc:
        await pool.close()
        raise BackendUnavailableError(
            f"cannot reach PostgreSQL at {parsed.masked} within {CONNECT_TIMEOUT_SECONDS} s"
        ) from exc
    try:
        saver = AsyncPostgresSaver(pool)
        async with _async_postgres_setup_lock(parsed.url):
            await saver.setup()
        yield saver
    finally:
        await pool.close()


# -- Redis ---------------------------------------------------------------------------------------
def check_redis(url: str) -> None:
    """Fail with a clear message unless ``url`` answers and has RediSearch and RedisJSON."""
    try:
        import redis
    except ImportError as exc:
        raise MissingExtraError("A redis:// checkpointer", "redis", str(exc.name)) from exc
    client = redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_SECONDS)
    try:
        modules = client.module_list()
    except redis.exceptions.ConnectionError as exc:
        raise BackendUnavailableError(f"cannot reach Redis at {mask_url(url)}: {exc}") from exc
    except redis.exceptions.ResponseError as exc:
        raise BackendUnavailableError(
            f"Redis at {mask_url(url)} cannot list its modules ({exc}); the checkpointer needs "
            "RediSearch and RedisJSON: use Redis Stack or Redis 8"
        ) from exc
    finally:
        client.close()
    loaded = {_module_name(m).lower() for m in modules}
    missing = [label for name, label in REQUIRED_REDIS_MODULES.items() if name not in loaded]
    if missing:
        raise BackendUnavailableError(
            f"Redis at {mask_url(url)} lacks the {' and '.join(missing)} module(s) that the "
            "Redis checkpointer needs. Run Redis Stack or Redis 8 instead (docker compose up "
            "redis, or `make services`), or use a postgresql:// or sqlite:/// checkpointer."
        )


def _module_name(module: Any) -> str:
    name = module.get(b"name", module.get("name", b"")) if isinstance(module, dict) else b""
    return name.decode() if isinstance(name, bytes) else str(name)


# The saver's setup checks whether its search indexes exist, then creates them: two processes
# setting up a fresh Redis at once both see none, and the second fails with "Index already
# exists". A lock key with an owner token makes setup one-at-a-time; its expiry frees it if
# the holder dies mid-setup.
_REDIS_SETUP_LOCK = "agent:checkpointer-setup-lock"
_REDIS_SETUP_LOCK_SECONDS = 60


def _redis_setup_lock_busy(parsed: CheckpointerURL) -> BackendUnavailableError:
    return BackendUnavailableError(
        f"Redis at {parsed.masked}: another process held the checkpointer setup lock "
        f"({_REDIS_SETUP_LOCK}) for {_REDIS_SETUP_LOCK_SECONDS} s"
    )


@contextmanager
def _redis_setup_lock(parsed: CheckpointerURL) -> Iterator[None]:
    import redis

    with redis.Redis.from_url(parsed.url) as client:
        lock = client.lock(
            _REDIS_SETUP_LOCK,
            timeout=_REDIS_SETUP_LOCK_SECONDS,
            blocking_timeout=_REDIS_SETUP_LOCK_SECONDS,
            thread_local=False,
        )
        if not lock.acquire():
            raise _redis_setup_lock_busy(parsed)
        try:
            yield
        finally:
            lock.release()


@asynccontextmanager
async def _async_redis_setup_lock(parsed: CheckpointerURL) -> AsyncIterator[None]:
    import redis.asyncio

    async with redis.asyncio.Redis.from_url(parsed.url) as client:
        lock = client.lock(
            _REDIS_SETUP_LOCK,
            timeout=_REDIS_SETUP_LOCK_SECONDS,
            blocking_timeout=_REDIS_SETUP_LOCK_SECONDS,
            thread_local=False,
        )
        if not await lock.acquire():
            raise _redis_setup_lock_busy(parsed)
        try:
            yield
        finally:
            await lock.release()


@contextmanager
def _open_redis(
    parsed: CheckpointerURL, options: CheckpointerOptions
) -> Iterator[BaseCheckpointSaver[str]]:
    check_redis(parsed.url)
    try:
        from langgraph.checkpoint.redis import RedisSaver
    except ImportError as exc:
        raise MissingExtraError("A redis:// checkpointer", "redis", str(exc.name)) from exc
    with RedisSaver.from_conn_string(parsed.url, ttl=options.redis_ttl()) as saver:
        with _redis_setup_lock(parsed):
            saver.setup()
        yield saver


@asynccontextmanager
async def _open_async_redis(
    parsed: CheckpointerURL, options: CheckpointerOptions
) -> AsyncIterator[BaseCheckpointSaver[str]]:
    check_redis(parsed.url)
    try:
        from langgraph.checkpoint.redis.aio import AsyncRedisSaver
    except ImportError as exc:
        raise MissingExtraError("A redis:// checkpointer", "redis", str(exc.name)) from exc
    async with AsyncExitStack() as stack:
        async with _async_redis_setup_lock(parsed):
            # entering the async saver runs its setup (asetup), so entering is what the lock
            # must cover
            saver = await stack.enter_async_context(
                AsyncRedisSaver.from_conn_string(parsed.url, ttl=options.redis_ttl())
            )
        yield saver
