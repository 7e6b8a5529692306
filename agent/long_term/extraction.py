"""Extraction: ask the model for durable memories in an exchange, and parse its answer strictly.

The model is asked — with a JSON schema, and with the provider's structured-output mode where
it has one — for at most a few memories from what the user said. Its answer must be exactly
one JSON object of that schema. Anything else (code fences, prose around the JSON, invalid
JSON, an unknown memory type, too many items, empty strings, extra keys) is rejected whole:
nothing is stored from it, the reason is logged, and the user's turn is never failed by it.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent.errors import AgentError
from agent.messages import message_text
from agent.prompts import EXTRACTION_SYSTEM_PROMPT, EXTRACTION_USER_TEMPLATE

log = logging.getLogger("agent.long_term")
DEFAULT_MAX_MEMORIES = 5


class MalformedOutputError(AgentError):
    """The model's answer is not the JSON the prompt asked for."""


class Candidate(BaseModel):
    """One memory the model proposes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str = Field(min_length=1, max_length=500)
    memory_type: Literal["EPISODIC", "SEMANTIC"]

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content is blank")
        return value.strip()


def extraction_schema(max_memories: int) -> dict[str, Any]:
    """The JSON schema the model must answer with."""
    return {
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "maxItems": max_memories,
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "memory_type": {"type": "string", "enum": ["EPISODIC", "SEMANTIC"]},
                    },
                    "required": ["content", "memory_type"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["memories"],
        "additionalProperties": False,
    }


def extraction_request(
    user_message: str, answer: str, max_memories: int = DEFAULT_MAX_MEMORIES
) -> list[BaseMessage]:
    """The messages sent to the model to extract memories from one exchange."""
    schema = json.dumps(extraction_schema(max_memories), separators=(",", ":"))
    return [
        SystemMessage(EXTRACTION_SYSTEM_PROMPT.format(max_memories=max_memories, schema=schema)),
        HumanMessage(
            EXTRACTION_USER_TEMPLATE.format(user_message=user_message, assistant_message=answer)
        ),
    ]


def parse_json_object(text: str) -> dict[str, Any]:
    """The answer as one JSON object, or :class:`MalformedOutputError` saying what is wrong."""
    stripped = text.strip()
    if stripped.startswith("```"):
        raise MalformedOutputError("the answer is wrapped in a code fence")
    if not stripped.startswith("{") or not stripped.endswith("}"):
        raise MalformedOutputError("the answer has text around the JSON object")
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise MalformedOutputError(f"invalid JSON: {exc.msg} at position {exc.pos}") from exc
    if not isinstance(value, dict):
        raise MalformedOutputError("the answer is not a JSON object")
    return value


def parse_extraction(text: str, max_memories: int = DEFAULT_MAX_MEMORIES) -> list[Candidate]:
    """Validate an extraction answer; all of it or nothing."""
    value = parse_json_object(text)
    if set(value) != {"memories"}:
        raise MalformedOutputError(f"expected exactly the key 'memories', got {sorted(value)}")
    items = value["memories"]
    if not isinstance(items, list):
        raise MalformedOutputError("'memories' is not a list")
    if len(items) > max_memories:
        raise MalformedOutputError(f"{len(items)} memories, more than the {max_memories} allowed")
    try:
        return [Candidate.model_validate(item) for item in items]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "item"
        raise MalformedOutputError(f"invalid memory ({where}): {first['msg']}") from exc


def structured_model(model: BaseChatModel, name: str, schema: dict[str, Any]) -> Any:
    """The model asked to answer in JSON of ``schema`` where the provider can enforce it."""
    try:
        from langchain_openai import ChatOpenAI
    except ImportError:  # pragma: no cover - langchain-openai is a core dependency
        return model
    if isinstance(model, ChatOpenAI):
        return model.bind(
            response_format={
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": True},
            }
        )
    return model


class Extractor:
    """Turns one exchange into memory candidates; never raises for a bad model answer."""

    def __init__(self, model: BaseChatModel, max_memories: int = DEFAULT_MAX_MEMORIES) -> None:
        self.max_memories = max_memories
        self._model = structured_model(model, "memories", extraction_schema(max_memories))

    def extract(self, user_message: str, answer: str) -> list[Candidate]:
        reply = self._model.invoke(extraction_request(user_message, answer, self.max_memories))
        text = message_text(reply)
        try:
            return parse_extraction(text, self.max_memories)
        except MalformedOutputError as exc:
            log.warning("memory extraction stored nothing: %s; answer was %.200r", exc, text)
            return []
