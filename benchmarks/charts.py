"""PNG charts of the benchmark results (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.common import RESULTS


def draw_all(results: dict[str, Any]) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    drawn = []
    for key, draw in (
        ("token_growth", _tokens),
        ("overhead", _overhead),
        ("store_scale", _store),
        ("retrieval", _retrieval),
    ):
        if key in results:
            drawn.append(draw(results[key]))
    return drawn


def _save(figure: Any, name: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    return path


def _tokens(data: dict[str, Any]) -> Path:
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(8, 4.5))
    for name, series in data["policies"].items():
        style = "--" if "long-term" in name else "-"
        axis.plot(range(1, len(series["per_turn"]) + 1), series["per_turn"], style, label=name)
    axis.set(xlabel="turn", ylabel="tokens sent to the model", title="Tokens per turn, 30 turns")
    axis.legend(fontsize=7)
    axis.grid(alpha=0.3)
    return _save(figure, "token_growth.png")


def _overhead(data: dict[str, Any]) -> Path:
    import matplotlib.pyplot as plt

    names = list(data["backends"])
    bare = [data["backends"][n]["bare"]["median_ms"] for n in names]
    full = [data["backends"][n]["full"]["median_ms"] for n in names]
    figure, axis = plt.subplots(figsize=(7, 4))
    positions = range(len(names))
    axis.bar([p - 0.2 for p in positions], bare, 0.4, label="bare LangGraph agent")
    axis.bar([p + 0.2 for p in positions], full, 0.4, label="full graph (memory layers)")
    axis.set_xticks(list(positions), names)
    axis.set(ylabel="median ms per turn", title="Per-turn time with a zero-latency model")
    axis.legend()
    return _save(figure, "overhead.png")


def _store(data: dict[str, Any]) -> Path:
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4))
    sizes = [int(s) for s in data["embedded"]]
    for stat in ("median_ms", "p95_ms"):
        axis.plot(sizes, [data["embedded"][str(s)]["search"][stat] for s in sizes], "o-",
                  label=f"embedded {stat.replace('_ms', '')}")  # fmt: skip
    axis.set_xscale("log")
    axis.axhline(25, color="grey", linestyle=":", label="target p95 at 10k")
    axis.set(xlabel="memories of one user", ylabel="ms per search (incl. embedding)",
             title="Search latency")  # fmt: skip
    axis.legend()
    return _save(figure, "store_scale.png")


def _retrieval(data: dict[str, Any]) -> Path:
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    modes = list(data["modes"])
    places = range(len(modes))
    sets = (("main set", data["modes"]), ("reference lookups", data["lookups"]["modes"]))
    for offset, (label, results) in zip((-0.2, 0.2), sets, strict=True):
        left.bar([p + offset for p in places], [results[m]["recall_at_5"] for m in modes],
                 width=0.4, label=label)  # fmt: skip
    left.set_xticks(list(places), modes)
    left.set(ylim=(0, 1.05), ylabel="recall@5", title="recall@5 by retriever")
    left.legend(loc="lower left")
    thresholds = [float(t) for t in data["threshold_sweep"]]
    right.plot(thresholds, [v["recall_at_5"] for v in data["threshold_sweep"].values()], "o-",
               label="recall@5")  # fmt: skip
    share = [v["mean_results"] / data["k"] for v in data["threshold_sweep"].values()]
    right.plot(thresholds, share, "s--", label="results per query / k")
    right.axvline(data["threshold"], color="grey", linestyle=":", label="default")
    right.set(xlabel="similarity threshold", title="Hybrid retriever vs threshold")
    right.legend()
    return _save(figure, "retrieval.png")
