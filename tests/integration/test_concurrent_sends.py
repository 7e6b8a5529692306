"""2 processes x 10 concurrent sends to one conversation, sharing one backend: all 40 messages
are kept, none is duplicated, every answer follows its question."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from agent.app import TravelAgent
from agent.messages import message_role, message_text
from agent.models import OfflineChatModel
from agent.settings import Settings

REPO = Path(__file__).resolve().parents[2]


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
    for sender in senders:
        _, stderr = sender.communicate(timeout=300)
        assert sender.returncode == 0, stderr

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
