"""Conversation and user ids: one canonical form, a documented rule, errors that name the field."""

from __future__ import annotations

import uuid

import pytest

from agent.context import Context, Conversation, normalize_id, resolve_context
from agent.errors import InvalidContextError, MissingConversationIdError

CANONICAL = "6f0a1c9e-2b7d-4c55-9a53-0d1f3e7a2b10"


@pytest.mark.parametrize(
    "spelling",
    [
        CANONICAL,
        CANONICAL.upper(),
        CANONICAL.replace("-", ""),
        "{" + CANONICAL + "}",
        "urn:uuid:" + CANONICAL,
    ],
)
def test_every_spelling_of_a_uuid_becomes_the_canonical_36_characters(spelling: str) -> None:
    assert normalize_id("conversation_id", spelling) == CANONICAL
    assert len(Context(conversation_id=spelling).conversation_id or "") == 36


@pytest.mark.parametrize(
    "value",
    [
        "user:alice@example.com:thread:2026-09-24".replace("@", "."),  # the article's 43 chars
        "a" * 128,
        "x",
        "tenant_1.conv-2:3",
    ],
)
def test_documented_pattern_ids_up_to_128_characters_are_kept_as_given(value: str) -> None:
    assert normalize_id("conversation_id", value) == value


@pytest.mark.parametrize(
    "value",
    ["", "a" * 129, "has space", "slash/id", "emoji-🙂", "semi;colon", "new\nline"],
)
def test_malformed_ids_name_the_field_and_the_rule(value: str) -> None:
    with pytest.raises(InvalidContextError) as error:
        Context(user_id="alice", conversation_id=value)
    assert error.value.field == "conversation_id"
    assert "1-128 characters of letters, digits and - _ . :" in str(error.value)


def test_a_non_string_id_is_rejected() -> None:
    with pytest.raises(InvalidContextError, match="user_id: must be a string"):
        normalize_id("user_id", 42)


def test_a_missing_conversation_id_is_an_error_not_a_shared_default() -> None:
    with pytest.raises(MissingConversationIdError, match="conversation_id: is required"):
        Conversation.of("alice", None)
    with pytest.raises(MissingConversationIdError):
        resolve_context(Context(user_id="alice"), {})


def test_the_thread_id_supplies_the_conversation_when_the_context_has_none() -> None:
    conversation = resolve_context(Context(user_id="alice"), {"configurable": {"thread_id": "t-1"}})
    assert conversation == Conversation("alice", "t-1")


def test_a_context_that_disagrees_with_the_thread_is_refused() -> None:
    with pytest.raises(InvalidContextError, match="does not match the run's thread_id"):
        resolve_context(
            Context(user_id="alice", conversation_id="a"), {"configurable": {"thread_id": "b"}}
        )


def test_a_thread_given_as_a_uuid_spelling_matches_its_canonical_context() -> None:
    thread = uuid.UUID(CANONICAL).hex
    conversation = resolve_context(
        Context(user_id="alice", conversation_id=CANONICAL), {"configurable": {"thread_id": thread}}
    )
    assert conversation.conversation_id == CANONICAL


def test_a_run_without_a_user_says_how_to_pass_one() -> None:
    with pytest.raises(InvalidContextError, match="user_id: is required"):
        resolve_context(None, {"configurable": {"thread_id": "t-1"}})
