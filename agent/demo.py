"""``make demo``: the product's story on embedded defaults, with the offline model.

Two conversations of one user and a stranger, on the real graph, the real SQLite files and the
real embedded memory store. For every turn it prints what the model was sent (the memory block
of the system prompt included), the reply, what long-term memory learned, and the kept history,
so that the three promises can be checked by eye: the window keeps the resent history small,
memory carries facts across conversations, and tool round trips stay out of the history.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import Any, TextIO
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage, SystemMessage

from agent.app import TravelAgent
from agent.context import new_conversation_id
from agent.messages import format_message_line, message_text
from agent.prompts import MEMORY_BLOCK_HEADER, SYSTEM_PROMPT
from agent.settings import Settings, describe_model

DEMO_WINDOW = 6
WIDTH = 120
USER, STRANGER = "priya", "bob"


def _day(offset: int) -> str:
    return (date.today() + timedelta(days=offset)).isoformat()


class _RequestEcho(BaseCallbackHandler):
    """Prints each model request, the agent's long system prompt shortened to its first words."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *,
        run_id: UUID, **kwargs: Any,
    ) -> None:  # fmt: skip
        for request in messages:
            self.say(f"    model was sent {len(request)} messages:")
            for message in request:
                if isinstance(message, SystemMessage):
                    self._system(message_text(message))
                else:
                    self.say("      " + format_message_line(message, WIDTH))

    def _system(self, text: str) -> None:
        if not text.startswith(SYSTEM_PROMPT):
            self.say("      " + format_message_line(SystemMessage(text), WIDTH))
            return
        _, _, block = text.partition(MEMORY_BLOCK_HEADER)
        if not block:
            self.say("      system: <travel-assistant prompt> (no memory block: nothing relevant)")
            return
        self.say("      system: <travel-assistant prompt> + memory block:")
        for line in block.strip().splitlines():
            self.say("        " + line)


def run_demo(settings: Settings, out: TextIO | None = None) -> int:
    """Run the scripted story and print it; returns the exit code."""
    stream = out or sys.stdout

    def say(line: str) -> None:
        stream.write(line + "\n")
        stream.flush()

    demo = settings.model_copy(
        update={
            "model": "offline",
            "window": "messages",
            "max_messages": DEMO_WINDOW,
            "long_term_memory": True,
        }
    )
    first, second = new_conversation_id(), new_conversation_id()
    say("travel-memory-agent demo")
    say(f"  model:       {describe_model('offline')}")
    say(f"  short-term:  last {DEMO_WINDOW} messages, kept in {demo.describe()['checkpointer']}")
    say(f"  long-term:   {demo.resolved_memory_store_url} ({demo.describe()['embeddings']})")

    car = _script_first_conversation(demo, say, first)
    say("\n=== The agent restarts: a new TravelAgent over the same files ===")
    _script_second_conversation(demo, say, second, car)
    say(
        "\nWhat to notice: the introduction left conversation 1's 6-message window, yet the name"
        "\nwas answered from the memory block; the economy-car preference from conversation 1"
        "\nchose the car class in conversation 2 until the user changed it (the old memory is"
        "\nkept but superseded); tool calls appeared in requests, never in the kept history;"
        "\nand another user got nothing of Priya's."
    )
    return 0


def _script_first_conversation(
    settings: Settings, say: Callable[[str], None], conversation: str
) -> str:
    say(f"\n=== Conversation 1 ({conversation}), user {USER} ===")
    with TravelAgent.open(settings) as agent:
        turn = _Turns(agent, say)
        turn(USER, conversation, "My name is Priya.")
        turn(USER, conversation, "I prefer economy cars.")
        found = turn(
            USER, conversation, f"Find me a rental car in Berlin from {_day(30)} to {_day(33)}."
        )
        car = _first_available(found, r"CR-[A-Z]{3}-[a-z]+-\d")
        turn(USER, conversation, f"Rent {car} from {_day(30)} to {_day(33)}.")
        say("\n  (the introduction has now left the 6-message window)")
        turn(USER, conversation, "What is my name?")
    return car


def _script_second_conversation(
    settings: Settings, say: Callable[[str], None], conversation: str, car: str
) -> None:
    say(f"\n=== Conversation 2 ({conversation}), same user, empty history ===")
    with TravelAgent.open(settings) as agent:
        turn = _Turns(agent, say)
        turn(USER, conversation, "What is my name?")
        turn(USER, conversation, f"Find me a rental car in Munich from {_day(60)} to {_day(62)}.")
        turn(USER, conversation, "I prefer SUVs.")
        turn(USER, conversation, f"Find me a rental car in Munich from {_day(60)} to {_day(62)}.")
        turn(USER, conversation, "List my bookings.")
        say(f"\n=== Another user, {STRANGER}, in a conversation of his own ===")
        turn(STRANGER, new_conversation_id(), "What is my name?")
        turn(STRANGER, new_conversation_id(), "List my bookings.")


class _Turns:
    """Sends one message and prints everything a reader should see about that turn."""

    def __init__(self, agent: TravelAgent, say: Callable[[str], None]) -> None:
        self.agent = agent
        self.say = say
        self.count = 0

    def __call__(self, user: str, conversation: str, text: str) -> str:
        self.count += 1
        memory = self.agent.memory
        assert memory is not None  # the demo turns long-term memory on
        known = {m.id for m in memory.list_memories(user, include_superseded=True)}
        self.say(f"\n[{user} #{self.count}] {text}")
        reply = self.agent.send(
            text, user_id=user, conversation_id=conversation, callbacks=[_RequestEcho(self.say)]
        )
        self.say("    reply: " + reply.text.replace("\n", "\n           "))
        memory.flush()  # extraction runs after the reply; wait so the story stays in order
        records = memory.list_memories(user, include_superseded=True)
        for record in records:
            if record.id not in known:
                self.say(f"    learned: [{record.memory_type.value}] {record.content}")
        for old in _newly_superseded(records, known):
            self.say(f"    superseded (kept, no longer recalled): {old}")
        kept = self.agent.history(conversation)
        self.say(f"    kept history ({len(kept)} messages):")
        for message in kept:
            self.say("      " + format_message_line(message, WIDTH))
        return reply.text


def _newly_superseded(records: Sequence[Any], known: set[str]) -> list[str]:
    """Memories known before the turn that a memory new in this turn superseded."""
    return [
        f"[{r.memory_type.value}] {r.content}"
        for r in records
        if r.id in known and r.superseded_by is not None and r.superseded_by not in known
    ]


def _first_available(text: str, pattern: str) -> str:
    for line in text.splitlines():
        found = re.search(pattern, line)
        if found and "sold out" not in line:
            return found.group(0)
    raise RuntimeError(f"the demo expected an available offer in:\n{text}")
