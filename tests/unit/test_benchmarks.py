"""The benchmarks measure what the README says they measure: the retrieval sets have the
shape their docstrings promise, and each benchmark runs end to end on a small size."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from agent.long_term.embeddings import OfflineMiniLMEmbeddings
from agent.long_term.stores.base import words
from benchmarks import store_scale
from benchmarks.retrieval_quality import LoadedSet
from benchmarks.retrieval_set import Memory, Question, build, build_lookups


@pytest.fixture(scope="module")
def retrieval_set() -> tuple[list[Memory], list[Question]]:
    return build()


def test_the_retrieval_set_is_as_large_as_the_issue_asks_and_the_same_every_run(
    retrieval_set: tuple[list[Memory], list[Question]],
) -> None:
    memories, questions = retrieval_set
    assert len(memories) >= 200 and len(questions) >= 100
    assert len({m.user_id for m in memories}) == 10
    assert build() == retrieval_set


def test_every_question_needs_one_memory_of_its_own_user(
    retrieval_set: tuple[list[Memory], list[Question]],
) -> None:
    memories, questions = retrieval_set
    by_user = Counter((m.user_id, m.key) for m in memories)
    assert all(by_user[(q.user_id, q.needs)] == 1 for q in questions)


def test_paraphrases_share_no_word_with_their_memory_and_every_question_follows_another(
    retrieval_set: tuple[list[Memory], list[Question]],
) -> None:
    memories, questions = retrieval_set
    content = {(m.user_id, m.key): m.content for m in memories}
    kinds = Counter(q.kind for q in questions)
    assert set(kinds) == {"paraphrase", "shared-word", "follow-up"}
    for question in questions:
        shared = set(words(question.text)) & set(words(content[(question.user_id, question.needs)]))
        if question.kind == "paraphrase":
            assert not shared, question.text
        assert question.previous  # asked in a conversation, after another message


def test_each_lookup_quotes_a_reference_found_in_exactly_one_memory() -> None:
    memories, questions = build_lookups()
    assert len({m.user_id for m in memories}) == 1
    for question in questions:
        code = next(
            w for w in question.text.replace(",", " ").split() if w.isupper() and len(w) == 6
        )
        holders = [m.key for m in memories if m.content.endswith(code)]
        assert holders == [question.needs]


def test_the_retrieval_benchmark_scores_one_user(
    retrieval_set: tuple[list[Memory], list[Question]],
) -> None:
    memories, questions = retrieval_set
    mine = [m for m in memories if m.user_id == "user-00"]
    asked = [q for q in questions if q.user_id == "user-00"]
    with LoadedSet(mine, asked, "test") as loaded:
        results: dict[str, Any] = loaded.each_mode(threshold=0.15)
    assert set(results) == {"hybrid", "dense", "lexical"}
    for result in results.values():
        assert 0 <= result["mrr"] <= result["recall_at_5"] <= 1
    assert results["hybrid"]["recall_at_5"] >= results["lexical"]["recall_at_5"]


def test_the_store_benchmark_imports_and_times_searches() -> None:
    result = store_scale.measure("embedded", 40, OfflineMiniLMEmbeddings(), queries=3)
    assert result["import_per_second"] > 0
    assert result["search"]["n"] == 3 and result["search_dense_only"]["n"] == 3
