"""The message window, pinned turn by turn against the transcripts of the reference article."""

from __future__ import annotations

import itertools

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from agent.short_term import MessageWindow, plan_trim
from tests.unit.transcript import render


def run_turns(
    window: MessageWindow, turns: int, start: list[BaseMessage] | None = None
) -> list[str]:
    """Add one user+assistant turn at a time, trimming like the graph does; render each."""
    kept = list(start or [])
    lines = []
    for n in range(1, turns + 1):
        kept = window.select([*kept, HumanMessage(f"u{n}")])  # before the model call
        kept = window.select([*kept, AIMessage(f"a{n}")])  # after the answer
        lines.append(render(kept))
    return lines


def test_window_of_four_never_evicts_the_system_message_over_four_turns() -> None:
    lines = run_turns(MessageWindow(4), 4, start=[SystemMessage("SYS-1")])
    assert lines == [
        "S:SYS-1 | U:u1 | A:a1",
        "S:SYS-1 | U:u2 | A:a2",
        "S:SYS-1 | U:u3 | A:a3",
        "S:SYS-1 | U:u4 | A:a4",
    ]


def test_odd_window_of_five_keeps_one_message_fewer_rather_than_an_orphan_answer() -> None:
    lines = run_turns(MessageWindow(5), 4)
    assert lines == [
        "U:u1 | A:a1",
        "U:u1 | A:a1 | U:u2 | A:a2",
        "U:u2 | A:a2 | U:u3 | A:a3",
        "U:u3 | A:a3 | U:u4 | A:a4",
    ]


def test_a_different_system_message_replaces_the_old_one_at_the_front() -> None:
    window = MessageWindow(4)
    kept = [SystemMessage("SYS-1"), HumanMessage("u4"), AIMessage("a4")]
    kept = window.select([*kept, SystemMessage("SYS-2")])
    # The reference design appends SYS-2 after the answer; providers want it first.
    assert render(kept) == "S:SYS-2 | U:u4 | A:a4"


def test_a_repeated_identical_system_message_is_kept_once() -> None:
    kept = MessageWindow(10).select(
        [SystemMessage("SYS"), HumanMessage("u1"), AIMessage("a1"), SystemMessage("SYS")]
    )
    assert render(kept) == "S:SYS | U:u1 | A:a1"


def test_the_current_question_is_never_evicted_even_by_a_window_of_one() -> None:
    kept = MessageWindow(1).select(
        [SystemMessage("SYS"), HumanMessage("u1"), AIMessage("a1"), HumanMessage("u2")]
    )
    assert render(kept) == "S:SYS | U:u2"


def _tool_turn(n: int) -> list[BaseMessage]:
    call = AIMessage("", tool_calls=[{"name": "lookup", "args": {"n": n}, "id": f"c{n}"}])
    return [
        HumanMessage(f"u{n}"),
        call,
        ToolMessage(f"result {n}", tool_call_id=f"c{n}"),
        AIMessage(f"a{n}"),
    ]


def test_an_assistant_tool_call_and_its_results_are_evicted_together() -> None:
    history = [*_tool_turn(1), HumanMessage("u2"), AIMessage("a2")]
    kept = MessageWindow(5).select(history)
    assert render(kept) == "U:u2 | A:a2"


def assert_well_formed(kept: list[BaseMessage]) -> None:
    """No orphan tool result, no unanswered tool call, never a leading answer or tool result."""
    non_system = [m for m in kept if not isinstance(m, SystemMessage)]
    if non_system:
        assert isinstance(non_system[0], HumanMessage), render(kept)
    open_calls: set[str] = set()
    for message in non_system:
        if isinstance(message, AIMessage):
            open_calls |= {c["id"] for c in message.tool_calls if c["id"]}
        if isinstance(message, ToolMessage):
            assert message.tool_call_id in open_calls, f"orphan tool result in {render(kept)}"


@pytest.mark.parametrize("max_messages", range(1, 13))
def test_no_window_size_ever_splits_a_tool_call_from_its_results(max_messages: int) -> None:
    window = MessageWindow(max_messages)
    turns = [
        _tool_turn(n) if n % 2 else [HumanMessage(f"u{n}"), AIMessage(f"a{n}")] for n in range(1, 9)
    ]
    for prefix in itertools.accumulate(turns, lambda acc, turn: [*acc, *turn]):
        kept = window.select([SystemMessage("SYS"), *prefix])
        assert_well_formed(kept)
        last_user = max(i for i, m in enumerate(prefix) if isinstance(m, HumanMessage))
        # over the limit only when the current question's own turn cannot be split
        if len(kept) > max_messages:
            assert kept[1] is prefix[last_user]


def test_plan_trim_removes_evicted_messages_by_id() -> None:
    history = [HumanMessage("u1", id="1"), AIMessage("a1", id="2"), HumanMessage("u2", id="3")]
    update = plan_trim(MessageWindow(2), history)
    assert [m.id for m in update] == ["1", "2"]
    assert all(isinstance(m, RemoveMessage) for m in update)


def test_plan_trim_rewrites_the_history_when_a_new_system_message_moves_to_the_front() -> None:
    history = [
        SystemMessage("SYS-1", id="s1"),
        HumanMessage("u1", id="1"),
        AIMessage("a1", id="2"),
        SystemMessage("SYS-2", id="s2"),
    ]
    update = plan_trim(MessageWindow(10), history)
    assert isinstance(update[0], RemoveMessage) and update[0].id == REMOVE_ALL_MESSAGES
    assert [m.id for m in update[1:]] == ["s2", "1", "2"]
