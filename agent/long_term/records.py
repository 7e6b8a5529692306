"""What a long-term memory is: one short statement about a user, typed, dated and embedded."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


class MemoryType(StrEnum):
    """EPISODIC: the user's own preferences and experiences. SEMANTIC: facts that stay true."""

    EPISODIC = "EPISODIC"
    SEMANTIC = "SEMANTIC"


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class MemoryRecord:
    """A stored memory. ``superseded_by`` names the memory that replaced it, if any: a
    superseded memory is kept for history but never retrieved."""

    user_id: str
    content: str
    memory_type: MemoryType
    conversation_id: str | None = None
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    created_at: datetime = field(default_factory=utc_now)
    updated_at: datetime = field(default_factory=utc_now)
    superseded_by: str | None = None
    embedding: list[float] | None = field(default=None, repr=False, compare=False)
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def active(self) -> bool:
        return self.superseded_by is None

    def public(self) -> dict[str, Any]:
        """The JSON shape the CLI and HTTP routes show (no embedding)."""
        return {
            "id": self.id,
            "user_id": self.user_id,
            "conversation_id": self.conversation_id,
            "content": self.content,
            "memory_type": self.memory_type.value,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "superseded_by": self.superseded_by,
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class ScoredMemory:
    """A retrieved memory: ``similarity`` is the cosine to the query, ``score`` the ranking."""

    record: MemoryRecord
    similarity: float
    score: float
