"""Two sends to one conversation at once: without a guard one message is lost (reproduced
deterministically with a barrier); with the per-conversation lock both are kept."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage

from agent.context import Conversation
from agent.errors import ConversationBusyError
from agent.graph import build_graph
from agent.messages import message_text
from agent.models import OfflineChatModel
from agent.prompts import SYSTEM_PROMPT
from agent.short_term import MessageWindow
from tests.conftest import AgentFactory


class MeetInTheMiddle(OfflineChatModel):
    """Holds each conversation model call until two calls are inside it at once: both runs
    have then read the same checkpoint, and neither has written its answer yet."""

    barrier: Any = None

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        if message_text(messages[0]).startswith(SYSTEM_PROMPT):
            # broken when the other send is not running concurrently (it waits for the lock)
            with contextlib.suppress(threading.BrokenBarrierError):
                self.barrier.wait(timeout=2)
        return super()._generate(messages, *args, **kwargs)


def send_both(send: Any) -> None:
    threads = [threading.Thread(target=send, args=(text,)) for text in ("from-A", "from-B")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def user_texts(messages: list[BaseMessage]) -> list[str]:
    return [message_text(m) for m in messages if isinstance(m, HumanMessage)]


def test_without_a_guard_one_of_two_concurrent_messages_is_lost(make_agent: AgentFactory) -> None:
    agent = make_agent()
    model = MeetInTheMiddle(barrier=threading.Barrier(2))
    raw = build_graph(
        model=model, tools=[], window=MessageWindow(20), checkpointer=agent.checkpointer
    )
    who = Conversation("alice", "race")
    raw.invoke({"messages": [HumanMessage("u0")]}, who.config(), context=who.context())
    model.barrier = threading.Barrier(2)  # the seeding call broke the first one

    send_both(lambda text: raw.invoke({"messages": [HumanMessage(text)]}, who.config(),
                                      context=who.context()))  # fmt: skip
    kept = raw.get_state(who.config()).values["messages"]
    # Sent: u0 and its answer, then from-A and from-B with theirs: 6 messages. Both runs
    # wrote a successor of a checkpoint the other did not see, so the latest state holds one
    # run's work: a question, an answer or both of the other run are gone.
    assert user_texts(kept)[0] == "u0"
    assert len(kept) < 6


def test_with_the_conversation_lock_both_messages_are_kept(make_agent: AgentFactory) -> None:
    agent = make_agent()
    model = MeetInTheMiddle(barrier=threading.Barrier(2))
    agent.graph = build_graph(model=model, tools=[], window=MessageWindow(20),
                              checkpointer=agent.checkpointer)  # fmt: skip
    agent.send("u0", user_id="alice", conversation_id="race")
    model.barrier = threading.Barrier(2)  # the seeding call broke the first one
    send_both(lambda text: agent.send(text, user_id="alice", conversation_id="race"))
    kept = user_texts(agent.history("race"))
    assert kept[0] == "u0" and sorted(kept[1:]) == ["from-A", "from-B"]
    assert len(agent.history("race")) == 6  # every question with its answer, none twice


def test_a_send_that_cannot_get_the_lock_in_time_is_refused_as_busy(
    make_agent: AgentFactory,
) -> None:
    agent = make_agent(conversation_lock_timeout=0.2)
    with agent.locks.hold("c-1", timeout=1), pytest.raises(ConversationBusyError) as error:
        agent.send("hello", user_id="alice", conversation_id="c-1")
    assert "conversation c-1 is busy" in str(error.value)
    assert agent.history("c-1") == []  # nothing was stored for the refused send
