"""The token budget, counted with tiktoken o200k_base from the files the package ships."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from agent.short_term import TokenBudget
from agent.short_term.tokens import (
    PER_MESSAGE_OVERHEAD,
    count_message_tokens,
    count_text_tokens,
)
from tests.unit.transcript import render

PASTED_TRACE = """Traceback (most recent call last):
  File "/app/service/db.py", line 42, in connect
    conn = psycopg.connect(settings.DATABASE_URL, connect_timeout=5)
psycopg.OperationalError: connection to server at "db.internal" (10.0.0.7), port 5432 failed: \
Connection refused
    Is the server running on that host and accepting TCP/IP connections?"""


def test_the_pasted_trace_is_about_ninety_tokens() -> None:
    assert 85 <= count_text_tokens(PASTED_TRACE) <= 95


def test_a_pasted_trace_pushes_out_the_oldest_turn_but_never_the_system_prompt() -> None:
    budget = TokenBudget(140)
    kept: list[BaseMessage] = [SystemMessage("Be terse.")]
    for n in (1, 2, 3):
        kept = budget.select([*kept, HumanMessage(f"short question {n}")])
        kept = budget.select([*kept, AIMessage(f"short answer {n}")])
    assert len(kept) == 7  # three short turns fit: nothing dropped yet

    kept = budget.select([*kept, HumanMessage(PASTED_TRACE)])
    kept = budget.select([*kept, AIMessage("Check the datasource URL.")])

    assert render(kept) == (
        "S:Be terse. | U:short question 2 | A:short answer 2 | U:short question 3 | "
        f"A:short answer 3 | U:{PASTED_TRACE} | A:Check the datasource URL."
    )
    assert sum(map(count_message_tokens, kept)) <= 140


def test_a_tight_budget_drops_whole_turns_and_never_leads_with_an_answer() -> None:
    history: list[BaseMessage] = [SystemMessage("Be terse.")]
    for n in range(1, 6):
        history += [HumanMessage(f"question {n}"), AIMessage(f"answer {n} " * 5)]
    kept = TokenBudget(45).select(history)
    assert isinstance(kept[1], HumanMessage)
    assert sum(map(count_message_tokens, kept)) <= 45


def test_a_question_larger_than_the_budget_is_still_sent_with_the_system_prompt() -> None:
    kept = TokenBudget(40).select(
        [SystemMessage("S"), HumanMessage("u1"), AIMessage("a1"), HumanMessage(PASTED_TRACE)]
    )
    assert render(kept) == f"S:S | U:{PASTED_TRACE}"


def test_message_cost_is_text_tokens_plus_overhead_plus_tool_calls() -> None:
    plain = AIMessage("hello world")
    assert count_message_tokens(plain) == count_text_tokens("hello world") + PER_MESSAGE_OVERHEAD
    call = AIMessage("", tool_calls=[{"name": "search", "args": {"city": "Berlin"}, "id": "1"}])
    assert count_message_tokens(call) > PER_MESSAGE_OVERHEAD


def test_tiktoken_loads_o200k_base_with_the_network_disabled(tmp_path: Path) -> None:
    """A fresh process, an empty tiktoken cache, and every socket connection refused."""
    script = textwrap.dedent(
        """
        import socket

        def refuse(*args, **kwargs):
            raise OSError("network disabled by the test")

        socket.socket.connect = refuse
        socket.create_connection = refuse

        from agent.short_term.tokens import count_text_tokens, get_encoding
        assert get_encoding().name == "o200k_base"
        print(count_text_tokens("hello world"), count_text_tokens("What is my name?"))
        """
    )
    cache = tmp_path / "tiktoken-cache"
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={"TIKTOKEN_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    # o200k_base token counts, as OpenAI's tokenizer gives them
    assert result.stdout.split() == ["2", "5"]
    assert len(list(cache.iterdir())) >= 1
