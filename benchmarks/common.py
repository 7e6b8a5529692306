"""Shared pieces of the benchmarks: a zero-latency model, timing, percentiles, output."""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from agent.messages import message_text
from agent.models import OfflineChatModel
from agent.prompts import SYSTEM_PROMPT

RESULTS = Path(__file__).parent / "results"


class FixedAnswerModel(OfflineChatModel):
    """Answers every conversation turn with the same text at once (no latency); memory
    extraction and consolidation requests still get the offline model's deterministic JSON."""

    answer: str = "Noted."

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        if messages and message_text(messages[0]).startswith(SYSTEM_PROMPT):
            from langchain_core.outputs import ChatGeneration, ChatResult

            self.requests.append(list(messages))
            return ChatResult(generations=[ChatGeneration(message=AIMessage(self.answer))])
        return super()._generate(messages, *args, **kwargs)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "n": len(ms),
    }


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def progress(message: str) -> None:
    print(f"  … {message}", file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
    }


def write_json(name: str, data: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path
