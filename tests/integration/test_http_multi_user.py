"""Many users, one server: every endpoint keeps alice's conversations and memories from bob,
the user id comes from authentication only, forget-me forgets everything of the caller's and
nothing else, and bad input is refused with a 4xx before anything is stored."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.conftest import langgraph_dev_server
from tests.integration.http_client import as_user, new_thread, run, run_request

pytestmark = pytest.mark.langgraph_dev


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("multi-user")
    env = {"AGENT_MODEL": "offline", "AGENT_DATA_DIR": str(data / "data"), "AGENT_AUTH": "dev",
           "AGENT_MAX_INPUT_CHARS": "20000", "AGENT_EXTRACTION": "inline"}  # fmt: skip
    with langgraph_dev_server(env, data / "langgraph-dev.log") as url:
        yield url, data / "data"


@pytest.fixture
def alice_thread(server: tuple[str, Path]) -> str:
    url, _ = server
    thread_id = new_thread(url, "alice")
    run(url, thread_id, "My name is Priya", user="alice")
    return thread_id


ENDPOINTS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/threads/{t}", None),
    ("PATCH", "/threads/{t}", {"metadata": {"owner": "bob"}}),
    ("GET", "/threads/{t}/state", None),
    ("POST", "/threads/{t}/state", {"values": {"messages": []}}),
    ("POST", "/threads/{t}/history", {}),
    ("POST", "/threads/{t}/runs/wait", {"assistant_id": "travel_agent", "input": None}),
    ("POST", "/threads/{t}/runs/stream", {"assistant_id": "travel_agent", "input": None}),
    ("POST", "/threads/{t}/runs", {"assistant_id": "travel_agent", "input": None}),
    ("GET", "/threads/{t}/runs", None),
    ("GET", "/conversations/{t}/messages", None),
    ("DELETE", "/conversations/{t}", None),
    ("DELETE", "/threads/{t}", None),
]


@pytest.mark.parametrize(
    ("method", "path", "body"), ENDPOINTS, ids=[f"{m} {p}" for m, p, _ in ENDPOINTS]
)
def test_alices_thread_is_invisible_and_unusable_to_bob(
    server: tuple[str, Path], alice_thread: str, method: str, path: str, body: Any
) -> None:
    url, _ = server
    response = httpx.request(
        method, url + path.format(t=alice_thread), json=body, headers=as_user("bob"), timeout=30
    )
    assert response.status_code == 404, response.text
    # and nothing happened to it
    mine = httpx.get(f"{url}/conversations/{alice_thread}/messages", headers=as_user("alice"))
    assert mine.json() == [
        {"role": "user", "content": "My name is Priya"},
        {"role": "assistant", "content": "Nice to meet you, Priya."},
    ]


def test_searching_threads_lists_only_your_own(server: tuple[str, Path], alice_thread: str) -> None:
    url, _ = server
    bobs = new_thread(url, "bob")
    found = httpx.post(f"{url}/threads/search", json={"limit": 100}, headers=as_user("bob")).json()
    ids = {t["thread_id"] for t in found}
    assert bobs in ids and alice_thread not in ids


def test_a_context_naming_another_user_is_refused(
    server: tuple[str, Path], alice_thread: str
) -> None:
    url, _ = server
    response = run_request(
        url, alice_thread, "What is my name?", "alice", context={"user_id": "bob"}
    )
    assert response.status_code == 403


def test_a_spoofed_user_in_the_config_never_reaches_bobs_memories(
    server: tuple[str, Path],
) -> None:
    url, _ = server
    run(url, new_thread(url, "bob"), "My name is Bob", user="bob")
    alices = new_thread(url, "alice")
    response = run_request(
        url, alices, "What is my name?", "alice", config={"configurable": {"user_id": "bob"}}
    )
    assert "Bob" not in response.text  # an error, or alice's own memories — never bob's
    own = run(url, new_thread(url, "alice"), "What is my name?", user="alice")
    assert own["messages"][-1]["content"] != "Your name is Bob."


def test_memories_routes_are_scoped_to_the_caller(server: tuple[str, Path]) -> None:
    url, _ = server
    run(url, new_thread(url, "carol"), "I prefer aisle seats", user="carol")
    carols = httpx.get(f"{url}/memories", headers=as_user("carol")).json()
    assert [m["content"] for m in carols] == ["User prefers aisle seats"]
    assert all(
        m["user_id"] != "carol" for m in httpx.get(f"{url}/memories", headers=as_user("bob")).json()
    )
    theirs = httpx.delete(f"{url}/memories/{carols[0]['id']}", headers=as_user("bob"))
    assert theirs.status_code == 404 and theirs.json()["error"].endswith("not found")
    mine = httpx.delete(f"{url}/memories/{carols[0]['id']}", headers=as_user("carol"))
    assert mine.status_code == 200
    assert httpx.get(f"{url}/memories", headers=as_user("carol")).json() == []


def count_bookings(data: Path, user: str) -> int:
    with sqlite3.connect(data / "bookings.sqlite") as conn:
        return int(
            conn.execute("SELECT count(*) FROM bookings WHERE user_id = ?", (user,)).fetchone()[0]
        )


def book_something(url: str, user: str) -> None:
    from datetime import date, timedelta

    start, end = (date.today() + timedelta(days=d) for d in (40, 42))
    thread = new_thread(url, user)
    found = run(url, thread, f"find me a rental car in Rome from {start} to {end}", user=user)
    text = found["messages"][-1]["content"]
    offer = next(line.split(":")[0][2:] for line in text.splitlines()
                 if line.startswith("- CR") and "sold out" not in line)  # fmt: skip
    run(url, thread, f"rent {offer} from {start} to {end}", user=user)


def test_forget_me_removes_everything_of_the_callers_and_nothing_else(
    server: tuple[str, Path],
) -> None:
    url, data = server
    for user in ("dave", "erin"):
        run(url, new_thread(url, user), "I prefer window seats", user=user)
        book_something(url, user)
    assert count_bookings(data, "dave") == 1 and count_bookings(data, "erin") == 1

    response = httpx.delete(f"{url}/memories", headers=as_user("dave"))
    assert response.status_code == 200
    assert response.json() == {"memories": 1, "conversations": 2, "bookings": 1}

    assert httpx.get(f"{url}/memories", headers=as_user("dave")).json() == []
    assert httpx.post(f"{url}/threads/search", json={}, headers=as_user("dave")).json() == []
    assert count_bookings(data, "dave") == 0
    assert len(httpx.get(f"{url}/memories", headers=as_user("erin")).json()) == 1
    assert len(httpx.post(f"{url}/threads/search", json={}, headers=as_user("erin")).json()) == 2
    assert count_bookings(data, "erin") == 1


BAD_RUNS = [
    (
        "a 1 MB message",
        {"input": {"messages": [{"role": "user", "content": "x" * 1_000_000}]}},
        413,
    ),
    ("unknown input field", {"input": {"messages": [], "owner": "bob"}}, 422),
    ("unknown context field", {"input": None, "context": {"tenant": "acme"}}, 422),
]


@pytest.mark.parametrize(("case", "body", "status"), BAD_RUNS, ids=[c for c, _, _ in BAD_RUNS])
def test_bad_run_input_is_a_4xx_json_error_and_stores_nothing(
    server: tuple[str, Path], case: str, body: dict[str, Any], status: int
) -> None:
    url, _ = server
    thread = new_thread(url, "frank")
    response = httpx.post(
        f"{url}/threads/{thread}/runs/wait",
        json={"assistant_id": "travel_agent", **body},
        headers=as_user("frank"),
        timeout=60,
    )
    assert response.status_code == status, response.text
    assert "detail" in response.json()
    state = httpx.get(f"{url}/threads/{thread}/state", headers=as_user("frank")).json()
    assert not (state.get("values") or {}).get("messages")


def test_malformed_json_and_invalid_ids_are_4xx(server: tuple[str, Path]) -> None:
    url, _ = server
    thread = new_thread(url, "frank")
    malformed = httpx.post(
        f"{url}/threads/{thread}/runs/wait",
        content=b'{"assistant_id": "travel_agent", "input": ',
        headers={**as_user("frank"), "content-type": "application/json"},
    )
    assert 400 <= malformed.status_code < 500
    invalid = httpx.get(f"{url}/conversations/not%20an%20id/messages", headers=as_user("frank"))
    assert invalid.status_code == 422 and "conversation_id" in invalid.json()["error"]
    unauthenticated = httpx.get(f"{url}/memories")
    assert unauthenticated.status_code == 401
