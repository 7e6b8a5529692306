"""One behaviour suite for every long-term store: the embedded file, and MongoDB through
langchain-mongodb over a real pymongo connection (the mongoeco stand-in, or a real Atlas /
atlas-local when MONGODB_URI is set)."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, HumanMessage

from agent.context import Conversation
from agent.errors import BackendUnavailableError
from agent.long_term.consolidation import Consolidator
from agent.long_term.embeddings import OfflineMiniLMEmbeddings, embed_query, embed_texts
from agent.long_term.extraction import Candidate
from agent.long_term.records import MemoryRecord, MemoryType
from agent.long_term.retrieval import Retriever, RetrieverMode, recall_query
from agent.long_term.stores import MemoryStore, open_memory_store
from agent.models import OfflineChatModel

STORES = [
    pytest.param("embedded", id="embedded"),
    pytest.param("mongodb", id="mongodb-standin", marks=pytest.mark.mongodb),
    pytest.param(
        "atlas",
        id="mongodb-atlas",
        marks=[
            pytest.mark.mongodb,
            pytest.mark.skipif(not os.environ.get("MONGODB_URI"), reason="opt-in: MONGODB_URI"),
        ],
    ),
]


@pytest.fixture(scope="session")
def embeddings() -> Embeddings:
    return OfflineMiniLMEmbeddings()


@pytest.fixture(params=STORES)
def store(
    request: pytest.FixtureRequest, tmp_path: Path, embeddings: Embeddings
) -> Iterator[MemoryStore]:
    kind = request.param
    if kind == "embedded":
        url = f"embedded:///{tmp_path / 'memories.sqlite'}"
    elif kind == "mongodb":
        url = request.getfixturevalue("mongo_url")
    else:
        url = os.environ["MONGODB_URI"]
    with open_memory_store(url, embeddings) as opened:
        for user in ("alice", "bob"):  # a shared server: start from a clean slate
            opened.delete_user(user)
        yield opened


def records(
    embeddings: Embeddings, user: str, *items: tuple[str, MemoryType, str | None]
) -> list[MemoryRecord]:
    vectors = embed_texts(embeddings, [content for content, _, _ in items])
    return [
        MemoryRecord(user_id=user, content=content, memory_type=kind, conversation_id=conversation,
                     embedding=vector.tolist())
        for (content, kind, conversation), vector in zip(items, vectors, strict=True)
    ]  # fmt: skip


EPISODIC, SEMANTIC = MemoryType.EPISODIC, MemoryType.SEMANTIC


def seed(store: MemoryStore, embeddings: Embeddings) -> list[MemoryRecord]:
    alice = records(
        embeddings,
        "alice",
        ("User prefers economy cars", EPISODIC, "c1"),
        ("User's name is Alice", SEMANTIC, "c1"),
        ("User is vegetarian", SEMANTIC, "c2"),
    )
    store.add(alice)
    store.add(records(embeddings, "bob", ("User's name is Bob", SEMANTIC, "b1")))
    return alice


def test_memories_belong_to_their_user(store: MemoryStore, embeddings: Embeddings) -> None:
    alice = seed(store, embeddings)
    assert [m.content for m in store.list("alice")] == [r.content for r in alice]
    assert store.get("alice", alice[0].id) is not None
    assert store.get("bob", alice[0].id) is None  # another user's id is simply not found
    assert not store.delete("bob", alice[0].id)
    assert store.count("alice") == 3 and store.count("bob") == 1


def test_vector_search_ranks_by_similarity_within_user_type_and_conversation(
    store: MemoryStore, embeddings: Embeddings
) -> None:
    seed(store, embeddings)
    query = embed_query(embeddings, "What is my name?")
    hits = store.vector_search("alice", query, 3)
    assert hits[0][0].content == "User's name is Alice"
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert all(r.user_id == "alice" for r, _ in hits)
    typed = store.vector_search("alice", query, 3, memory_type=EPISODIC)
    assert [r.content for r, _ in typed] == ["User prefers economy cars"]
    scoped = store.vector_search("alice", query, 3, conversation_id="c2")
    assert [r.content for r, _ in scoped] == ["User is vegetarian"]
    exact = store.vector_search("alice", embed_query(embeddings, "User is vegetarian"), 1)
    assert exact[0][1] == pytest.approx(1.0, abs=1e-3)  # a plain cosine on every store


def test_lexical_search_matches_words_of_the_users_memories(
    store: MemoryStore, embeddings: Embeddings
) -> None:
    seed(store, embeddings)
    hits = store.lexical_search("alice", "any vegetarian restaurants?", 5)
    assert [r.content for r, _ in hits] == ["User is vegetarian"]
    assert store.lexical_search("bob", "vegetarian", 5) == []


def test_superseded_memories_are_kept_but_never_retrieved(
    store: MemoryStore, embeddings: Embeddings
) -> None:
    alice = seed(store, embeddings)
    newer = records(embeddings, "alice", ("User prefers SUVs", EPISODIC, "c3"))
    store.add(newer)
    store.supersede("alice", alice[0].id, newer[0].id)
    query = embed_query(embeddings, "which car should I rent")
    assert "User prefers economy cars" not in [
        r.content for r, _ in store.vector_search("alice", query, 5)
    ]
    assert "User prefers economy cars" not in [
        r.content for r, _ in store.lexical_search("alice", "economy cars", 5)
    ]
    kept = store.get("alice", alice[0].id)
    assert kept is not None and kept.superseded_by == newer[0].id
    assert len(store.list("alice", include_superseded=True)) == 4


def test_similarities_are_cosines_to_the_query(store: MemoryStore, embeddings: Embeddings) -> None:
    alice = seed(store, embeddings)
    query = embed_query(embeddings, "What is my name?")
    result = store.similarities("alice", [r.id for r in alice], query)
    expected = {r.id: float(np.dot(np.asarray(r.embedding), query)) for r in alice}
    assert result == pytest.approx(expected, abs=1e-4)
    assert store.similarities("bob", [alice[0].id], query) == {}


def test_forgetting_a_user_removes_all_of_theirs_and_nothing_else(
    store: MemoryStore, embeddings: Embeddings
) -> None:
    alice = seed(store, embeddings)
    assert store.delete("alice", alice[2].id)
    assert store.count("alice") == 2
    assert store.delete_user("alice") == 2
    assert store.count("alice") == 0 and store.list("alice", include_superseded=True) == []
    assert store.count("bob") == 1


def test_the_user_lock_serialises_writers(store: MemoryStore) -> None:
    order: list[str] = []
    inside = threading.Event()

    def first() -> None:
        with store.user_lock("alice"):
            order.append("first in")
            inside.set()
            time.sleep(0.3)
            order.append("first out")

    thread = threading.Thread(target=first)
    thread.start()
    inside.wait(5)
    with store.user_lock("alice"):
        order.append("second in")
    thread.join()
    assert order == ["first in", "first out", "second in"]


def test_consolidation_and_retrieval_behave_alike_on_every_store(
    store: MemoryStore, embeddings: Embeddings
) -> None:
    consolidator = Consolidator(store, embeddings, OfflineChatModel())
    who = Conversation("alice", "c1")
    first = consolidator.apply(
        who, [Candidate(content="User prefers economy cars", memory_type="EPISODIC")]
    )
    again = consolidator.apply(
        who, [Candidate(content="User prefers economy cars", memory_type="EPISODIC")]
    )
    suvs = Candidate(content="User prefers SUVs", memory_type="EPISODIC")
    changed = consolidator.apply(Conversation("alice", "c2"), [suvs])
    assert len(first.added) == 1 and again.skipped and len(changed.updated) == 1
    retriever = Retriever(store, embeddings, k=5, threshold=0.25)
    hits = retriever.search("alice", "which car should I rent?")
    assert [h.record.content for h in hits] == ["User prefers SUVs"]
    assert retriever.search("bob", "which car should I rent?") == []


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_a_short_follow_up_is_searched_with_the_message_it_refers_to(
    store: MemoryStore, embeddings: Embeddings, mode: RetrieverMode
) -> None:
    places = ("Hanoi", "Lima", "Porto", "Oslo", "Kyoto", "Seville", "Tallinn", "Havana")
    cars = ("compact", "sports", "family", "luxury")
    store.add(records(embeddings, "alice", *(
        (f"User rented a {cars[n % len(cars)]} car in {place}", EPISODIC, None)
        for n, place in enumerate(places)
    )))  # fmt: skip
    conversation = [
        HumanMessage("How was my trip to Tallinn again?"),
        AIMessage("You enjoyed it."),
        HumanMessage("Which car did I drive there?"),
    ]
    query, context = recall_query(conversation)
    assert (query, context) == ("Which car did I drive there?", "How was my trip to Tallinn again?")
    retriever = Retriever(store, embeddings, k=1, threshold=0.1, mode=mode)
    [hit] = retriever.search("alice", query, context=context)
    assert hit.record.content == "User rented a family car in Tallinn"


@pytest.mark.parametrize("mode", ["hybrid", "dense"])
def test_a_short_question_of_its_own_is_not_swayed_by_the_message_before_it(
    store: MemoryStore, embeddings: Embeddings, mode: RetrieverMode
) -> None:
    store.add(records(embeddings, "alice",
                      ("User's name is Priya", SEMANTIC, None),
                      ("User prefers economy cars", EPISODIC, None),
                      ("User rented an economy car in Berlin", EPISODIC, None)))  # fmt: skip
    query, context = recall_query(
        [HumanMessage("Rent CR-BER-economy-2 from 2026-12-30 to 2027-01-02."),
         AIMessage("Booked."), HumanMessage("What is my name?")]
    )  # fmt: skip
    assert context  # short enough to be a follow-up, so both readings are searched
    retriever = Retriever(store, embeddings, k=3, threshold=0.1, mode=mode)
    hits = retriever.search("alice", query, context=context)
    assert hits[0].record.content == "User's name is Priya"


def test_an_unreachable_mongodb_is_an_error_naming_the_url(embeddings: Embeddings) -> None:
    url = (
        f"mongodb://agent:secret@127.0.0.1:1/db-{uuid.uuid4().hex[:6]}?serverSelectionTimeoutMS=500"
    )
    with pytest.raises(BackendUnavailableError) as error, open_memory_store(url, embeddings):
        pass
    assert "cannot reach MongoDB at mongodb://agent:***@127.0.0.1:1/" in str(error.value)
    assert "secret" not in str(error.value)
