"""Long-term memory through the graph: learned once, recalled across conversations, per user,
de-duplicated, updated in place, and never in the kept history."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage

from agent.context import Conversation
from agent.long_term.consolidation import Consolidator
from agent.long_term.extraction import Candidate
from agent.long_term.records import MemoryType
from agent.messages import message_text
from agent.models import OfflineChatModel
from tests.conftest import AgentFactory, chat_requests, days_ahead


def remembering(make_agent: AgentFactory, **overrides: Any) -> Any:
    settings: dict[str, Any] = {"long_term_memory": True, "extraction": "inline"}
    settings.update(overrides)
    return make_agent(**settings)


def system_text(request: list[BaseMessage]) -> str:
    assert isinstance(request[0], SystemMessage)
    return message_text(request[0])


def test_a_fact_from_turn_1_is_used_at_turn_10_through_the_memory_block(
    make_agent: AgentFactory,
) -> None:
    agent = remembering(make_agent, max_messages=4)
    agent.send("My name is Priya", user_id="priya", conversation_id="c1")
    for n in range(8):
        agent.send(f"Tell me something about trip {n}", user_id="priya", conversation_id="c1")
    reply = agent.send("What is my name?", user_id="priya", conversation_id="c1")
    assert reply.text == "Your name is Priya."
    request = chat_requests(agent)[-1]
    assert "My name is Priya" not in " ".join(message_text(m) for m in request[1:])
    assert "1. [SEMANTIC] User's name is Priya" in system_text(request)


def test_the_same_user_is_remembered_in_a_new_conversation(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    agent.send("My name is Priya", user_id="priya", conversation_id="first")
    reply = agent.send("What is my name?", user_id="priya", conversation_id="second")
    assert reply.text == "Your name is Priya."


def test_another_user_sees_nothing(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    agent.send("My name is Priya", user_id="priya", conversation_id="first")
    reply = agent.send("What is my name?", user_id="bob", conversation_id="bobs")
    assert reply.text == "I do not know your name yet."
    assert "Long-term memories" not in system_text(chat_requests(agent)[-1])
    assert agent.memory.list_memories("bob") == []


def test_memories_never_enter_the_kept_history(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    agent.send("I prefer aisle seats", user_id="priya", conversation_id="a")
    agent.send("What seats do I like?", user_id="priya", conversation_id="b")
    assert "Long-term memories" in system_text(chat_requests(agent)[-1])
    kept = agent.history("b")
    assert [m.type for m in kept] == ["human", "ai"]
    assert all("Long-term memories" not in message_text(m) for m in kept)


def test_a_repeated_statement_is_stored_once(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    for conversation in ("a", "b", "c"):
        agent.send("I prefer aisle seats", user_id="priya", conversation_id=conversation)
    assert [m.content for m in agent.memory.list_memories("priya")] == ["User prefers aisle seats"]
    assert agent.memory.stats.skipped == 2


def test_duplicates_inside_one_extraction_are_stored_once(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    agent.send("I prefer aisle seats. I prefer aisle seats!", user_id="priya", conversation_id="a")
    assert len(agent.memory.list_memories("priya")) == 1


def test_a_changed_preference_supersedes_the_old_one(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    agent.send("I prefer economy cars", user_id="priya", conversation_id="a")
    agent.send("I prefer SUVs", user_id="priya", conversation_id="b")
    active = agent.memory.list_memories("priya")
    everything = agent.memory.list_memories("priya", include_superseded=True)
    assert [m.content for m in active] == ["User prefers SUVs for rental cars"]
    old = next(m for m in everything if m.content == "User prefers economy cars")
    assert old.superseded_by == active[0].id
    hits = agent.memory.search("priya", "which car class should I rent?")
    assert [h.record.content for h in hits] == ["User prefers SUVs for rental cars"]


def test_a_preference_reaches_tool_arguments_in_a_new_conversation(
    make_agent: AgentFactory,
) -> None:
    agent = remembering(make_agent)
    agent.send("I prefer economy cars", user_id="priya", conversation_id="first")
    reply = agent.send(
        f"find me a rental car in Berlin from {days_ahead(10)} to {days_ahead(13)}",
        user_id="priya",
        conversation_id="second",
    )
    call = chat_requests(agent)[-1][-2]
    assert isinstance(call, AIMessage)
    assert call.tool_calls[0]["name"] == "search_cars"
    assert call.tool_calls[0]["args"]["car_class"] == "economy"
    assert "class economy" in reply.text


def test_memories_can_be_scoped_to_the_conversation(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent, memory_scope="conversation")
    agent.send("My name is Priya", user_id="priya", conversation_id="first")
    assert agent.send("What is my name?", user_id="priya", conversation_id="second").text == (
        "I do not know your name yet."
    )


def test_retrieval_threshold_filters_unrelated_memories(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    agent.send("I prefer aisle seats", user_id="priya", conversation_id="a")
    agent.send("My name is Priya", user_id="priya", conversation_id="a")
    assert agent.memory.search("priya", "Tell me a joke about penguins") == []
    names = agent.memory.search("priya", "What is my name?")
    assert [h.record.content for h in names][:1] == ["User's name is Priya"]
    assert all(h.similarity >= agent.settings.effective_retrieval_threshold for h in names)


def test_the_reference_designs_0_9_threshold_retrieves_almost_nothing(
    make_agent: AgentFactory,
) -> None:
    agent = remembering(make_agent, retrieval_threshold=0.9)
    agent.send("My name is Priya", user_id="priya", conversation_id="a")
    assert agent.memory.search("priya", "What is my name?") == []


def test_a_malformed_extraction_never_fails_the_turn(make_agent: AgentFactory) -> None:
    class BrokenExtractor(OfflineChatModel):
        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
            result = super()._generate(messages, *args, **kwargs)
            if "USER SAID:" in message_text(messages[-1]):
                result.generations[0].message = AIMessage("```json\n{}\n```")
            return result

    agent = make_agent(long_term_memory=True, extraction="inline", model="offline")
    memory = agent.memory
    assert memory is not None and memory.extractor is not None
    memory.extractor._model = BrokenExtractor()  # the extraction call only
    reply = agent.send("My name is Priya", user_id="priya", conversation_id="a")
    assert reply.text == "Nice to meet you, Priya."
    assert memory.list_memories("priya") == []


def test_background_extraction_does_not_delay_the_reply_and_finishes(
    make_agent: AgentFactory,
) -> None:
    release = threading.Event()

    class SlowExtractor(OfflineChatModel):
        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
            if "USER SAID:" in message_text(messages[-1]):
                release.wait(10)
            return super()._generate(messages, *args, **kwargs)

    agent = make_agent(long_term_memory=True, extraction="background")
    memory = agent.memory
    assert memory is not None and memory.extractor is not None
    memory.extractor._model = SlowExtractor()
    started = time.perf_counter()
    reply = agent.send("My name is Priya", user_id="priya", conversation_id="a")
    assert reply.text == "Nice to meet you, Priya."
    assert time.perf_counter() - started < 5
    assert memory.stats.turns_recorded == 0  # still extracting
    release.set()
    assert memory.flush(timeout=10)
    assert [m.content for m in memory.list_memories("priya")] == ["User's name is Priya"]


def test_racing_extractions_for_one_user_insert_one_memory(make_agent: AgentFactory) -> None:
    agent = remembering(make_agent)
    service = agent.memory
    both_decided = threading.Barrier(2)

    class Racing(Consolidator):
        def _decide(self, *args: Any, **kwargs: Any) -> Any:
            decision = super()._decide(*args, **kwargs)
            both_decided.wait(10)  # both see an empty store before either writes
            return decision

    racing = Racing(service.store, service.embeddings, OfflineChatModel())
    candidate = Candidate(content="User prefers window seats", memory_type="EPISODIC")
    reports = []

    def extract(conversation_id: str) -> None:
        reports.append(racing.apply(Conversation("priya", conversation_id), [candidate]))

    threads = [threading.Thread(target=extract, args=(c,)) for c in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(len(r.added) for r in reports) == 1
    assert sum("written concurrently" in s for r in reports for s in r.skipped) == 1
    assert len(service.list_memories("priya")) == 1


@pytest.mark.parametrize("memory_type", list(MemoryType))
def test_add_through_the_service_is_deduplicated(
    make_agent: AgentFactory, memory_type: MemoryType
) -> None:
    agent = remembering(make_agent)
    who = Conversation("priya", "cli")
    first = agent.memory.add(who, "User is allergic to peanuts", memory_type)
    second = agent.memory.add(who, "User is allergic to peanuts", memory_type)
    assert len(first.added) == 1 and second.skipped
