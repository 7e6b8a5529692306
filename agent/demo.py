"""``make demo``: a scripted conversation on the embedded defaults, with the offline model.

It shows the three things a user of a memory layer should be able to see: what the model was
sent on every call, what the kept history holds after each turn (no tool round trips), and the
window at work — a fact told early falls out of a small window. The conversation lives in the
SQLite file of the data directory, and the agent is closed and reopened mid-way to show that the
history survives a restart.
"""

from __future__ import annotations

import sys
from typing import TextIO

from agent.app import TravelAgent
from agent.context import new_conversation_id
from agent.messages import format_message_line
from agent.observability import RequestPrinter
from agent.settings import Settings, describe_model

DEMO_WINDOW = 6
WIDTH = 110
BEFORE_RESTART = ("My name is Priya.", "Which cities can you book in Germany?")
AFTER_RESTART = (
    "What is my name?",
    "I prefer aisle seats.",
    "Which cities can you book in Spain?",
    "What is my name?",
)


def run_demo(settings: Settings, out: TextIO | None = None) -> int:
    """Run the scripted conversation and print it; returns the exit code."""
    out = out or sys.stdout
    demo_settings = settings.model_copy(
        update={"model": "offline", "window": "messages", "max_messages": DEMO_WINDOW}
    )
    user_id, conversation_id = "priya", new_conversation_id()
    say = _printer(out)
    say(f"Model: {describe_model('offline')}")
    say(f"Kept history: {demo_settings.describe()['checkpointer']}")
    say(f"Window: the last {DEMO_WINDOW} messages. User {user_id}, conversation {conversation_id}")
    turn = 0
    for phase, messages in (("first run", BEFORE_RESTART), ("after restart", AFTER_RESTART)):
        say(f"\n=== {phase}: a new TravelAgent over the same SQLite file ===")
        with TravelAgent.open(demo_settings) as travel_agent:
            printer = RequestPrinter(stream=out, width=WIDTH)
            for text in messages:
                turn += 1
                say(f"\n[turn {turn}] user: {text}")
                reply = travel_agent.send(
                    text, user_id=user_id, conversation_id=conversation_id, callbacks=[printer]
                )
                say(f"[turn {turn}] reply: {reply.text}")
                kept = travel_agent.history(conversation_id)
                say(f"kept history ({len(kept)} messages, no tool round trips):")
                for message in kept:
                    say("  " + format_message_line(message, WIDTH))
    say(
        "\nThe name fell out of the 6-message window, so the last question could not be "
        "answered from the kept history: that is what long-term memory is for."
    )
    return 0


def _printer(out: TextIO):  # type: ignore[no-untyped-def]
    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    return say
