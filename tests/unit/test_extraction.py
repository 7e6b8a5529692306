"""Extraction output: exactly one JSON object of the schema, or nothing is stored."""

from __future__ import annotations

import json
import logging

import pytest
from langchain_core.messages import AIMessage

from agent.long_term.extraction import (
    Extractor,
    MalformedOutputError,
    extraction_request,
    extraction_schema,
    parse_extraction,
)
from tests.unit.scripted import ScriptedChatModel

GOOD = {"memories": [{"content": "User prefers economy cars", "memory_type": "EPISODIC"}]}


def six(n: int) -> str:
    item = {"content": f"fact {n}", "memory_type": "SEMANTIC"}
    return json.dumps({"memories": [item] * n})


MALFORMED = {
    "code fence": "```json\n" + json.dumps(GOOD) + "\n```",
    "prose before": "Here are the memories: " + json.dumps(GOOD),
    "prose after": json.dumps(GOOD) + "\nHope this helps!",
    "invalid json": '{"memories": [{"content": "User prefers economy cars", }]}',
    "truncated json": '{"memories": [{"content": "User prefers econ',
    "wrong enum": '{"memories": [{"content": "User prefers SUVs", "memory_type": "PREFERENCE"}]}',
    "too many items": six(6),
    "empty content": '{"memories": [{"content": "", "memory_type": "SEMANTIC"}]}',
    "blank content": '{"memories": [{"content": "   ", "memory_type": "SEMANTIC"}]}',
    "missing type": '{"memories": [{"content": "User likes trains"}]}',
    "extra item key": '{"memories": [{"content": "x", "memory_type": "SEMANTIC", "why": "y"}]}',
    "extra top key": '{"memories": [], "note": "none"}',
    "not a list": '{"memories": "User prefers trains"}',
    "a list": "[]",
    "content not text": '{"memories": [{"content": 42, "memory_type": "SEMANTIC"}]}',
    "empty answer": "",
}


@pytest.mark.parametrize("answer", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_answer_is_rejected_whole_with_a_reason(answer: str) -> None:
    with pytest.raises(MalformedOutputError) as error:
        parse_extraction(answer)
    assert str(error.value)


@pytest.mark.parametrize("answer", list(MALFORMED.values()), ids=list(MALFORMED))
def test_the_extractor_stores_nothing_and_logs_why(
    answer: str, caplog: pytest.LogCaptureFixture
) -> None:
    extractor = Extractor(ScriptedChatModel(script=[AIMessage(answer)]))
    with caplog.at_level(logging.WARNING, logger="agent.long_term"):
        assert extractor.extract("I prefer economy cars", "Noted.") == []
    assert "memory extraction stored nothing" in caplog.text


def test_a_valid_answer_and_an_empty_list_parse() -> None:
    assert [c.content for c in parse_extraction(json.dumps(GOOD))] == ["User prefers economy cars"]
    assert parse_extraction('  {"memories": []}  ') == []


def test_the_request_embeds_the_schema_and_both_sides_of_the_exchange() -> None:
    system, user = extraction_request("I prefer aisle seats", "Noted.", max_memories=3)
    assert json.dumps(extraction_schema(3), separators=(",", ":")) in str(system.content)
    assert "Extract at most 3" in str(system.content)
    assert "USER SAID:\nI prefer aisle seats" in str(user.content)
    assert "ASSISTANT REPLIED:\nNoted." in str(user.content)
