"""The Python entry point: open the configured backends and talk to the agent.

    from agent.app import TravelAgent
    from agent.settings import Settings
from agent.tools import TravelDesk, build_travel_tools, open_travel_desk

    with TravelAgent.open(Settings.load()) as travel_agent:
        reply = travel_agent.send("My name is Priya", user_id="priya", conversation_id=cid)

Everything a caller hands in is validated here, at the edge, before the graph runs: a missing
or malformed id or an oversized message fails with zero model calls and nothing stored.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from agent.context import Conversation, normalize_id
from agent.errors import ConversationNotFoundError, InvalidMessageError, MessageTooLargeError
from agent.factory import (
    AgentGraph,
    bookings_path,
    graph_from_settings,
    open_long_term_memory,
)
from agent.long_term.memory import MemoryService
from agent.messages import message_text
from agent.models import build_chat_model
from agent.observability import log_backends
from agent.persistence import CheckpointerOptions, open_checkpointer
from agent.persistence.locks import ConversationLocks, InProcessLocks, conversation_locks
from agent.settings import Settings
from agent.tools import TravelDesk, build_travel_tools, open_travel_desk


@dataclass(frozen=True)
class Reply:
    """The answer to one user message."""

    text: str
    conversation_id: str
    user_id: str


class TravelAgent:
    """The compiled graph over an open checkpointer, plus the checks that guard its edge."""

    def __init__(
        self,
        settings: Settings,
        graph: AgentGraph,
        model: BaseChatModel,
        checkpointer: BaseCheckpointSaver[Any],
        *,
        memory: MemoryService | None = None,
        desk: TravelDesk | None = None,
        locks: ConversationLocks | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.model = model
        self.checkpointer = checkpointer
        self.memory = memory
        self.desk = desk
        self.locks = locks or InProcessLocks()
        # A conversation's owner never changes, so each is read from the checkpoint once.
        self._owners: dict[str, str] = {}

    @classmethod
    @contextmanager
    def open(
        cls, settings: Settings | None = None, *, model: BaseChatModel | None = None
    ) -> Iterator[TravelAgent]:
        """Build every configured component, log what is in use, and close it all on exit."""
        settings = settings or Settings.load()
        model = model or build_chat_model(settings.model)
        with (
            open_checkpointer(
                settings.resolved_checkpointer_url, CheckpointerOptions.from_settings(settings)
            ) as checkpointer,
            open_travel_desk(bookings_path(settings)) as desk,
            open_long_term_memory(settings, model) as memory,
            closing(
                conversation_locks(settings.resolved_checkpointer_url, settings.postgres_pool_size)
            ) as locks,
        ):
            graph = graph_from_settings(
                settings,
                tools=build_travel_tools(desk),
                model=model,
                long_term=memory,
                checkpointer=checkpointer,
            )
            log_backends(settings.describe())
            yield cls(settings, graph, model, checkpointer, memory=memory, desk=desk, locks=locks)

    def send(
        self,
        text: str,
        *,
        user_id: str | None,
        conversation_id: str | None,
        callbacks: Sequence[BaseCallbackHandler] = (),
    ) -> Reply:
        """Run one turn and return the final answer.

        Sends to one conversation are serialised (see :mod:`agent.persistence.locks`); a send
        to someone else's conversation fails as not found, before anything is written.
        """
        conversation = Conversation.of(user_id, conversation_id)
        self.check_message(text)
        config: RunnableConfig = {**conversation.config(), "callbacks": list(callbacks)}
        timeout = self.settings.conversation_lock_timeout
        with self.locks.hold(conversation.conversation_id, timeout):
            self._check_owner(conversation)
            result = self.graph.invoke(
                {"messages": [HumanMessage(text)]},
                config,
                context=conversation.context(),
                durability=self.settings.durability,
            )
        answer = next((m for m in reversed(result["messages"]) if isinstance(m, AIMessage)), None)
        return Reply(
            text=message_text(answer) if answer else "",
            conversation_id=conversation.conversation_id,
            user_id=conversation.user_id,
        )

    def check_message(self, text: str) -> None:
        """Refuse an empty or oversized message before anything runs."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidMessageError("message: must be a non-empty string")
        if len(text) > self.settings.max_input_chars:
            raise MessageTooLargeError(
                f"message: {len(text)} characters is over the limit of "
                f"{self.settings.max_input_chars} (AGENT_MAX_INPUT_CHARS)"
            )

    def history(self, conversation_id: str, user_id: str | None = None) -> list[BaseMessage]:
        """The kept messages of a conversation (empty when it does not exist).

        With ``user_id``, another user's conversation raises ConversationNotFoundError.
        """
        values = self._state(normalize_id("conversation_id", conversation_id))
        if user_id is not None:
            self._check_owner(Conversation.of(user_id, conversation_id), values)
        return list(values.get("messages", []))

    def owner(self, conversation_id: str) -> str | None:
        """Who started a conversation (None when it does not exist)."""
        owner = self._state(normalize_id("conversation_id", conversation_id)).get("owner")
        return str(owner) if owner else None

    def delete_conversation(self, conversation_id: str, user_id: str | None = None) -> None:
        """Remove every checkpoint and write of a conversation (only the owner's, with
        ``user_id``)."""
        thread_id = normalize_id("conversation_id", conversation_id)
        if user_id is not None:
            self._check_owner(Conversation.of(user_id, thread_id))
        self.checkpointer.delete_thread(thread_id)
        self._owners.pop(thread_id, None)

    def _state(self, thread_id: str) -> dict[str, Any]:
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        snapshot = self.graph.get_state(config)
        return dict(snapshot.values) if snapshot.values else {}

    def _check_owner(
        self, conversation: Conversation, values: dict[str, Any] | None = None
    ) -> None:
        owner = self._owners.get(conversation.conversation_id)
        if owner is None:
            values = self._state(conversation.conversation_id) if values is None else values
            owner = values.get("owner")
            if owner is not None:
                self._owners[conversation.conversation_id] = owner
        if owner is not None and owner != conversation.user_id:
            raise ConversationNotFoundError(conversation.conversation_id)
