"""The interface every long-term store implements, and the behaviour they share.

A store keeps :class:`MemoryRecord` rows with their embeddings and answers three questions
for one user: which active memories are nearest to a vector, which match words of a query,
and which exist at all. Every method takes the user id: there is no way to reach a memory
without naming its owner.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager

from agent.long_term.embeddings import Matrix
from agent.long_term.records import MemoryRecord, MemoryType

_WORD = re.compile(r"[a-z0-9]+")
# Words that carry no topic: matching them is noise, not relevance.
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "does", "for", "from", "had",
    "has", "have", "how", "i", "i'm", "in", "is", "it", "its", "me", "my", "of", "on", "or",
    "our", "so", "that", "the", "their", "them", "they", "this", "to", "was", "we", "were",
    "what", "when", "where", "which", "who", "why", "will", "with", "you", "your", "user",
    "users", "can", "could", "should", "would", "did", "am",
})  # fmt: skip


def words(text: str) -> list[str]:
    """Lower-case content words of a text, for lexical matching."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class MemoryStore(ABC):
    """Where long-term memories live. Implementations must be safe to share across threads."""

    name: str

    @abstractmethod
    def add(self, records: Sequence[MemoryRecord]) -> None:
        """Insert records; each must carry its embedding."""

    @abstractmethod
    def vector_search(
        self,
        user_id: str,
        vector: Matrix,
        k: int,
        *,
        memory_type: MemoryType | None = None,
        conversation_id: str | None = None,
    ) -> list[tuple[MemoryRecord, float]]:
        """The user's ``k`` active memories nearest to ``vector``, with cosine similarity."""

    @abstractmethod
    def similarities(self, user_id: str, ids: Sequence[str], vector: Matrix) -> dict[str, float]:
        """Cosine similarity of ``vector`` to each of the user's active memories in ``ids``."""

    def lexical_search(
        self, user_id: str, query: str, k: int, *, conversation_id: str | None = None
    ) -> list[tuple[MemoryRecord, float]]:
        """The user's active memories ranked by BM25 over ``query``'s words (higher is better).

        This default scores the user's memories in Python; stores with a text index override it.
        """
        records = [
            r
            for r in self.list(user_id)
            if conversation_id is None or r.conversation_id == conversation_id
        ]
        return bm25_rank(records, query, k)

    @abstractmethod
    def list(self, user_id: str, *, include_superseded: bool = False) -> list[MemoryRecord]:
        """The user's memories, oldest first (active only unless asked)."""

    @abstractmethod
    def get(self, user_id: str, memory_id: str) -> MemoryRecord | None:
        """One of the user's memories; None also when it belongs to someone else."""

    @abstractmethod
    def supersede(self, user_id: str, old_id: str, new_id: str) -> None:
        """Mark ``old_id`` as replaced by ``new_id``: kept for history, never retrieved."""

    @abstractmethod
    def delete(self, user_id: str, memory_id: str) -> bool:
        """Delete one of the user's memories; False when the user has no such memory."""

    @abstractmethod
    def delete_user(self, user_id: str) -> int:
        """Delete every memory of a user; returns how many were deleted."""

    @abstractmethod
    def count(self, user_id: str | None = None) -> int:
        """How many memories (of a user, or in all), superseded ones included."""

    @abstractmethod
    def user_lock(self, user_id: str) -> AbstractContextManager[None]:
        """Hold while checking for duplicates and writing, so that concurrent extractions for
        one user — in this process or another — cannot insert the same memory twice."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


def bm25_rank(
    records: Sequence[MemoryRecord], query: str, k: int, k1: float = 1.2, b: float = 0.75
) -> list[tuple[MemoryRecord, float]]:
    """Okapi BM25 of ``query`` over ``records``' contents; only records sharing a word."""
    terms = set(words(query))
    if not terms or not records:
        return []
    documents = [Counter(words(r.content)) for r in records]
    average = sum(sum(d.values()) for d in documents) / len(documents) or 1.0
    frequency = Counter(term for d in documents for term in terms if term in d)
    scored = []
    for record, document in zip(records, documents, strict=True):
        length = sum(document.values())
        score = 0.0
        for term in terms & document.keys():
            idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            tf = document[term]
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average))
        if score > 0:
            scored.append((record, score))
    scored.sort(key=lambda pair: pair[1], reverse=True)
    return scored[:k]


def chunks(items: Sequence[MemoryRecord], size: int) -> Iterator[Sequence[MemoryRecord]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
