"""The graph end to end on the offline model: node order, memory around the tool loop, the
window applied to the checkpoint, and bad input refused before anything happens."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from agent.context import new_conversation_id
from agent.errors import (
    InvalidContextError,
    InvalidMessageError,
    MessageTooLargeError,
    MissingConversationIdError,
)
from agent.graph import (
    CALL_MODEL,
    EXTRACT_MEMORIES,
    RETRIEVE_MEMORIES,
    RUN_TOOLS,
    TRIM_WINDOW,
    build_model_request,
)
from agent.prompts import SYSTEM_PROMPT
from tests.conftest import AgentFactory, offline


def stored_checkpoints(agent: object) -> int:
    return len(list(agent.checkpointer.list(None)))  # type: ignore[attr-defined]


def test_nodes_run_in_the_documented_order_around_the_tool_loop(make_agent: AgentFactory) -> None:
    graph = make_agent().graph.get_graph()
    edges = {(e.source, e.target) for e in graph.edges}
    assert {
        ("__start__", RETRIEVE_MEMORIES),
        (RETRIEVE_MEMORIES, TRIM_WINDOW),
        (TRIM_WINDOW, CALL_MODEL),
        (CALL_MODEL, RUN_TOOLS),
        (RUN_TOOLS, CALL_MODEL),
        (CALL_MODEL, EXTRACT_MEMORIES),
        (EXTRACT_MEMORIES, "__end__"),
    } <= edges


def test_the_name_is_answered_from_the_kept_history(make_agent: AgentFactory) -> None:
    agent = make_agent()
    cid = new_conversation_id()
    assert agent.send("My name is Priya", user_id="u", conversation_id=cid).text == (
        "Nice to meet you, Priya."
    )
    assert agent.send("What is my name?", user_id="u", conversation_id=cid).text == (
        "Your name is Priya."
    )
    other = agent.send("What is my name?", user_id="u", conversation_id=new_conversation_id())
    assert other.text == "I do not know your name yet."


def test_the_kept_history_drops_the_tool_round_trip_the_request_contained(
    make_agent: AgentFactory,
) -> None:
    agent = make_agent()
    cid = new_conversation_id()
    reply = agent.send("Which cities can you book in Germany?", user_id="u", conversation_id=cid)
    assert "Berlin (BER)" in reply.text

    requests = offline(agent).requests
    assert len(requests) == 2  # the tool call, then the answer from its result
    second = requests[1]
    assert isinstance(second[-2], AIMessage) and second[-2].tool_calls
    assert isinstance(second[-1], ToolMessage)

    kept = agent.history(cid)
    assert [type(m) for m in kept] == [HumanMessage, AIMessage]
    assert kept[1].content == reply.text


def test_tool_messages_are_kept_when_the_setting_says_so(make_agent: AgentFactory) -> None:
    agent = make_agent(keep_tool_messages=True)
    cid = new_conversation_id()
    agent.send("Which cities can you book?", user_id="u", conversation_id=cid)
    kinds = [m.type for m in agent.history(cid)]
    assert kinds == ["human", "ai", "tool", "ai"]


def test_the_window_trims_the_checkpoint_not_only_the_request(make_agent: AgentFactory) -> None:
    agent = make_agent(max_messages=4)
    cid = new_conversation_id()
    for n in range(10):
        agent.send(f"message {n}", user_id="u", conversation_id=cid)
        assert len(agent.history(cid)) <= 4
    assert [m.content for m in agent.history(cid)][::2] == ["message 8", "message 9"]
    # every request stayed within the window plus the system prompt
    assert max(len(r) for r in offline(agent).requests) <= 1 + 4


def test_a_fact_outside_the_window_is_forgotten(make_agent: AgentFactory) -> None:
    agent = make_agent(max_messages=4)
    cid = new_conversation_id()
    agent.send("My name is Priya", user_id="u", conversation_id=cid)
    agent.send("hello", user_id="u", conversation_id=cid)
    agent.send("hello again", user_id="u", conversation_id=cid)
    reply = agent.send("What is my name?", user_id="u", conversation_id=cid)
    assert reply.text == "I do not know your name yet."


def test_the_token_window_keeps_the_history_within_its_budget(make_agent: AgentFactory) -> None:
    from agent.short_term.tokens import count_message_tokens

    agent = make_agent(window="tokens", max_tokens=60)
    cid = new_conversation_id()
    for n in range(8):
        agent.send(f"tell me about trip number {n} please", user_id="u", conversation_id=cid)
    kept = agent.history(cid)
    assert sum(map(count_message_tokens, kept)) <= 60
    assert isinstance(kept[0], HumanMessage)


@pytest.mark.parametrize(
    ("conversation_id", "error"),
    [
        (None, MissingConversationIdError),
        ("", InvalidContextError),
        ("x" * 129, InvalidContextError),
        ("../../etc/passwd", InvalidContextError),
    ],
)
def test_a_missing_or_invalid_conversation_id_calls_no_model_and_stores_nothing(
    make_agent: AgentFactory, conversation_id: str | None, error: type[Exception]
) -> None:
    agent = make_agent()
    with pytest.raises(error, match="conversation_id"):
        agent.send("My name is Priya", user_id="u", conversation_id=conversation_id)
    assert offline(agent).requests == []
    assert stored_checkpoints(agent) == 0


def test_the_raw_graph_refuses_a_bad_context_before_storing(make_agent: AgentFactory) -> None:
    agent = make_agent()
    config = {"configurable": {"thread_id": "t-1"}}
    with pytest.raises(InvalidContextError, match="conversation_id"):
        agent.graph.invoke(  # type: ignore[call-overload]  # a dict, as a careless caller sends
            {"messages": [HumanMessage("hi")]},
            config,
            context={"user_id": "u", "conversation_id": "no spaces allowed"},
        )
    assert offline(agent).requests == []
    assert stored_checkpoints(agent) == 0


def test_the_raw_graph_without_a_thread_calls_no_model(make_agent: AgentFactory) -> None:
    agent = make_agent()
    with pytest.raises(ValueError, match="thread_id"):
        agent.graph.invoke({"messages": [HumanMessage("hi")]}, context={"user_id": "u"})  # type: ignore[call-overload]
    assert offline(agent).requests == []
    assert stored_checkpoints(agent) == 0


def test_the_longest_valid_id_round_trips(make_agent: AgentFactory) -> None:
    agent = make_agent()
    cid = "user:alice.example.com:thread:" + "x" * 98
    assert len(cid) == 128
    agent.send("My name is Priya", user_id="alice", conversation_id=cid)
    assert agent.send("What is my name?", user_id="alice", conversation_id=cid).text == (
        "Your name is Priya."
    )


def test_an_oversized_or_empty_message_is_refused_before_anything_runs(
    make_agent: AgentFactory,
) -> None:
    agent = make_agent(max_input_chars=100)
    with pytest.raises(MessageTooLargeError, match="AGENT_MAX_INPUT_CHARS"):
        agent.send("x" * 101, user_id="u", conversation_id="c")
    with pytest.raises(InvalidMessageError, match="non-empty"):
        agent.send("   ", user_id="u", conversation_id="c")
    assert offline(agent).requests == []
    assert stored_checkpoints(agent) == 0


def test_the_request_has_one_leading_system_message_with_client_system_text() -> None:
    request = build_model_request(
        SYSTEM_PROMPT,
        [SystemMessage("Answer in French."), HumanMessage("hi")],
        [],
    )
    assert [m.type for m in request] == ["system", "human"]
    assert request[0].content == SYSTEM_PROMPT + "\n\nAnswer in French."


def test_recalled_memories_form_a_numbered_block_only_when_present() -> None:
    without = build_model_request(SYSTEM_PROMPT, [HumanMessage("hi")], [])
    assert "Long-term memories" not in str(without[0].content)
    with_memories = build_model_request(
        SYSTEM_PROMPT,
        [HumanMessage("hi")],
        [
            {"memory_type": "EPISODIC", "content": "User prefers economy cars"},
            {"memory_type": "SEMANTIC", "content": "User's name is Priya"},
        ],
    )
    assert str(with_memories[0].content).endswith(
        "1. [EPISODIC] User prefers economy cars\n2. [SEMANTIC] User's name is Priya"
    )
