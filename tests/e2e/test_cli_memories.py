"""``agent memories …`` and the memory side of ``agent chat``, as scripts use them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import RunAgent

pytestmark = pytest.mark.e2e


def memories(run_agent: RunAgent, *args: str) -> subprocess.CompletedProcess[str]:
    result = run_agent("memories", *args)
    assert result.returncode == 0, result.stderr
    return result


def test_chat_waits_for_extraction_before_it_exits(run_agent: RunAgent) -> None:
    chat = run_agent("chat", "-m", "My name is Priya", "--user", "priya")
    assert chat.stdout == "Nice to meet you, Priya.\n"
    listed = json.loads(memories(run_agent, "list", "--user", "priya", "--json").stdout)
    assert [(m["content"], m["memory_type"]) for m in listed] == [
        ("User's name is Priya", "SEMANTIC")
    ]
    again = run_agent("chat", "-m", "What is my name?", "--user", "priya")
    assert again.stdout == "Your name is Priya.\n"  # a new conversation, from memory


def test_add_list_update_and_forget(run_agent: RunAgent) -> None:
    added = json.loads(
        memories(run_agent, "add", "User prefers economy cars", "--user", "a", "--json").stdout
    )
    assert len(added["added"]) == 1
    dup = json.loads(
        memories(run_agent, "add", "User prefers economy cars", "--user", "a", "--json").stdout
    )
    assert dup["added"] == [] and len(dup["skipped"]) == 1
    update = json.loads(
        memories(
            run_agent, "add", "User prefers SUVs for rental cars", "--user", "a", "--json"
        ).stdout
    )
    assert update["updated"][0]["old"]["content"] == "User prefers economy cars"
    active = json.loads(memories(run_agent, "list", "--user", "a", "--json").stdout)
    everything = json.loads(memories(run_agent, "list", "--user", "a", "--all", "--json").stdout)
    assert [m["content"] for m in active] == ["User prefers SUVs for rental cars"]
    assert len(everything) == 2

    one = memories(run_agent, "forget", "--user", "a", "--id", active[0]["id"], "--json")
    assert json.loads(one.stdout) == {"deleted": 1}
    missing = run_agent("memories", "forget", "--user", "a", "--id", "nope")
    assert missing.returncode == 1 and "no memory nope" in missing.stderr
    rest = memories(run_agent, "forget", "--user", "a", "--json")
    assert json.loads(rest.stdout) == {"deleted": 1}


def test_import_then_search_with_a_queries_file(run_agent: RunAgent, tmp_path: Path) -> None:
    records = tmp_path / "memories.jsonl"
    rows = [
        {"content": "User is vegetarian", "memory_type": "SEMANTIC"},
        {
            "content": "User flew to Tokyo in 2025",
            "memory_type": "EPISODIC",
            "created_at": "2025-05-01T10:00:00+00:00",
            "metadata": {"source": "crm"},
        },
        {"content": "User prefers aisle seats", "memory_type": "EPISODIC"},
    ]
    records.write_text("\n".join(json.dumps(r) for r in rows))
    imported = memories(run_agent, "import", str(records), "--user", "u", "--json")
    assert json.loads(imported.stdout) == {"imported": 3}
    queries = tmp_path / "queries.txt"
    queries.write_text("any dietary needs?\nwhich seat should I pick\n")
    lines = memories(run_agent, "search", "--queries", str(queries), "--user", "u").stdout
    results = [json.loads(line) for line in lines.splitlines()]
    assert [r["query"] for r in results] == ["any dietary needs?", "which seat should I pick"]
    assert results[1]["results"][0]["content"] == "User prefers aisle seats"
    assert set(results[1]["results"][0]) >= {"id", "content", "memory_type", "score"}
    tokyo = json.loads(memories(run_agent, "list", "--user", "u", "--json").stdout)[0]
    assert tokyo["created_at"].startswith("2025-05-01") and tokyo["metadata"] == {"source": "crm"}


def test_a_bad_import_names_the_record_and_writes_nothing(
    run_agent: RunAgent, tmp_path: Path
) -> None:
    records = tmp_path / "bad.jsonl"
    records.write_text(
        '{"content": "User is vegetarian", "memory_type": "SEMANTIC"}\n'
        '{"content": "User likes trains", "memory_type": "PREFERENCE"}\n'
    )
    result = run_agent("memories", "import", str(records), "--user", "u")
    assert result.returncode == 2
    assert "record 2: memory_type must be EPISODIC or SEMANTIC" in result.stderr
    assert json.loads(memories(run_agent, "list", "--user", "u", "--json").stdout) == []


def test_concurrent_processes_adding_one_memory_store_it_once(run_agent: RunAgent) -> None:
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(
                lambda _: run_agent("memories", "add", "User prefers window seats", "--user", "w"),
                range(4),
            )
        )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    listed = json.loads(memories(run_agent, "list", "--user", "w", "--json").stdout)
    assert [m["content"] for m in listed] == ["User prefers window seats"]
