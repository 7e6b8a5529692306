"""Small HTTP helpers for tests that talk to a real `langgraph dev` server."""

from __future__ import annotations

from typing import Any

import httpx


def as_user(user: str) -> dict[str, str]:
    return {"X-User-Id": user}


def new_thread(url: str, user: str = "alice") -> str:
    response = httpx.post(f"{url}/threads", json={}, headers=as_user(user), timeout=10)
    response.raise_for_status()
    thread_id: str = response.json()["thread_id"]
    return thread_id


def run_request(url: str, thread_id: str, text: str, user: str, **extra: Any) -> httpx.Response:
    return httpx.post(
        f"{url}/threads/{thread_id}/runs/wait",
        json={
            "assistant_id": "travel_agent",
            "input": {"messages": [{"role": "user", "content": text}]},
            **extra,
        },
        headers=as_user(user),
        timeout=60,
    )


def run(url: str, thread_id: str, text: str, user: str = "alice", **extra: Any) -> dict[str, Any]:
    response = run_request(url, thread_id, text, user, **extra)
    response.raise_for_status()
    result: dict[str, Any] = response.json()
    return result
