"""Retrieval quality: recall@5 and MRR of the default (hybrid) retriever against lexical-only
and dense-only, and the effect of the similarity threshold, on benchmarks/retrieval_set.py."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.long_term.embeddings import OfflineMiniLMEmbeddings
from agent.long_term.memory import MemoryService
from agent.long_term.profiles import embedder_profile
from agent.long_term.retrieval import Retriever
from agent.long_term.stores.embedded import EmbeddedMemoryStore
from benchmarks.common import progress
from benchmarks.retrieval_set import Memory, Question, build

K = 5
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
    retriever: Retriever, questions: Sequence[Question], keys: dict[str, str]
) -> dict[str, Any]:
    reciprocal, hits, returned = 0.0, 0, 0
    by_kind = {True: [0, 0], False: [0, 0]}
    for question in questions:
        results = retriever.search(question.user_id, question.text, k=K)
        returned += len(results)
        found = [keys[r.record.id] for r in results]
        if question.needs in found:
            hits += 1
            reciprocal += 1 / (found.index(question.needs) + 1)
            by_kind[question.shares_words][0] += 1
        by_kind[question.shares_words][1] += 1
    return {
        "recall_at_5": round(hits / len(questions), 3),
        "mrr": round(reciprocal / len(questions), 3),
        "mean_results": round(returned / len(questions), 2),
        "recall_paraphrase_only": round(by_kind[False][0] / max(by_kind[False][1], 1), 3),
        "recall_shared_entity": round(by_kind[True][0] / max(by_kind[True][1], 1), 3),
    }


def run() -> dict[str, Any]:
    memories, questions = build()
    embeddings = OfflineMiniLMEmbeddings()
    default_threshold = embedder_profile("offline").retrieval_threshold
    with tempfile.TemporaryDirectory() as folder:
        store = EmbeddedMemoryStore(Path(folder) / "memories.sqlite")
        progress(f"retrieval: importing {len(memories)} memories")
        keys = load(store, embeddings, memories)
        modes = {}
        for mode in ("hybrid", "dense", "lexical"):
            progress(f"retrieval: {mode}")
            retriever = Retriever(store, embeddings, k=K, threshold=default_threshold, mode=mode)  # type: ignore[arg-type]
            modes[mode] = evaluate(retriever, questions, keys)
        sweep = {}
        for threshold in THRESHOLDS:
            progress(f"retrieval: threshold {threshold}")
            retriever = Retriever(store, embeddings, k=K, threshold=threshold)
            sweep[str(threshold)] = evaluate(retriever, questions, keys)
        store.close()
    return {
        "memories": len(memories),
        "questions": len(questions),
        "users": len({m.user_id for m in memories}),
        "questions_sharing_a_word": sum(q.shares_words for q in questions),
        "k": K,
        "threshold": default_threshold,
        "modes": modes,
        "threshold_sweep": sweep,
        "targets": {
            "hybrid beats lexical-only and dense-only on recall@5": modes["hybrid"]["recall_at_5"]
            > max(modes["dense"]["recall_at_5"], modes["lexical"]["recall_at_5"]),
        },
    }
