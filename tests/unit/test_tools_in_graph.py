"""Travel tools inside the graph: identity injected, errors returned to the model, the tool
round trip kept out of the kept history."""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

from agent.context import Conversation
from agent.graph import build_graph
from agent.short_term import MessageWindow
from tests.conftest import AgentFactory, days_ahead, offline
from tests.unit.scripted import ScriptedChatModel


def test_no_tool_lets_the_model_choose_the_user(tools: list[BaseTool]) -> None:
    for each in tools:
        arguments = each.tool_call_schema
        assert isinstance(arguments, type) and issubclass(arguments, BaseModel), each.name
        schema = arguments.model_json_schema()
        assert not {"user_id", "runtime", "user"} & set(schema.get("properties", {})), each.name


def test_a_bad_tool_call_comes_back_to_the_model_which_corrects_itself(
    tools: list[BaseTool],
) -> None:
    wrong = {"city": "Berlin", "check_in": days_ahead(9), "check_out": days_ahead(7)}
    right = {"city": "Berlin", "check_in": days_ahead(7), "check_out": days_ahead(9)}
    model = ScriptedChatModel(
        script=[
            AIMessage("", tool_calls=[{"name": "search_hotels", "args": wrong, "id": "c1"}]),
            AIMessage("", tool_calls=[{"name": "search_hotels", "args": right, "id": "c2"}]),
            AIMessage("Budget Inn Berlin is the cheapest."),
        ]
    )
    graph = build_graph(
        model=model, tools=tools, window=MessageWindow(20), checkpointer=InMemorySaver()
    )
    who = Conversation("alice", "c-1")
    result = graph.invoke(
        {"messages": [HumanMessage("hotel in Berlin please")]}, who.config(), context=who.context()
    )
    error = model.requests[1][-1]
    assert isinstance(error, ToolMessage) and error.status == "error"
    assert "check_out" in str(error.content) and "must be after check_in" in str(error.content)
    corrected = model.requests[2][-1]
    assert isinstance(corrected, ToolMessage) and corrected.status == "success"
    assert "Hotels in Berlin" in str(corrected.content)
    assert [m.type for m in result["messages"]] == ["human", "ai"]


def test_bookings_are_made_for_the_user_in_the_run_context(make_agent: AgentFactory) -> None:
    agent = make_agent()
    found = agent.send(
        f"find me a rental car in Berlin from {days_ahead(5)} to {days_ahead(7)}",
        user_id="alice",
        conversation_id="alice-1",
    )
    offer = next(
        re.findall(r"CR-[A-Z]{3}-[a-z]+-\d", line)[0]
        for line in found.text.splitlines()
        if line.startswith("- CR") and "sold out" not in line
    )
    booked = agent.send(
        f"rent {offer} from {days_ahead(5)} to {days_ahead(7)}",
        user_id="alice",
        conversation_id="alice-1",
    )
    booking = re.findall(r"BK-[A-Z0-9]+", booked.text)[0]
    assert booked.text.startswith("Here is what I found:\nBooked:")

    mine = agent.send(f"show booking {booking}", user_id="alice", conversation_id="alice-2")
    assert "[confirmed]" in mine.text
    theirs = agent.send(f"show booking {booking}", user_id="bob", conversation_id="bob-1")
    assert f"no booking '{booking}' found" in theirs.text
    cancel = agent.send(f"cancel booking {booking}", user_id="bob", conversation_id="bob-1")
    assert "no booking" in cancel.text
    listing = agent.send("list my bookings", user_id="alice", conversation_id="alice-2")
    assert booking in listing.text and "[confirmed]" in listing.text


def test_a_booking_turn_keeps_question_and_answer_only(make_agent: AgentFactory) -> None:
    agent = make_agent()
    agent.send(
        f"Find flights from Berlin to Paris on {days_ahead(12)}",
        user_id="alice",
        conversation_id="c",
    )
    request = offline(agent).requests[-1]
    assert [m.type for m in request][-2:] == ["ai", "tool"]
    assert [m.type for m in agent.history("c")] == ["human", "ai"]
