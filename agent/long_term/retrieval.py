"""Retrieval: the user's memories relevant to the current turn, for the system prompt.

Hybrid by default: the nearest memories by embedding and the best BM25 matches by words are
pooled; a memory must be at least ``threshold`` similar to the query (a threshold calibrated
for the embedder, far below the de-duplication threshold — a question is rarely 0.9-similar to
the fact it needs), and the survivors are ordered by their cosine plus a bonus for how well
their words match the query's. ``dense`` and ``lexical`` modes exist to measure what each half
contributes (``make bench``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from langchain_core.embeddings import Embeddings
from langchain_core.messages import BaseMessage, HumanMessage

from agent.long_term.embeddings import Matrix, embed_queries
from agent.long_term.records import MemoryRecord, ScoredMemory
from agent.long_term.stores.base import MemoryStore, words
from agent.messages import message_text

RetrieverMode = Literal["hybrid", "dense", "lexical"]
_SHORT_QUESTION_WORDS = 4


class Retriever:
    """Searches one user's memories (optionally one conversation's)."""

    def __init__(
        self,
        store: MemoryStore,
        embeddings: Embeddings,
        *,
        k: int = 5,
        threshold: float = 0.15,
        mode: RetrieverMode = "hybrid",
        lexical_weight: float = 0.1,
        pool: int = 25,
    ) -> None:
        self.store = store
        self.embeddings = embeddings
        self.k = k
        self.threshold = threshold
        self.mode = mode
        self.lexical_weight = lexical_weight
        self.pool = pool

    def search(
        self,
        user_id: str,
        query: str,
        *,
        k: int | None = None,
        conversation_id: str | None = None,
        context: str = "",
    ) -> list[ScoredMemory]:
        """``context`` is the message before a short one, which may be a follow-up ("Which
        car did I drive there?") or a question of its own ("What is my name?"). Both
        readings are searched — the message alone, and after its context — and each memory
        keeps its better cosine; the words of both go to the lexical ranking. On the
        retrieval benchmark, searching the message alone misses a third of the follow-ups,
        and searching only the joined text blurs short standalone questions."""
        k = k or self.k
        if not query.strip():
            return []
        texts = [query, f"{context}\n{query}"] if context.strip() else [query]
        if self.mode == "lexical":
            hits = self.store.lexical_search(user_id, texts[-1], k, conversation_id=conversation_id)
            return [ScoredMemory(record, float("nan"), score) for record, score in hits]
        vectors = embed_queries(self.embeddings, texts)
        pool = max(self.pool, 4 * k)
        searches = [
            self.store.vector_search(user_id, vector, pool, conversation_id=conversation_id)
            for vector in vectors
        ]
        lexical = []
        if self.mode == "hybrid":
            lexical = self.store.lexical_search(
                user_id, texts[-1], pool, conversation_id=conversation_id
            )
        records = {record.id: record for hits in (*searches, lexical) for record, _ in hits}
        similarity = self._best_similarity(user_id, vectors, searches, list(records))
        return self._rank(records, similarity, lexical, k)

    def _best_similarity(
        self,
        user_id: str,
        vectors: Matrix,
        searches: Sequence[Sequence[tuple[MemoryRecord, float]]],
        ids: Sequence[str],
    ) -> dict[str, float]:
        """Each memory's highest cosine to any of the query vectors. A vector's own search
        already scored its hits; only the other candidates are asked of the store."""
        best: dict[str, float] = {}
        for vector, hits in zip(vectors, searches, strict=True):
            scores = {record.id: score for record, score in hits}
            missing = [i for i in ids if i not in scores]
            if missing:
                scores.update(self.store.similarities(user_id, missing, vector))
            for memory_id, score in scores.items():
                best[memory_id] = max(score, best.get(memory_id, -1.0))
        return best

    def _rank(
        self,
        records: dict[str, MemoryRecord],
        similarity: dict[str, float],
        lexical: Sequence[tuple[MemoryRecord, float]],
        k: int,
    ) -> list[ScoredMemory]:
        """Cosine plus a lexical bonus: BM25 normalised by the query's best BM25 score.

        A strong word match (a booking reference, a hotel name) lifts a memory that the
        embedding ranks low; a weak one (a shared common word) adds little. The threshold
        applies to the cosine, except for the query's best lexical match, which may be
        admitted down to half the threshold: exact identifiers embed poorly. Without lexical
        hits this is plain dense ranking.
        """
        best = max((score for _, score in lexical), default=0.0)
        bonus = {r.id: self.lexical_weight * s / best for r, s in lexical} if best > 0 else {}
        top_lexical = lexical[0][0].id if lexical else None
        eligible = [
            i
            for i in records
            if similarity.get(i, -1.0) >= self.threshold
            or (i == top_lexical and similarity.get(i, -1.0) >= self.threshold / 2)
        ]
        score = {i: similarity[i] + bonus.get(i, 0.0) for i in eligible}
        ranked = sorted(eligible, key=lambda i: score[i], reverse=True)
        return [ScoredMemory(records[i], similarity[i], score[i]) for i in ranked[:k]]


def recall_query(messages: Sequence[BaseMessage]) -> tuple[str, str]:
    """What to search memories with: the latest user message, and as context the user
    message before it when the latest is a short follow-up ("and in Paris?")."""
    user_texts = [message_text(m) for m in messages if isinstance(m, HumanMessage)]
    if not user_texts:
        return "", ""
    latest = user_texts[-1]
    if len(words(latest)) < _SHORT_QUESTION_WORDS and len(user_texts) > 1:
        return latest, user_texts[-2]
    return latest, ""
