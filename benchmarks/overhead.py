"""What the memory layers add to each turn: the full graph against a bare LangGraph agent.

Both use a zero-latency model and the same kind of checkpointer, and checkpoint once per turn
(``durability="exit"``). The full graph runs everything a turn of ours runs: the conversation
lock, the owner check, long-term retrieval (query embedding and search), the window, the
model, and end-of-turn compaction; extraction runs off the response path and is timed
separately. The bare agent is one model node over ``MessagesState``; its thread is restarted
every 10 turns so that its history stays as short as our 20-message window.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from agent.app import TravelAgent
from agent.persistence import open_checkpointer
from agent.settings import Settings
from benchmarks.common import FixedAnswerModel, progress, summary_ms

TURNS = 200
WARMUP = 10


def question(n: int) -> str:
    return f"Could you suggest a quiet hotel near the old town for my trip number {n}?"


def follow_up(n: int) -> str:
    """A short message: searched both alone and after the previous one (two embeddings)."""
    return f"And for trip {n}?"


def bare_agent(checkpointer: Any) -> Any:
    model = FixedAnswerModel()
    builder = StateGraph(MessagesState)
    builder.add_node("model", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_edge(START, "model")
    builder.add_edge("model", END)
    return builder.compile(checkpointer=checkpointer)


def time_bare(url: str) -> list[float]:
    with open_checkpointer(url) as checkpointer:
        graph = bare_agent(checkpointer)
        times = []
        for n in range(WARMUP + TURNS):
            config = {"configurable": {"thread_id": f"bare-{n // 10}"}}
            started = time.perf_counter()
            graph.invoke({"messages": [HumanMessage(question(n))]}, config, durability="exit")
            if n >= WARMUP:
                times.append(time.perf_counter() - started)
    return times


def time_extraction(agent: TravelAgent, samples: int = 50) -> list[float]:
    """One extraction + consolidation per exchange that states a new preference."""
    from agent.context import Conversation

    assert agent.memory is not None
    times = []
    for n in range(samples):
        text = f"I prefer hotels with a rooftop pool and a gym, like the one in city {n}."
        started = time.perf_counter()
        agent.memory._record_now(Conversation("extraction", "x"), text, "Noted.")
        times.append(time.perf_counter() - started)
    return times


def time_full(
    url: str, data_dir: Path, ask: Callable[[int], str] = question
) -> tuple[list[float], list[float]]:
    settings = Settings(
        model="offline", data_dir=data_dir, checkpointer_url=url, extraction="background",
        log_level="WARNING",
    )  # fmt: skip
    turn_times: list[float] = []
    with TravelAgent.open(settings, model=FixedAnswerModel()) as agent:
        assert agent.memory is not None
        agent.memory.import_records(
            "bench", [{"content": f"User prefers quiet hotel {n}", "memory_type": "EPISODIC"}
                      for n in range(50)]
        )  # fmt: skip
        for n in range(WARMUP + TURNS):
            started = time.perf_counter()
            agent.send(ask(n), user_id="bench", conversation_id="full")
            elapsed = time.perf_counter() - started
            agent.memory.flush()  # extraction runs off the response path; timed apart below
            if n >= WARMUP:
                turn_times.append(elapsed)
        extraction_times = time_extraction(agent)
    return turn_times, extraction_times


@contextmanager
def backend_urls(folder: Path, with_servers: bool) -> Iterator[dict[str, Callable[[], Any]]]:
    urls: dict[str, Any] = {
        "memory": lambda: nullcontext("memory://"),
        "sqlite": lambda: nullcontext(f"sqlite:///{folder / 'checkpoints.sqlite'}"),
    }
    if with_servers:
        from tests.services.servers import postgres_database, redis_stack

        urls["postgres"] = postgres_database
        urls["redis"] = redis_stack
    yield urls


def run(with_servers: bool = True) -> dict[str, Any]:
    results: dict[str, Any] = {"turns": TURNS, "backends": {}}
    with tempfile.TemporaryDirectory() as folder, backend_urls(Path(folder), with_servers) as urls:
        for name, open_url in urls.items():
            with open_url() as url:
                progress(f"overhead: {name}, bare agent")
                bare = time_bare(url)
                progress(f"overhead: {name}, full graph")
                full, extraction = time_full(url, Path(folder) / name)
            bare_s, full_s = summary_ms(bare), summary_ms(full)
            results["backends"][name] = {
                "bare": bare_s,
                "full": full_s,
                "extraction": summary_ms(extraction),
                "added_median_ms": round(full_s["median_ms"] - bare_s["median_ms"], 3),
                "ratio_median": round(full_s["median_ms"] / bare_s["median_ms"], 2),
            }
            if name == "sqlite":
                progress("overhead: sqlite, full graph, short follow-ups")
                short, _ = time_full(url, Path(folder) / "short", ask=follow_up)
                short_s = summary_ms(short)
                results["backends"][name]["full_short_follow_ups"] = short_s
                results["backends"][name]["added_median_ms_short_follow_ups"] = round(
                    short_s["median_ms"] - bare_s["median_ms"], 3
                )
    sqlite_added = results["backends"]["sqlite"]["added_median_ms"]
    results["targets"] = {
        "memory layers add <= 10 ms median per turn on SQLite": sqlite_added <= 10
    }
    return results


if __name__ == "__main__":
    print(run(with_servers=False))
