"""One behaviour suite, unchanged, on every short-term backend: memory, SQLite, PostgreSQL and
Redis Stack — real servers, started by the test session."""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from langgraph.checkpoint.memory import InMemorySaver

from agent.app import TravelAgent
from agent.errors import BackendUnavailableError
from agent.models import OfflineChatModel
from agent.persistence import CheckpointerOptions, open_checkpointer
from agent.settings import Settings

BACKENDS = [
    pytest.param("memory", id="memory"),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
    pytest.param("redis", id="redis", marks=pytest.mark.redis),
]
DURABLE = [p for p in BACKENDS if p.id != "memory"]
LONGEST_ID = "user:alice.example.com:thread:2026-09-24_" + "x" * 87


@pytest.fixture
def url_for(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], str]:
    def url(backend: str) -> str:
        if backend == "memory":
            return "memory://"
        if backend == "sqlite":
            return f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
        fixture = {"postgres": "postgres_url", "redis": "redis_url"}[backend]
        return str(request.getfixturevalue(fixture))

    return url


@pytest.fixture
def open_agent(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """Open TravelAgents on a checkpointer URL; each call is a fresh saver instance."""
    from contextlib import ExitStack

    with ExitStack() as stack:

        def opened(url: str, **overrides: Any) -> TravelAgent:
            settings = Settings(
                model="offline",
                data_dir=tmp_path / "data",
                checkpointer_url=url,
                long_term_memory=False,
                **overrides,
            )
            return stack.enter_context(TravelAgent.open(settings, model=OfflineChatModel()))

        yield opened


def stored(url: str, thread_id: str, agent: TravelAgent) -> int:
    """Rows (SQL) or keys (Redis) stored for one conversation, counted in the backend itself."""
    if url.startswith("sqlite"):
        with sqlite3.connect(url[len("sqlite:///") :]) as conn:
            total = 0
            for table in ("checkpoints", "writes"):
                sql = f"SELECT count(*) FROM {table} WHERE thread_id = ?"
                total += conn.execute(sql, (thread_id,)).fetchone()[0]
            return total
    if url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(url) as conn:
            total = 0
            for table in ("checkpoints", "checkpoint_writes", "checkpoint_blobs"):
                row = conn.execute(
                    f"SELECT count(*) FROM {table} WHERE thread_id = %s", (thread_id,)
                )
                total += row.fetchone()[0]  # type: ignore[index]
            return total
    if url.startswith("redis"):
        client = redis.Redis.from_url(url)
        return sum(1 for _ in client.scan_iter(match=f"*:{thread_id}:__empty__*"))
    saver = agent.checkpointer
    assert isinstance(saver, InMemorySaver)
    return len(saver.storage.get(thread_id, {})) + sum(
        1 for key in saver.writes if key[0] == thread_id
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_window_is_applied_to_what_each_backend_keeps(
    backend: str, url_for: Callable[[str], str], open_agent: Callable[..., TravelAgent]
) -> None:
    agent = open_agent(url_for(backend), max_messages=4)
    conversation = f"window-{uuid.uuid4().hex[:8]}"
    for n in range(1, 7):
        agent.send(f"u{n}", user_id="alice", conversation_id=conversation)
    kept = [str(m.content) for m in agent.history(conversation)]
    assert kept[0::2] == ["u5", "u6"] and len(kept) == 4


@pytest.mark.parametrize("backend", DURABLE)
def test_a_conversation_survives_a_new_saver_instance(
    backend: str, url_for: Callable[[str], str], open_agent: Callable[..., TravelAgent]
) -> None:
    url = url_for(backend)
    conversation = f"restart-{uuid.uuid4().hex[:8]}"
    open_agent(url).send("My name is Priya", user_id="alice", conversation_id=conversation)
    again = open_agent(url)  # another pool / connection / client, as after a restart
    assert again.send("What is my name?", user_id="alice", conversation_id=conversation).text == (
        "Your name is Priya."
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_deleting_a_conversation_removes_every_row_or_key(
    backend: str, url_for: Callable[[str], str], open_agent: Callable[..., TravelAgent]
) -> None:
    url = url_for(backend)
    agent = open_agent(url)
    doomed, other = f"doomed-{uuid.uuid4().hex[:8]}", f"other-{uuid.uuid4().hex[:8]}"
    for conversation in (doomed, other):
        agent.send("Which cities can you book?", user_id="alice", conversation_id=conversation)
    before = stored(url, doomed, agent)
    assert before > 0
    agent.delete_conversation(doomed)
    assert stored(url, doomed, agent) == 0
    assert agent.history(doomed) == []
    assert stored(url, other, agent) > 0 and len(agent.history(other)) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_longest_valid_conversation_id_is_stored_whole(
    backend: str, url_for: Callable[[str], str], open_agent: Callable[..., TravelAgent]
) -> None:
    assert len(LONGEST_ID) == 128
    agent = open_agent(url_for(backend))
    agent.send("My name is Priya", user_id="alice", conversation_id=LONGEST_ID)
    prefix = LONGEST_ID[:36]  # what a 36-character column would have kept
    assert agent.history(prefix) == []
    assert agent.send("What is my name?", user_id="alice", conversation_id=LONGEST_ID).text == (
        "Your name is Priya."
    )
    agent.delete_conversation(LONGEST_ID)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite:////proc/no-such-dir/checkpoints.sqlite", "cannot create the folder"),
        ("postgresql://agent:secret@127.0.0.1:1/agent", "cannot reach PostgreSQL at"),
        ("redis://:secret@127.0.0.1:1/0", "cannot reach Redis at"),
    ],
    ids=["sqlite", "postgres", "redis"],
)
def test_an_unreachable_backend_fails_at_start_up_naming_it(url: str, message: str) -> None:
    with pytest.raises(BackendUnavailableError) as error, open_checkpointer(url):
        pass
    assert message in str(error.value)
    assert "secret" not in str(error.value)


@pytest.mark.redis
def test_redis_without_the_modules_says_which_are_missing(plain_redis_url: str) -> None:
    with pytest.raises(BackendUnavailableError) as error, open_checkpointer(plain_redis_url):
        pass
    assert "lacks the RediSearch and RedisJSON module(s)" in str(error.value)
    assert "Redis Stack or Redis 8" in str(error.value)


@pytest.mark.redis
def test_redis_is_never_replaced_by_an_in_memory_saver(
    redis_url: str, open_agent: Callable[..., TravelAgent]
) -> None:
    # The reference design lost Redis as soon as the window was customised; here it cannot.
    agent = open_agent(redis_url, max_messages=6, window="messages")
    from langgraph.checkpoint.redis import RedisSaver

    assert isinstance(agent.checkpointer, RedisSaver)
    conversation = f"no-fallback-{uuid.uuid4().hex[:8]}"
    agent.send("hello", user_id="alice", conversation_id=conversation)
    assert stored(redis_url, conversation, agent) > 0
    assert agent.settings.describe()["checkpointer"] == redis_url


@pytest.mark.redis
def test_a_redis_ttl_really_expires_the_conversation(
    redis_url: str, open_agent: Callable[..., TravelAgent]
) -> None:
    agent = open_agent(redis_url, conversation_ttl="3s", ttl_refresh_on_read=False)
    conversation = f"ttl-{uuid.uuid4().hex[:8]}"
    agent.send("My name is Priya", user_id="alice", conversation_id=conversation)
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"*:{conversation}:__empty__*"))
    assert keys and all(0 < client.ttl(key) <= 3 for key in keys)
    time.sleep(4)
    assert stored(redis_url, conversation, agent) == 0
    assert agent.history(conversation) == []


@pytest.mark.redis
def test_reading_a_conversation_refreshes_its_redis_ttl(
    redis_url: str, open_agent: Callable[..., TravelAgent]
) -> None:
    agent = open_agent(redis_url, conversation_ttl="4s", ttl_refresh_on_read=True)
    conversation = f"refresh-{uuid.uuid4().hex[:8]}"
    agent.send("My name is Priya", user_id="alice", conversation_id=conversation)
    for _ in range(3):
        time.sleep(2)
        assert len(agent.history(conversation)) == 2  # each read restarts the clock
    assert agent.send("What is my name?", user_id="alice", conversation_id=conversation).text == (
        "Your name is Priya."
    )


def test_options_translate_the_ttl_to_the_redis_savers_minutes() -> None:
    from datetime import timedelta

    options = CheckpointerOptions(ttl=timedelta(hours=24), refresh_on_read=False)
    assert options.redis_ttl() == {"default_ttl": 1440.0, "refresh_on_read": False}
    assert CheckpointerOptions().redis_ttl() is None
