"""Render message lists the way the reference article prints them: ``S:x | U:y | A:z``."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from agent.messages import message_role, message_text

_LETTER = {"system": "S", "user": "U", "assistant": "A", "tool": "T"}


def render(messages: Sequence[BaseMessage]) -> str:
    return " | ".join(f"{_LETTER[message_role(m)]}:{message_text(m)}" for m in messages)
