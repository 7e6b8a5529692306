"""2 processes x 10 concurrent sends to one conversation, sharing one backend: all 40 messages
are kept, none is duplicated, every answer follows its question. And processes that set up the
same fresh backend at the same moment (SQLite files, a Redis without indexes) all succeed."""

from __future__ import annotations

import asyncio
import multiprocessing
import subprocess
import sys
import time
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.app import TravelAgent
from agent.long_term.stores.embedded import EmbeddedMemoryStore
from agent.messages import message_role, message_text
from agent.models import OfflineChatModel
from agent.persistence.checkpointers import open_async_checkpointer, open_checkpointer
from agent.settings import Settings
from agent.tools.bookings import BookingStore
from tests.services.servers import redis_stack

REPO = Path(__file__).resolve().parents[2]
AT_ONCE = 4  # processes racing to set up one backend


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres_url", id="postgres", marks=pytest.mark.postgres),
        pytest.param("redis_url", id="redis", marks=pytest.mark.redis),
    ],
)
def test_two_processes_times_ten_concurrent_sends_keep_all_40_messages(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    url = (
        f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
        if backend == "sqlite"
        else str(request.getfixturevalue(backend))
    )
    conversation = f"crowd-{uuid.uuid4().hex[:8]}"
    senders = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.concurrent_sender",
                url,
                str(tmp_path),
                conversation,
                prefix,
                "10",
            ],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        for prefix in ("p1", "p2")
    ]
    try:
        for sender in senders:
            _, stderr = sender.communicate(timeout=300)
            assert sender.returncode == 0, stderr
    finally:
        for sender in senders:  # a failed sender must not leave the other one running
            if sender.poll() is None:
                sender.kill()
                sender.communicate()

    settings = Settings(model="offline", checkpointer_url=url, data_dir=tmp_path,
                        long_term_memory=False, max_messages=1000)  # fmt: skip
    with TravelAgent.open(settings, model=OfflineChatModel()) as agent:
        kept = agent.history(conversation)
    assert len(kept) == 40
    questions = [message_text(m) for m in kept if message_role(m) == "user"]
    assert sorted(questions) == sorted(f"p{p}-{n}" for p in (1, 2) for n in range(10))
    for question, answer in zip(kept[::2], kept[1::2], strict=True):
        assert message_role(question) == "user" and message_role(answer) == "assistant"
        assert message_text(answer).endswith(message_text(question))


def open_fresh_files(folder: str, start_at: float) -> str | None:
    """Open the agent's SQLite files in ``folder`` at ``start_at``; the error, if any."""
    time.sleep(max(0.0, start_at - time.time()))
    path = Path(folder)
    try:
        BookingStore(path / "bookings.sqlite").close()
        EmbeddedMemoryStore(path / "memories.sqlite").close()
        with open_checkpointer(f"sqlite:///{path / 'checkpoints.sqlite'}"):
            pass
    except Exception:  # reported to the test, which shows it
        return traceback.format_exc()
    return None


def open_redis_checkpointer(url: str, use_async: bool, start_at: float) -> str | None:
    """Open (and so set up) the Redis checkpointer at ``start_at``; the error, if any."""

    async def open_async() -> None:
        async with open_async_checkpointer(url):
            pass

    time.sleep(max(0.0, start_at - time.time()))
    try:
        if use_async:
            asyncio.run(open_async())
        else:
            with open_checkpointer(url):
                pass
    except Exception:  # reported to the test, which shows it
        return traceback.format_exc()
    return None


def assert_all_succeed_at_once(
    task: Callable[..., str | None],
    args_per_process: Callable[[int], list[tuple[Any, ...]]],
    rounds: int,
    before_round: Callable[[], None] = lambda: None,
) -> None:
    """Run ``task`` in :data:`AT_ONCE` processes at the same instant, ``rounds`` times."""
    with multiprocessing.get_context("spawn").Pool(AT_ONCE) as pool:
        pool.map(time.sleep, [0.0] * AT_ONCE)  # workers started and warm before round 1
        for round_ in range(rounds):
            before_round()
            start_at = time.time() + 0.2
            arguments = [(*args, start_at) for args in args_per_process(round_)]
            failures = [error for error in pool.starmap(task, arguments) if error]
            assert not failures, f"round {round_}:\n" + "\n".join(failures)


def test_processes_opening_the_same_fresh_sqlite_files_at_once_all_succeed(
    tmp_path: Path,
) -> None:
    # Switching a new file to WAL is a race SQLite does not wait out by itself; one try in
    # five failed with "database is locked" before the fix, so twenty rounds catch it.
    assert_all_succeed_at_once(
        open_fresh_files,
        lambda round_: [(str(tmp_path / f"round-{round_}"),)] * AT_ONCE,
        rounds=20,
    )


@pytest.mark.redis
def test_processes_setting_up_a_fresh_redis_checkpointer_at_once_all_succeed() -> None:
    # The saver checks for its indexes, then creates them; before the setup lock one try in
    # six failed with "Index already exists". A private server, so dropping the indexes
    # before each round cannot disturb other tests; sync and async openers race each other.
    import redis

    with redis_stack() as url, redis.Redis.from_url(url) as client:

        def drop_indexes() -> None:
            for name in client.execute_command("FT._LIST"):
                client.ft(name.decode()).dropindex()

        assert_all_succeed_at_once(
            open_redis_checkpointer,
            lambda _: [(url, n % 2 == 1) for n in range(AT_ONCE)],
            rounds=10,
            before_round=drop_indexes,
        )
