"""End-of-turn compaction: memory wraps the tool loop.

During a turn the model sees its tool calls and their results; once it has answered, the kept
history holds the user's message and the final answer only (unless tool messages are kept by
setting), and the window is applied again so storage never grows past the policy.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from agent.short_term.window import WindowPolicy, plan_trim


def current_turn_tool_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The tool calls and tool results since the latest user message."""
    start = 0
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            start = index + 1
            break
    return [
        m
        for m in messages[start:]
        if isinstance(m, ToolMessage) or (isinstance(m, AIMessage) and m.tool_calls)
    ]


def plan_end_of_turn(
    policy: WindowPolicy, messages: Sequence[BaseMessage], keep_tool_messages: bool
) -> list[BaseMessage]:
    """The state update that drops this turn's tool round trips and re-applies the window."""
    dropped = [] if keep_tool_messages else current_turn_tool_messages(messages)
    dropped_ids = {m.id for m in dropped}
    remaining = [m for m in messages if m.id not in dropped_ids]
    trim = plan_trim(policy, remaining)
    if trim and isinstance(trim[0], RemoveMessage) and trim[0].id == REMOVE_ALL_MESSAGES:
        return trim
    return [*(RemoveMessage(id=m.id) for m in dropped if m.id), *trim]
