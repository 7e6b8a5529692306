"""The graph state: the kept messages, plus the memories recalled for the current turn."""

from __future__ import annotations

from typing import NotRequired

from langgraph.graph import MessagesState


class AgentState(MessagesState):
    """``messages`` is the kept history (the checkpoint); it never holds recalled memories.

    ``recalled_memories`` is overwritten by retrieve_memories on every turn and read by
    call_model to build the memory block of the system prompt. ``owner`` is the user who
    started the conversation; a run by anyone else is refused.
    """

    recalled_memories: NotRequired[list[dict[str, str]]]
    owner: NotRequired[str]
