"""Small helpers over LangChain messages used by every layer: text, roles, JSON shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

ROLE_BY_TYPE = {
    HumanMessage: "user",
    AIMessage: "assistant",
    SystemMessage: "system",
    ToolMessage: "tool",
}


def message_text(message: BaseMessage) -> str:
    """The text of a message, whether its content is a string or a list of content blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


def latest_user_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the latest user message ("" when there is none)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message_text(message)
    return ""


def message_role(message: BaseMessage) -> str:
    """``user``, ``assistant``, ``system`` or ``tool``."""
    for cls, role in ROLE_BY_TYPE.items():
        if isinstance(message, cls):
            return role
    return message.type


def message_to_json(message: BaseMessage) -> dict[str, Any]:
    """The public JSON shape of a kept message: ``{"role": ..., "content": ...}`` (+ tool data)."""
    data: dict[str, Any] = {"role": message_role(message), "content": message_text(message)}
    if isinstance(message, AIMessage) and message.tool_calls:
        data["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in message.tool_calls]
    if isinstance(message, ToolMessage):
        data["tool_call_id"] = message.tool_call_id
    return data


def format_message_line(message: BaseMessage, width: int | None = None) -> str:
    """One human-readable line: ``role: text`` (tool calls shown by name and arguments)."""
    text = message_text(message)
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = ", ".join(f"{c['name']}({c['args']})" for c in message.tool_calls)
        text = f"{text} [tool call {calls}]".strip()
    text = text.replace("\n", " ⏎ ")
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return f"{message_role(message)}: {text}"
