"""The offline model: a deterministic stand-in for an LLM, for tests, demos and benchmarks.

It is NOT a language model. It follows a handful of written rules, so a test can prove what a
real model would only make likely: "What is my name?" is answered correctly only when
"My name is X" really was in the request it received — in the kept history or in a memory in
the system prompt. It records every request it is sent, which is the evidence a memory test
needs ("what did the model actually see?").

Rules, first match wins:
1. The request is a memory-extraction request: answer the JSON the extraction prompt asks for,
   from the statements "My name is X", "I prefer X" and "My preference is X". A memory
   consolidation request: "skip" a memory already there word for word, "update" one about the
   same subject (cars, seats, hotels, flights, meals, the name), else "add".
2. The last message is a tool result: answer with the results of that tool round.
3. "My name is X" → "Nice to meet you, X."
4. "What is my name?" → "Your name is X." if the request contains "My name is X" or
   "User's name is X" anywhere, else "I do not know your name yet."
5. A clear travel request whose tool is bound → a call to that tool (see :mod:`intents`).
6. "I prefer X" / "My preference is X" → an acknowledgement.
7. Anything else → a reply that says it came from the offline model.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from agent.messages import latest_user_text, message_text
from agent.models.intents import match_tool_intent
from agent.prompts import CONSOLIDATION_SYSTEM_PROMPT, EXTRACTION_SYSTEM_PROMPT

OFFLINE_MODEL_NAME = "offline"
_EXTRACTION_MARKER = EXTRACTION_SYSTEM_PROMPT.splitlines()[0]
_CONSOLIDATION_MARKER = CONSOLIDATION_SYSTEM_PROMPT.splitlines()[0]

_NAME = r"([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*|[\w'-]+)"
_MY_NAME = re.compile(r"\b(?i:my name is)\s+" + _NAME)
_USERS_NAME = re.compile(r"\b(?i:user's name is)\s+" + _NAME)
_ASKS_NAME = re.compile(r"\bwhat(?:'s| is) my name\b", re.IGNORECASE)
_PREFERENCE = re.compile(r"\b(?:i prefer|my preferences? (?:is|are))\s+([^.!?\n]+)", re.IGNORECASE)


class OfflineChatModel(BaseChatModel):
    """Deterministic rule-based chat model; labelled everywhere as not an LLM."""

    requests: list[list[BaseMessage]] = Field(default_factory=list, exclude=True)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "offline-deterministic-not-an-llm"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": OFFLINE_MODEL_NAME, "llm": False}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self.requests.append(list(messages))
        tool_names = {tool["function"]["name"] for tool in kwargs.get("tools", [])}
        reply = respond(messages, tool_names)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def reset(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self.requests.clear()


def respond(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage:
    """The offline model's answer to one request (the rules in the module docstring)."""
    for rule in _RULES:
        reply = rule(messages, tool_names)
        if reply is not None:
            return reply
    return AIMessage(content=f"[offline model, not an LLM] You said: {latest_user_text(messages)}")


