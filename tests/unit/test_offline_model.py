"""The offline model's rules: deterministic, request-recording, and never mistaken for an LLM."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool

from agent.models import OfflineChatModel
from agent.prompts import EXTRACTION_SYSTEM_PROMPT, EXTRACTION_USER_TEMPLATE


def ask(*messages: BaseMessage) -> str:
    reply = OfflineChatModel().invoke(list(messages))
    assert isinstance(reply.content, str)
    return reply.content


def test_an_introduction_is_answered_by_name() -> None:
    assert ask(HumanMessage("My name is Priya")) == "Nice to meet you, Priya."


def test_the_name_is_known_only_when_the_request_contains_it() -> None:
    assert ask(HumanMessage("What is my name?")) == "I do not know your name yet."
    assert (
        ask(
            HumanMessage("My name is Priya"),
            AIMessage("Nice to meet you, Priya."),
            HumanMessage("What is my name?"),
        )
        == "Your name is Priya."
    )


def test_a_memory_in_the_system_prompt_is_enough_to_know_the_name() -> None:
    system = SystemMessage("Memories:\n1. [SEMANTIC] User's name is Priya")
    assert ask(system, HumanMessage("What is my name?")) == "Your name is Priya."


def test_the_assistants_own_words_do_not_count_as_the_user_saying_it() -> None:
    assert ask(AIMessage("My name is Bot."), HumanMessage("What's my name?")) == (
        "I do not know your name yet."
    )


def test_every_request_is_recorded_in_order() -> None:
    model = OfflineChatModel()
    model.invoke([HumanMessage("one")])
    model.invoke([SystemMessage("s"), HumanMessage("two")])
    assert [[m.content for m in request] for request in model.requests] == [["one"], ["s", "two"]]


def test_a_clear_travel_request_calls_a_bound_tool(tools: list[BaseTool]) -> None:
    model = OfflineChatModel().bind_tools(tools)
    reply = model.invoke([HumanMessage("Which cities can you book in Spain?")])
    assert isinstance(reply, AIMessage)
    assert reply.tool_calls[0]["name"] == "list_destinations"
    assert reply.tool_calls[0]["args"] == {"country": "Spain"}


def test_no_tool_is_called_when_none_is_bound() -> None:
    reply = OfflineChatModel().invoke([HumanMessage("Which cities can you book?")])
    assert not reply.tool_calls


def test_tool_results_become_the_final_answer() -> None:
    call = AIMessage("", tool_calls=[{"name": "list_destinations", "args": {}, "id": "c1"}])
    answer = ask(
        HumanMessage("Which cities?"), call, ToolMessage("Berlin (BER)", tool_call_id="c1")
    )
    assert answer == "Here is what I found:\nBerlin (BER)"


def test_memories_are_extracted_deterministically_from_statements() -> None:
    request = [
        SystemMessage(EXTRACTION_SYSTEM_PROMPT.format(max_memories=5, schema="{}")),
        HumanMessage(
            EXTRACTION_USER_TEMPLATE.format(
                user_message=(
                    "My name is Priya. I prefer economy cars. My preference is aisle seats."
                ),
                assistant_message="My name is Bot and I prefer nothing.",
            )
        ),
    ]
    assert json.loads(ask(*request)) == {
        "memories": [
            {"content": "User's name is Priya", "memory_type": "SEMANTIC"},
            {"content": "User prefers economy cars", "memory_type": "EPISODIC"},
            {"content": "User prefers aisle seats", "memory_type": "EPISODIC"},
        ]
    }


def test_the_model_says_it_is_not_an_llm() -> None:
    assert "not an LLM" in ask(HumanMessage("hello"))
    assert "not-an-llm" in OfflineChatModel()._llm_type
