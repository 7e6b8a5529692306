"""The ``agent`` command as users script it: each test runs real processes on real files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.e2e.conftest import RunAgent

pytestmark = pytest.mark.e2e
CID = "6f0a1c9e-2b7d-4c55-9a53-0d1f3e7a2b10"


def test_a_conversation_survives_a_restart_on_sqlite(run_agent: RunAgent, tmp_path: Path) -> None:
    first = run_agent("chat", "--conversation", CID, "-m", "My name is Priya")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "Nice to meet you, Priya.\n"
    assert (tmp_path / "data" / "checkpoints.sqlite").is_file()

    second = run_agent("chat", "--conversation", CID, "-m", "What is my name?")
    assert second.returncode == 0, second.stderr
    assert second.stdout == "Your name is Priya.\n"


def test_show_request_prints_every_model_call_to_stderr(run_agent: RunAgent) -> None:
    run_agent("chat", "--conversation", CID, "-m", "My name is Priya")
    result = run_agent(
        "chat", "--conversation", CID, "--show-request", "-m", "Which cities can you book?"
    )
    assert result.returncode == 0, result.stderr
    assert "Served cities" in result.stdout
    trace = result.stderr
    assert "--- model request 1: 4 messages ---" in trace
    assert "--- model request 2: 6 messages ---" in trace
    request_1 = trace.split("--- model request 1")[1].split("--- model request 2")[0]
    lines = [line.strip() for line in request_1.splitlines()[1:] if line.strip()]
    assert [line.split(":")[0] for line in lines] == ["system", "user", "assistant", "user"]
    assert lines[1] == "user: My name is Priya"
    assert "tool: Served cities" in trace


def test_history_json_is_a_list_of_roles_and_contents(run_agent: RunAgent) -> None:
    run_agent("chat", "--conversation", CID, "-m", "My name is Priya")
    result = run_agent("history", "--conversation", CID, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        {"role": "user", "content": "My name is Priya"},
        {"role": "assistant", "content": "Nice to meet you, Priya."},
    ]


def test_history_delete_removes_every_stored_row(run_agent: RunAgent, tmp_path: Path) -> None:
    run_agent("chat", "--conversation", CID, "-m", "My name is Priya")
    database = tmp_path / "data" / "checkpoints.sqlite"

    def rows() -> int:
        with sqlite3.connect(database) as conn:
            return sum(
                conn.execute(
                    f"SELECT count(*) FROM {table} WHERE thread_id = ?", (CID,)
                ).fetchone()[0]
                for table in ("checkpoints", "writes")
            )

    assert rows() > 0
    assert run_agent("history", "--conversation", CID, "--delete").returncode == 0
    assert rows() == 0
    assert json.loads(run_agent("history", "--conversation", CID, "--json").stdout) == []


def test_a_new_conversation_id_is_printed_when_omitted(run_agent: RunAgent) -> None:
    result = run_agent("chat", "--json", "-m", "hello")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert f"conversation: {payload['conversation_id']}" in result.stderr
    assert len(payload["conversation_id"]) == 36


def test_an_invalid_conversation_id_fails_cleanly_and_stores_nothing(
    run_agent: RunAgent, tmp_path: Path
) -> None:
    result = run_agent("chat", "--conversation", "bad id", "--show-request", "-m", "hi")
    assert result.returncode == 2
    assert "error: conversation_id: 'bad id' is not valid" in result.stderr
    assert "model request" not in result.stderr
    assert "Traceback" not in result.stderr
    with sqlite3.connect(tmp_path / "data" / "checkpoints.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0] == 0


def test_a_misspelt_setting_stops_the_command_with_a_suggestion(run_agent: RunAgent) -> None:
    result = run_agent("chat", "-m", "hi", env={"AGENT_MAX_MESAGES": "6"})
    assert result.returncode == 2
    assert "Unknown setting AGENT_MAX_MESAGES" in result.stderr
    assert "Did you mean AGENT_MAX_MESSAGES?" in result.stderr


def test_the_default_model_without_a_key_says_what_to_set(run_agent: RunAgent) -> None:
    result = run_agent("chat", "-m", "hi", env={"AGENT_MODEL": "openai:gpt-4o-mini"})
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr
    assert result.stdout == ""


def test_start_up_logs_name_the_resolved_backends(run_agent: RunAgent) -> None:
    result = run_agent("chat", "-m", "hi")
    assert "backends: model=offline (deterministic test double, NOT an LLM)" in result.stderr
    assert "checkpointer=sqlite:///" in result.stderr
    assert "window=messages (keep at most 20)" in result.stderr


def test_doctor_checks_each_backend(run_agent: RunAgent) -> None:
    result = run_agent("doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "[ok] checkpointer" in result.stdout
    assert "[ok] token counter" in result.stdout


def test_doctor_fails_on_an_unusable_backend(run_agent: RunAgent) -> None:
    result = run_agent("doctor", env={"AGENT_CHECKPOINTER_URL": "mysql://db/agent"})
    assert result.returncode == 1
    assert "[FAIL] checkpointer: AGENT_CHECKPOINTER_URL='mysql://db/agent'" in result.stdout


def test_the_repl_reads_messages_until_end_of_input(run_agent: RunAgent) -> None:
    result = run_agent(
        "chat", "--conversation", CID, stdin="My name is Priya\n\nWhat is my name?\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["Nice to meet you, Priya.", "Your name is Priya."]


def test_demo_tells_its_story(run_agent: RunAgent) -> None:
    result = run_agent("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "NOT an LLM" in out
    first, second = out.split("=== Conversation 2")
    # the name left the window of conversation 1 and came back through the memory block
    last_turn = first.split("[priya #5] What is my name?")[1]
    assert "1. [SEMANTIC] User's name is Priya" in last_turn
    assert "user: My name is Priya." not in last_turn
    assert "reply: Your name is Priya." in last_turn
    # a preference from conversation 1 chose the tool argument in conversation 2
    mine, theirs = second.split("=== Another user")
    searches = [line for line in mine.splitlines() if "tool call search_cars" in line]
    assert "'car_class': 'economy'" in searches[0]
    assert "superseded (kept, no longer recalled): [EPISODIC] User prefers economy cars" in mine
    assert "'car_class': 'suv'" in searches[1]
    assert "BK-" in mine.split("List my bookings.")[-1]
    # another user gets nothing of Priya's
    assert "reply: I do not know your name yet." in theirs
    assert "You have no bookings." in theirs
    # tool round trips are sent to the model but never kept
    for block in out.split("kept history")[1:]:
        kept = block.split("\n\n")[0]
        assert "tool:" not in kept and "tool call" not in kept
