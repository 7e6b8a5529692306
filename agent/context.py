"""Who is talking, in which conversation: the per-run context, validated once at the edge.

The context is LangGraph's ``context_schema``: nodes read it as ``runtime.context``. Building a
:class:`Context` validates both ids, so a bad id fails before the graph starts, before anything
is stored and before any model is called. Ids are also what the storage backends key on, so the
rules here are the contract every backend must honour (the longest valid id is 128 characters;
the reference design's 36-character column is a trap we do not repeat).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from agent.errors import InvalidContextError, MissingConversationIdError

# where the LangGraph server puts the identity its auth handler returned
AUTH_USER_KEY = "langgraph_auth_user_id"
ID_PATTERN = re.compile(r"[A-Za-z0-9\-_.:]{1,128}")
ID_RULE = "a UUID, or 1-128 characters of letters, digits and - _ . :"
_UUID_SHAPE = re.compile(r"(urn:uuid:)?\{?[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}\}?")


def normalize_id(field: str, value: object) -> str:
    """Return the canonical form of an id, or raise an error naming the field and the rule.

    Anything shaped like a UUID (any case, with or without hyphens or braces) becomes the
    canonical lower-case 36-character form, so one conversation cannot hide under two spellings.
    """
    if not isinstance(value, str):
        kind = type(value).__name__
        raise InvalidContextError(field, f"must be a string ({ID_RULE}); got {kind}")
    if _UUID_SHAPE.fullmatch(value):
        return str(uuid.UUID(value))
    if not ID_PATTERN.fullmatch(value):
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise InvalidContextError(
            field, f"{shown!r} is not valid ({len(value)} characters); must be {ID_RULE}"
        )
    return value


def new_conversation_id() -> str:
    """A fresh, unguessable conversation id."""
    return str(uuid.uuid4())


@dataclass(kw_only=True, frozen=True)
class Context:
    """The run context: passed as ``context=`` to ``graph.invoke`` and read by every node.

    ``user_id`` namespaces long-term memories and bookings; ``conversation_id`` is the
    LangGraph thread that holds the short-term memory. Either may be left out when the run's
    config supplies it (``thread_id``, ``configurable.user_id``) — under ``langgraph dev`` the
    thread is the conversation — but a run with neither fails before anything happens.
    """

    user_id: str | None = None
    conversation_id: str | None = None

    def __post_init__(self) -> None:
        # frozen dataclass: normalised values are written through object.__setattr__
        if self.user_id is not None:
            object.__setattr__(self, "user_id", normalize_id("user_id", self.user_id))
        if self.conversation_id is not None:
            object.__setattr__(
                self, "conversation_id", normalize_id("conversation_id", self.conversation_id)
            )


@dataclass(frozen=True)
class Conversation:
    """A fully resolved run identity: both ids present and valid."""

    user_id: str
    conversation_id: str

    @classmethod
    def of(cls, user_id: str | None, conversation_id: str | None) -> Conversation:
        """Validate both ids; a missing conversation id is an error, never a shared default."""
        if conversation_id is None:
            raise MissingConversationIdError()
        if user_id is None:
            raise InvalidContextError(
                "user_id", "is required: pass context={'user_id': ...} with the run"
            )
        return cls(
            user_id=normalize_id("user_id", user_id),
            conversation_id=normalize_id("conversation_id", conversation_id),
        )

    def context(self) -> Context:
        """The LangGraph run context for this conversation."""
        return Context(user_id=self.user_id, conversation_id=self.conversation_id)

    def config(self) -> RunnableConfig:
        """The LangGraph run config (the thread is the conversation)."""
        return {"configurable": {"thread_id": self.conversation_id}}


def resolve_context(context: Context | None, config: Mapping[str, Any]) -> Conversation:
    """The identity of a running graph, from its context and config, checked for agreement.

    A context whose conversation id disagrees with the run's thread is refused: the history
    and the memories would otherwise be written under two different keys. Under the LangGraph
    server the user is the authenticated identity; a different user id in the context or the
    config is refused, so a client cannot read or write another user's memories. Outside a
    server (Python, CLI) the context names the user, and ``configurable.user_id`` may too.
    """
    configurable = config.get("configurable", {}) or {}
    thread_id = configurable.get("thread_id")
    context = context or Context()
    conversation_id = context.conversation_id
    if thread_id is not None:
        thread_id = normalize_id("thread_id", str(thread_id))
        if conversation_id is not None and conversation_id != thread_id:
            raise InvalidContextError(
                "conversation_id",
                f"{conversation_id!r} does not match the run's thread_id {thread_id!r}",
            )
        conversation_id = thread_id
    user_id = context.user_id or (
        str(configurable["user_id"]) if configurable.get("user_id") else None
    )
    authenticated = configurable.get(AUTH_USER_KEY)
    if authenticated:
        # Under the LangGraph server the authenticated identity is the user, whatever the
        # client wrote into the context or the config.
        identity = normalize_id("user_id", str(authenticated))
        claimed = user_id
        if claimed and normalize_id("user_id", str(claimed)) != identity:
            raise InvalidContextError(
                "user_id", f"{claimed!r} is not the authenticated user; leave it out"
            )
        user_id = identity
    return Conversation.of(user_id, conversation_id)