def _extraction_rule(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage | None:
    if not _is_extraction_request(messages):
        return None
    return AIMessage(content=json.dumps({"memories": extract_statements(messages)}))


def _tool_result_rule(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage | None:
    if not messages or not isinstance(messages[-1], ToolMessage):
        return None
    return AIMessage(content=_summarise_tool_round(messages))


def _introduction_rule(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage | None:
    question = latest_user_text(messages)
    match = _MY_NAME.search(question)
    if match is None or _ASKS_NAME.search(question):
        return None
    return AIMessage(content=f"Nice to meet you, {match.group(1)}.")


def _name_question_rule(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage | None:
    if not _ASKS_NAME.search(latest_user_text(messages)):
        return None
    name = find_user_name(messages)
    return AIMessage(content=f"Your name is {name}." if name else "I do not know your name yet.")


def _tool_call_rule(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage | None:
    intent = match_tool_intent(latest_user_text(messages), tool_names, _system_text(messages))
    if intent is None:
        return None
    name, args = intent
    call_id = f"call_{len(messages)}_{name}"
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _preference_rule(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage | None:
    match = _PREFERENCE.search(latest_user_text(messages))
    if match is None:
        return None
    return AIMessage(content=f"Noted: you prefer {match.group(1).strip()}.")


def _consolidation_rule(messages: Sequence[BaseMessage], tool_names: set[str]) -> AIMessage | None:
    if not any(
        isinstance(m, SystemMessage) and message_text(m).startswith(_CONSOLIDATION_MARKER)
        for m in messages
    ):
        return None
    return AIMessage(content=json.dumps(decide_consolidation(latest_user_text(messages))))


_RULES = (
    _extraction_rule,
    _consolidation_rule,
    _tool_result_rule,
    _introduction_rule,
    _name_question_rule,
    _tool_call_rule,
    _preference_rule,
)


def find_user_name(messages: Sequence[BaseMessage]) -> str | None:
    """The latest name the user gave anywhere in the request, or from a memory about them."""
    name: str | None = None
    for message in messages:
        text = message_text(message)
        if isinstance(message, HumanMessage):
            for match in _MY_NAME.finditer(text):
                name = match.group(1)
        elif isinstance(message, SystemMessage):
            for match in (*_MY_NAME.finditer(text), *_USERS_NAME.finditer(text)):
                name = match.group(1)
    return name


def extract_statements(messages: Sequence[BaseMessage]) -> list[dict[str, str]]:
    """Memories from what the user said in an extraction request."""
    said = _user_said_section(latest_user_text(messages))
    memories: list[dict[str, str]] = []
    for match in _MY_NAME.finditer(said):
        memories.append({"content": f"User's name is {match.group(1)}", "memory_type": "SEMANTIC"})
    for match in _PREFERENCE.finditer(said):
        preference = _with_subject(match.group(1).strip())
        memories.append({"content": f"User prefers {preference}", "memory_type": "EPISODIC"})
    return memories


# What the extraction prompt asks for: name the subject, so the memory can be found later.
_SUBJECTS = {"car": "rental cars", "seat": "seats", "hotel": "hotels", "flight": "flights"}


def _with_subject(preference: str) -> str:
    """'SUVs' → 'SUVs for rental cars'; 'economy cars' stays as it is."""
    topic = memory_topic(preference)
    subject = _SUBJECTS.get(topic or "")
    if subject is None or subject.split()[-1].rstrip("s") in preference.lower():
        return preference
    return f"{preference} for {subject}"


# Subjects a preference or fact can be about; the first subject whose words appear wins.
_TOPICS: tuple[tuple[str, frozenset[str]], ...] = (
    ("name", frozenset({"name"})),
    (
        "car",
        frozenset(
            {"car", "cars", "suv", "suvs", "sedan", "sedans", "van", "vans", "compact", "midsize"}
        ),
    ),
    ("seat", frozenset({"seat", "seats", "aisle", "window"})),
    ("hotel", frozenset({"hotel", "hotels", "room", "rooms", "hostel", "suite", "suites"})),
    ("flight", frozenset({"class", "cabin", "flight", "flights", "airline", "airlines"})),
    ("meal", frozenset({"meal", "meals", "vegetarian", "vegan", "food", "diet"})),
)
_MEMORY_LINE = re.compile(r"^(?:(\d+)\. )?\[(EPISODIC|SEMANTIC)\] (.+)$")


def memory_topic(content: str) -> str | None:
    """The subject a memory is about (cars, seats, hotels, …), if one is recognised."""
    tokens = set(re.findall(r"[a-z]+", content.lower()))
    return next((topic for topic, keys in _TOPICS if tokens & keys), None)


def decide_consolidation(request: str) -> dict[str, object]:
    """The offline decision: same text → skip; same subject → update it; else add."""
    new: str | None = None
    existing: list[tuple[int, str]] = []
    for line in request.splitlines():
        match = _MEMORY_LINE.match(line.strip())
        if match is None:
            continue
        if match[1] is None and new is None:
            new = match[3]
        elif match[1] is not None:
            existing.append((int(match[1]), match[3]))
    if new is None:
        return {"action": "add", "target": None}
    normalised = new.strip().lower().rstrip(".")
    for _, content in existing:
        if content.strip().lower().rstrip(".") == normalised:
            return {"action": "skip", "target": None}
    topic = memory_topic(new)
    for number, content in existing:
        if topic is not None and memory_topic(content) == topic:
            return {"action": "update", "target": number}
    return {"action": "add", "target": None}


def _is_extraction_request(messages: Sequence[BaseMessage]) -> bool:
    return any(
        isinstance(m, SystemMessage) and message_text(m).startswith(_EXTRACTION_MARKER)
        for m in messages
    )


def _user_said_section(text: str) -> str:
    start = text.find("USER SAID:")
    end = text.find("ASSISTANT REPLIED:")
    if start == -1:
        return text
    return text[start + len("USER SAID:") : end if end != -1 else None]


def _summarise_tool_round(messages: Sequence[BaseMessage]) -> str:
    results: list[str] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.append(message_text(message))
    return "Here is what I found:\n" + "\n".join(reversed(results))


def _system_text(messages: Sequence[BaseMessage]) -> str:
    return "\n".join(message_text(m) for m in messages if isinstance(m, SystemMessage))
