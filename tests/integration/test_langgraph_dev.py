"""The graph served by a real ``langgraph dev``, as LangGraph Studio and SDK clients use it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.integration.http_client import as_user, new_thread, run

pytestmark = pytest.mark.langgraph_dev


def test_a_thread_survives_a_server_restart_on_the_sqlite_default(
    dev_server: Callable[[dict[str, str | None]], Any],
) -> None:
    with dev_server({}) as url:
        thread_id = new_thread(url)
        first = run(url, thread_id, "My name is Priya")
        assert first["messages"][-1]["content"] == "Nice to meet you, Priya."
        tool_turn = run(
            url, thread_id, "Which cities can you book in Spain?", context={"user_id": "alice"}
        )
        # the kept history holds the question and the answer, not the tool round trip
        assert [m["type"] for m in tool_turn["messages"]] == ["human", "ai", "human", "ai"]

    with dev_server({}) as url:  # a new process over the same SQLite file
        state = httpx.get(
            f"{url}/threads/{thread_id}/state", headers=as_user("alice"), timeout=10
        ).json()
        assert len(state["values"]["messages"]) == 4
        again = run(url, thread_id, "What is my name?")
        assert again["messages"][-1]["content"] == "Your name is Priya."


def test_the_window_setting_applies_under_the_server(
    dev_server: Callable[[dict[str, str | None]], Any],
) -> None:
    with dev_server({"AGENT_MAX_MESSAGES": "4"}) as url:
        thread_id = new_thread(url)
        for n in range(4):
            result = run(url, thread_id, f"message {n}")
        assert [m["content"] for m in result["messages"]][::2] == ["message 2", "message 3"]


def test_a_request_without_a_user_is_refused(
    dev_server: Callable[[dict[str, str | None]], Any],
) -> None:
    with dev_server({}) as url:
        response = httpx.post(f"{url}/threads", json={}, timeout=10)
        assert response.status_code == 401
        assert "X-User-Id" in response.json()["detail"]


def test_a_server_without_an_auth_mode_refuses_to_start(
    dev_server: Callable[[dict[str, str | None]], Any], tmp_path: Any
) -> None:
    with pytest.raises(RuntimeError), dev_server({"AGENT_AUTH": None}):
        pass
    assert "AGENT_AUTH is not set" in (tmp_path / "langgraph-dev.log").read_text()


def test_a_misconfigured_server_refuses_to_start(
    dev_server: Callable[[dict[str, str | None]], Any], tmp_path: Any
) -> None:
    with pytest.raises(RuntimeError), dev_server({"AGENT_WINDOWS": "tokens"}):
        pass
    assert "Did you mean AGENT_WINDOW?" in (tmp_path / "langgraph-dev.log").read_text()


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("postgres_url", id="postgres", marks=pytest.mark.postgres),
        pytest.param("redis_url", id="redis", marks=pytest.mark.redis),
    ],
)
def test_a_thread_survives_a_server_restart_on_postgres_and_redis(
    backend: str,
    request: pytest.FixtureRequest,
    dev_server: Callable[[dict[str, str | None]], Any],
) -> None:
    env = {"AGENT_CHECKPOINTER_URL": request.getfixturevalue(backend)}
    with dev_server(env) as url:
        thread_id = new_thread(url)
        run(url, thread_id, "My name is Priya")
    with dev_server(env) as url:
        again = run(url, thread_id, "What is my name?")
        assert again["messages"][-1]["content"] == "Your name is Priya."
        assert len(again["messages"]) == 4
