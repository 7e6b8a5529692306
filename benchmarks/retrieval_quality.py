"""Retrieval quality: recall@5 and MRR of the default (hybrid) retriever against lexical-only
and dense-only, and the effect of the similarity threshold, on benchmarks/retrieval_set.py."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent.long_term.embeddings import OfflineMiniLMEmbeddings
from agent.long_term.memory import MemoryService
from agent.long_term.profiles import embedder_profile
from agent.long_term.records import MemoryRecord, ScoredMemory
from agent.long_term.retrieval import Retriever, RetrieverMode, recall_query
from agent.long_term.stores.embedded import EmbeddedMemoryStore
from benchmarks.common import progress
from benchmarks.retrieval_set import Memory, Question, build, build_lookups

K = 5
MODES: tuple[RetrieverMode, ...] = ("hybrid", "dense", "lexical")
THRESHOLDS = (0.0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.9)


def load(
    store: EmbeddedMemoryStore, embeddings: OfflineMiniLMEmbeddings, memories: Sequence[Memory]
) -> dict[str, str]:
    """Import the memories; returns memory id -> key per user."""
    service = MemoryService(store, embeddings, None, None, Retriever(store, embeddings))
    by_user: dict[str, list[Memory]] = {}
    for memory in memories:
        by_user.setdefault(memory.user_id, []).append(memory)
    for user, items in by_user.items():
        service.import_records(user, [{"content": m.content, "memory_type": m.memory_type,
                                       "metadata": {"key": m.key}} for m in items])  # fmt: skip
    return {r.id: r.metadata["key"] for user in by_user for r in store.list(user)}


def evaluate(
    retriever: Retriever,
    questions: Sequence[Question],
    keys: dict[str, str],
    *,
    with_previous_message: bool = True,
) -> dict[str, Any]:
    """Recall@5 and MRR, overall and by kind of question. Each question goes through
    :func:`recall_query` after the user's previous message, as the graph sends it, so a short
    question carries that message as context (``with_previous_message=False``: it never does)."""
    reciprocal, returned = 0.0, 0
    hits: dict[str, list[int]] = {}
    for question in questions:
        messages: list[BaseMessage] = [HumanMessage(question.text)]
        if question.previous and with_previous_message:
            messages = [HumanMessage(question.previous), AIMessage("Noted."), *messages]
        query, context = recall_query(messages)
        results = retriever.search(question.user_id, query, k=K, context=context)
        returned += len(results)
        found = [keys[r.record.id] for r in results]
        tally = hits.setdefault(question.kind, [0, 0])
        tally[1] += 1
        if question.needs in found:
            tally[0] += 1
            reciprocal += 1 / (found.index(question.needs) + 1)
    total = sum(tally[0] for tally in hits.values())
    return {
        "recall_at_5": round(total / len(questions), 3),
        "mrr": round(reciprocal / len(questions), 3),
        "mean_results": round(returned / len(questions), 2),
        "recall_by_kind": {kind: round(f / n, 3) for kind, (f, n) in sorted(hits.items())},
    }


class ReciprocalRankRetriever(Retriever):
    """The textbook alternative to our fusion, for comparison only: each memory scores
    1/(60 + rank) in each ranking it appears in; the same threshold decides who is eligible."""

    def _rank(
        self,
        records: dict[str, MemoryRecord],
        similarity: dict[str, float],
        lexical: Sequence[tuple[MemoryRecord, float]],
        k: int,
    ) -> list[ScoredMemory]:
        eligible = super()._rank(records, similarity, lexical, len(records))
        by_cosine = sorted(similarity, key=lambda i: similarity[i], reverse=True)
        ranks = [{memory_id: n for n, memory_id in enumerate(by_cosine)},
                 {record.id: n for n, (record, _) in enumerate(lexical)}]  # fmt: skip
        score = {hit.record.id: sum(1 / (60 + r[hit.record.id]) for r in ranks
                                    if hit.record.id in r) for hit in eligible}  # fmt: skip
        eligible.sort(key=lambda hit: score[hit.record.id], reverse=True)
        return eligible[:k]


class JoinedTextRetriever(Retriever):
    """For comparison only: a short message is searched only as one text with the message
    before it, the reading that suits follow-ups and blurs short questions of their own."""

    def search(
        self, user_id: str, query: str, *, context: str = "", **options: Any
    ) -> list[ScoredMemory]:
        joined = f"{context}\n{query}" if context.strip() else query
        return super().search(user_id, joined, **options)


class LoadedSet:
    """One retrieval set imported into a temporary embedded store, ready to be searched."""

    def __init__(self, memories: Sequence[Memory], questions: Sequence[Question], label: str):
        self.questions, self.label = questions, label
        self.embeddings = OfflineMiniLMEmbeddings()
        self._folder = tempfile.TemporaryDirectory()
        self.store = EmbeddedMemoryStore(Path(self._folder.name) / "memories.sqlite")
        progress(f"retrieval ({label}): importing {len(memories)} memories")
        self.keys = load(self.store, self.embeddings, memories)

    def __enter__(self) -> LoadedSet:
        return self

    def __exit__(self, *_: object) -> None:
        self.store.close()
        self._folder.cleanup()

    def measure(
        self,
        mode: RetrieverMode,
        threshold: float,
        *,
        retriever_class: type[Retriever] = Retriever,
        lexical_weight: float = 0.1,
        **options: Any,
    ) -> dict[str, Any]:
        retriever = retriever_class(self.store, self.embeddings, k=K, threshold=threshold,
                                    mode=mode, lexical_weight=lexical_weight)  # fmt: skip
        return evaluate(retriever, self.questions, self.keys, **options)

    def each_mode(self, threshold: float) -> dict[str, Any]:
        results: dict[str, Any] = {}
        for mode in MODES:
            progress(f"retrieval ({self.label}): {mode}")
            results[mode] = self.measure(mode, threshold)
        return results


def run() -> dict[str, Any]:
    threshold = embedder_profile("offline").retrieval_threshold
    memories, questions = build()
    with LoadedSet(memories, questions, "main set") as main:
        modes = main.each_mode(threshold)
        progress("retrieval (main set): variants")
        variants = {
            **{f"{mode}, short messages without context": main.measure(
                mode, threshold, with_previous_message=False) for mode in MODES[:2]},
            **{f"{mode}, short messages joined to context only": main.measure(
                mode, threshold, retriever_class=JoinedTextRetriever) for mode in MODES[:2]},
            **{f"hybrid, lexical weight {w}": main.measure("hybrid", threshold, lexical_weight=w)
               for w in (0.05, 0.2, 0.4)},
            "hybrid, reciprocal-rank fusion (k=60)": main.measure(
                "hybrid", threshold, retriever_class=ReciprocalRankRetriever
            ),
        }  # fmt: skip
        sweep = {}
        for value in THRESHOLDS:
            progress(f"retrieval (main set): threshold {value}")
            sweep[str(value)] = main.measure("hybrid", value)
    lookup_memories, lookup_questions = build_lookups()
    with LoadedSet(lookup_memories, lookup_questions, "lookups") as heavy:
        lookups = heavy.each_mode(threshold)
    best_half = max(modes["dense"]["recall_at_5"], modes["lexical"]["recall_at_5"])
    return {
        "memories": len(memories),
        "questions": len(questions),
        "users": len({m.user_id for m in memories}),
        "questions_by_kind": dict(sorted(Counter(q.kind for q in questions).items())),
        "k": K,
        "threshold": threshold,
        "modes": modes,
        "variants": variants,
        "threshold_sweep": sweep,
        "lookups": {
            "memories": len(lookup_memories),
            "questions": len(lookup_questions),
            "modes": lookups,
        },
        "targets": {
            "default (hybrid) beats lexical-only and dense-only on recall@5 (main set)": modes[
                "hybrid"
            ]["recall_at_5"]
            > best_half,
        },
    }
