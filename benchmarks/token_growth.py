"""Tokens sent per turn over a 30-turn conversation, for each short-term policy, with and
without long-term memory: the resent history is what a stateless model bills again."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from agent.app import TravelAgent
from agent.messages import message_text
from agent.prompts import MEMORY_BLOCK_HEADER
from agent.settings import Settings
from agent.short_term.tokens import count_message_tokens, count_text_tokens
from benchmarks.common import FixedAnswerModel, progress

TURNS = 30
CITIES = ("Lisbon", "Berlin", "Tokyo", "Toronto", "Prague", "Oslo", "Dubai", "Madrid", "Vienna")
PREFERENCES = {
    3: "I prefer aisle seats on long flights, and I prefer quiet hotel rooms away from the lifts.",
    9: "I prefer economy cars when I rent a car, because parking in old city centres is tight.",
    15: "My preference is vegetarian meals on every flight and in hotel breakfasts, no exceptions.",
    21: "I prefer boutique hotels with breakfast included over large chains near the airport.",
}
ANSWER = (
    "Here is a short plan: stay near the old town, use the metro from the airport, book the "
    "museums online a day ahead, and keep one evening free for the river. Shall I search "
    "flights?"
)
POLICIES: dict[str, dict[str, Any]] = {
    "unbounded": {"window": "messages", "max_messages": 100_000},
    "window 10": {"window": "messages", "max_messages": 10},
    "window 20": {"window": "messages", "max_messages": 20},
    "budget 400 tokens": {"window": "tokens", "max_tokens": 400},
}


def questions() -> list[str]:
    """30 questions of about 25 tokens; a few state preferences for long-term memory."""
    out = []
    for turn in range(1, TURNS + 1):
        city = CITIES[turn % len(CITIES)]
        out.append(
            PREFERENCES.get(turn)
            or f"Planning a few days in {city} next spring: which area should I stay in, and "
            f"how do I get there from the airport?"
        )
    return out


def run_policy(name: str, overrides: dict[str, Any], long_term: bool, work: Path) -> dict[str, Any]:
    settings = Settings(
        model="offline",
        data_dir=work / f"{name}-{long_term}".replace(" ", "-"),
        checkpointer_url="memory://",
        long_term_memory=long_term,
        extraction="inline",
        log_level="WARNING",
        **overrides,
    )
    model = FixedAnswerModel(answer=ANSWER)
    per_turn, memory_block = [], []
    with TravelAgent.open(settings, model=model) as agent:
        for text in questions():
            before = len(model.requests)
            agent.send(text, user_id="bench", conversation_id="tokens")
            request = model.requests[before]
            per_turn.append(sum(count_message_tokens(m) for m in request))
            system = message_text(request[0])
            block = system.partition(MEMORY_BLOCK_HEADER)[2]
            memory_block.append(count_text_tokens(MEMORY_BLOCK_HEADER + block) if block else 0)
    return {"per_turn": per_turn, "total": sum(per_turn), "memory_block": memory_block}


def run() -> dict[str, Any]:
    qs = questions()
    result: dict[str, Any] = {
        "turns": TURNS,
        "question_tokens_mean": round(sum(map(count_text_tokens, qs)) / len(qs), 1),
        "answer_tokens": count_text_tokens(ANSWER),
        "counted": "every token of every request: system prompt, memory block, kept history, "
        "question (o200k_base, 3 tokens of overhead per message)",
        "policies": {},
    }
    with tempfile.TemporaryDirectory() as folder:
        for long_term in (False, True):
            for name, overrides in POLICIES.items():
                label = f"{name} + long-term memory" if long_term else name
                progress(f"token growth: {label}")
                result["policies"][label] = run_policy(name, overrides, long_term, Path(folder))
    unbounded = result["policies"]["unbounded"]["total"]
    for data in result["policies"].values():
        data["share_of_unbounded"] = round(data["total"] / unbounded, 4)
    result["targets"] = {
        "window 10 <= 35% of unbounded": result["policies"]["window 10"]["share_of_unbounded"]
        <= 0.35,
        "window 10 + long-term memory <= 45% of unbounded": result["policies"][
            "window 10 + long-term memory"
        ]["share_of_unbounded"]
        <= 0.45,
    }
    return result
