"""``agent prune`` on SQLite and PostgreSQL: a 200-turn conversation stays bounded, idle ones
go, and the latest state is never touched."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent.app import TravelAgent
from agent.messages import message_to_json
from agent.models import OfflineChatModel
from agent.persistence.retention import StorageStats, checkpoint_time, open_retention
from agent.settings import Settings

SQL_BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture
def agent_on(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[[str], tuple[str, TravelAgent]]]:
    with ExitStack() as stack:

        def opened(backend: str) -> tuple[str, TravelAgent]:
            url = (
                f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
                if backend == "sqlite"
                else str(request.getfixturevalue("postgres_url"))
            )
            settings = Settings(model="offline", data_dir=tmp_path / "data", checkpointer_url=url,
                                long_term_memory=False, max_messages=20)  # fmt: skip
            agent = stack.enter_context(TravelAgent.open(settings, model=OfflineChatModel()))
            return url, agent

        yield opened


def talk(agent: TravelAgent, conversation: str, turns: int) -> None:
    for n in range(turns):
        agent.send(
            f"Tell me about trip number {n} please", user_id="u", conversation_id=conversation
        )


def thread_stats(url: str, conversation: str) -> StorageStats:
    with open_retention(url) as retention:
        return retention.stats(conversation)


@pytest.mark.parametrize("backend", SQL_BACKENDS)
def test_a_200_turn_conversation_is_bounded_after_pruning(
    backend: str, agent_on: Callable[[str], tuple[str, TravelAgent]], record_property: Any
) -> None:
    url, agent = agent_on(backend)
    short, long = f"short-{uuid.uuid4().hex[:6]}", f"long-{uuid.uuid4().hex[:6]}"
    talk(agent, short, 20)
    talk(agent, long, 200)
    latest_before = [message_to_json(m) for m in agent.history(long)]
    grown = thread_stats(url, long)

    with open_retention(url) as retention:
        report = retention.prune(idle_for=None, keep_last=1)
    pruned_long, pruned_short = thread_stats(url, long), thread_stats(url, short)

    record_property("long_before", grown.__dict__)
    record_property("long_after", pruned_long.__dict__)
    assert grown.checkpoints >= 200  # at least one checkpoint per turn
    assert pruned_long.checkpoints == 1 and pruned_short.checkpoints == 1
    # bounded: 200 turns cost what 20 turns cost, because the window bounds the latest state
    assert pruned_long.payload_bytes <= 1.25 * pruned_short.payload_bytes
    assert pruned_long.payload_bytes < grown.payload_bytes / 50
    assert report.checkpoints_deleted > 0 and not report.idle_threads_deleted
    # the latest state is untouched, and the conversation carries on
    assert [message_to_json(m) for m in agent.history(long)] == latest_before
    talk(agent, long, 1)
    assert len(agent.history(long)) == 20


@pytest.mark.parametrize("backend", SQL_BACKENDS)
def test_idle_conversations_are_deleted_and_active_ones_kept(
    backend: str, agent_on: Callable[[str], tuple[str, TravelAgent]]
) -> None:
    url, agent = agent_on(backend)
    idle, active = f"idle-{uuid.uuid4().hex[:6]}", f"active-{uuid.uuid4().hex[:6]}"
    talk(agent, idle, 2)
    with open_retention(url) as retention:
        last_write = checkpoint_time(retention.latest_checkpoints()[idle])
    assert abs(datetime.now(UTC) - last_write) < timedelta(minutes=1)
    time.sleep(3)
    talk(agent, active, 2)

    with open_retention(url) as retention:
        preview = retention.prune(idle_for=timedelta(seconds=2), dry_run=True)
    assert idle in preview.idle_threads_deleted and active not in preview.idle_threads_deleted
    assert len(agent.history(idle)) == 4  # a dry run deletes nothing

    with open_retention(url) as retention:
        report = retention.prune(idle_for=timedelta(seconds=2))
    assert idle in report.idle_threads_deleted
    assert agent.history(idle) == [] and thread_stats(url, idle).checkpoints == 0
    assert len(agent.history(active)) == 4


def test_prune_refuses_backends_it_does_not_apply_to() -> None:
    from agent.errors import ConfigurationError

    with (
        pytest.raises(ConfigurationError, match="Redis expires conversations itself"),
        open_retention("redis://localhost:6379/0"),
    ):
        pass
    with pytest.raises(ConfigurationError, match="memory://"), open_retention("memory://"):
        pass
