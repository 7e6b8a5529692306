"""Window policies: keep the most recent messages within a message count or a token budget.

Rules shared by both policies (each one is pinned by a test):

- System messages are never evicted, but they count toward the limit. If a new system message
  differs from the kept one, the new one replaces it, at the front of the history where every
  provider expects it. (The reference design appends the replacement after the last answer.)
- Eviction takes the oldest non-system message first. After each eviction, leading assistant
  and tool messages are dropped too, so the kept history starts with a user message: an answer
  without its question is noise, and a tool result without its call is rejected by providers.
  That is why an odd message limit can keep one message fewer than allowed.
- An assistant message with tool calls and its tool results therefore leave together.
- The latest user message — the question being answered — is never evicted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from langchain_core.messages import (
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
)
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from agent.short_term.tokens import count_message_tokens


class WindowPolicy(Protocol):
    """Decides which messages of a conversation are kept."""

    def select(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """Return the kept messages, in order."""
        ...

    def describe(self) -> str:
        """One line for logs."""
        ...


@dataclass(frozen=True)
class MessageWindow:
    """Keep at most ``max_messages`` messages, system messages included."""

    max_messages: int = 20

    def select(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        return _trim(messages, lambda kept: len(kept) > self.max_messages)

    def describe(self) -> str:
        return f"message window of {self.max_messages}"


@dataclass(frozen=True)
class TokenBudget:
    """Keep the most recent messages whose o200k_base token count fits ``max_tokens``."""

    max_tokens: int = 4000
    count: Callable[[BaseMessage], int] = count_message_tokens

    def select(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        return _trim(messages, lambda kept: sum(map(self.count, kept)) > self.max_tokens)

    def describe(self) -> str:
        return f"token budget of {self.max_tokens} (o200k_base)"


def build_window_policy(window: str, max_messages: int, max_tokens: int) -> WindowPolicy:
    """The policy a setting names."""
    if window == "messages":
        return MessageWindow(max_messages)
    if window == "tokens":
        return TokenBudget(max_tokens)
    raise ValueError(f"unknown window policy {window!r}: expected 'messages' or 'tokens'")


def plan_trim(policy: WindowPolicy, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The state update that turns ``messages`` into the policy's kept history.

    Usually a list of :class:`RemoveMessage` for the evicted ids; when a replacement system
    message has to move to the front, the whole list is rewritten instead.
    """
    kept = policy.select(messages)
    kept_ids = [m.id for m in kept]
    surviving_ids = [m.id for m in messages if m.id in set(kept_ids)]
    if surviving_ids == kept_ids:
        return [RemoveMessage(id=m.id) for m in messages if m.id not in set(kept_ids) and m.id]
    return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]


def _trim(
    messages: Sequence[BaseMessage], over_limit: Callable[[list[BaseMessage]], bool]
) -> list[BaseMessage]:
    kept = _single_system_message(messages)
    while over_limit(kept):
        oldest = _first_non_system_index(kept)
        current_question = _last_user_index(kept)
        if oldest is None or oldest == current_question:
            break  # only system messages and the current question are left
        del kept[oldest]
        if current_question is not None:
            # a user message still follows, so this stops on it
            _drop_leading_non_user(kept)
    return kept


def _single_system_message(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Collapse the system messages to the newest one, placed first."""
    systems = [m for m in messages if isinstance(m, SystemMessage)]
    others = [m for m in messages if not isinstance(m, SystemMessage)]
    if not systems:
        return others
    if len({_content_key(m) for m in systems}) == 1:
        # repeats of one prompt: keep the first copy where it stands
        first = systems[0]
        return [m for m in messages if not isinstance(m, SystemMessage) or m is first]
    return [systems[-1], *others]


def _drop_leading_non_user(kept: list[BaseMessage]) -> None:
    first = _first_non_system_index(kept)
    while first is not None and not isinstance(kept[first], HumanMessage):
        del kept[first]
        first = _first_non_system_index(kept)


def _first_non_system_index(kept: Sequence[BaseMessage]) -> int | None:
    for index, message in enumerate(kept):
        if not isinstance(message, SystemMessage):
            return index
    return None


def _last_user_index(kept: Sequence[BaseMessage]) -> int | None:
    for index in range(len(kept) - 1, -1, -1):
        if isinstance(kept[index], HumanMessage):
            return index
    return None


def _content_key(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else repr(message.content)
