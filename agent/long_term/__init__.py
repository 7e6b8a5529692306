"""Long-term memory: what the agent learns about a user and recalls across conversations.

The graph depends only on the small :class:`LongTermMemory` interface below; stores,
embeddings and extraction live behind it.
"""

from __future__ import annotations

from typing import Protocol

from agent.context import Conversation


class LongTermMemory(Protocol):
    """What the graph needs from long-term memory."""

    def recall(
        self, conversation: Conversation, query: str, context: str = ""
    ) -> list[dict[str, str]]:
        """Memories relevant to ``query`` (and ``context``, recent words) for this user:
        dicts with memory_type and content."""
        ...

    def record(self, conversation: Conversation, user_message: str, answer: str) -> None:
        """Hand a finished exchange to extraction (may complete after this returns)."""
        ...
