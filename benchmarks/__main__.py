"""``make bench``: run every benchmark, write benchmarks/results/results.json and PNG charts,
and print a summary with each target's verdict.

    python -m benchmarks [--quick] [--no-servers] [--only tokens,overhead,store,retrieval]

``--quick`` skips the 100k-memory store size; ``--no-servers`` measures the overhead on the
embedded backends only (no PostgreSQL or Redis Stack).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from benchmarks import overhead, retrieval_quality, store_scale, token_growth
from benchmarks.charts import draw_all
from benchmarks.common import machine, write_json


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="skip the 100k store size")
    parser.add_argument("--no-servers", action="store_true", help="no PostgreSQL or Redis")
    parser.add_argument("--only", help="comma-separated: tokens,overhead,store,retrieval")
    args = parser.parse_args(argv)
    chosen = (
        set(args.only.split(",")) if args.only else {"tokens", "overhead", "store", "retrieval"}
    )
    started = time.time()
    results: dict[str, Any] = {"machine": machine(), "command": "make bench"}
    if "tokens" in chosen:
        results["token_growth"] = token_growth.run()
    if "overhead" in chosen:
        results["overhead"] = overhead.run(with_servers=not args.no_servers)
    if "store" in chosen:
        sizes = store_scale.SIZES[:2] if args.quick else store_scale.SIZES
        results["store_scale"] = store_scale.run(sizes=sizes)
    if "retrieval" in chosen:
        results["retrieval"] = retrieval_quality.run()
    results["seconds"] = round(time.time() - started, 1)
    path = write_json("results.json", results)
    charts = draw_all(results)
    print_summary(results)
    print(f"\nresults: {path}\ncharts: {', '.join(str(c) for c in charts)}")
    failed = [name for section in results.values() if isinstance(section, dict)
              for name, ok in section.get("targets", {}).items() if not ok]  # fmt: skip
    if failed:
        print("\ntargets NOT met:\n  " + "\n  ".join(failed))
    return 0


def print_summary(results: dict[str, Any]) -> None:
    if "token_growth" in results:
        print("\nTokens sent over 30 turns (every token of every request)")
        print(f"  {'policy':38} {'total':>8} {'share':>7} {'turn 30':>8}")
        for name, data in results["token_growth"]["policies"].items():
            print(f"  {name:38} {data['total']:>8} {data['share_of_unbounded']:>7.1%} "
                  f"{data['per_turn'][-1]:>8}")  # fmt: skip
    if "overhead" in results:
        print("\nPer-turn time, zero-latency model (ms): bare agent vs full graph")
        print(f"  {'backend':10} {'bare med':>9} {'full med':>9} {'full p95':>9} {'added':>7} "
              f"{'extract':>8}")  # fmt: skip
        for name, data in results["overhead"]["backends"].items():
            print(f"  {name:10} {data['bare']['median_ms']:>9.2f} {data['full']['median_ms']:>9.2f}"
                  f" {data['full']['p95_ms']:>9.2f} {data['added_median_ms']:>7.2f}"
                  f" {data['extraction']['median_ms']:>8.2f}")  # fmt: skip
    if "store_scale" in results:
        print("\nLong-term store: import and search (query embedding included)")
        for kind in ("embedded", "mongodb_standin"):
            for size, data in results["store_scale"][kind].items():
                rate = data["import_per_second"]
                print(f"  {kind:16} {int(size):>7} memories: import {rate:>8.0f}/s,"
                      f" search p50 {data['search']['median_ms']:.1f} ms,"
                      f" p95 {data['search']['p95_ms']:.1f} ms")  # fmt: skip
    if "retrieval" in results:
        r = results["retrieval"]
        print(f"\nRetrieval: {r['questions']} questions over {r['memories']} memories of "
              f"{r['users']} users (k={r['k']}, threshold {r['threshold']})")  # fmt: skip
        for mode, data in r["modes"].items():
            print(f"  {mode:8} recall@5 {data['recall_at_5']:.2f}  MRR {data['mrr']:.3f}  "
                  f"results/query {data['mean_results']:.1f}")  # fmt: skip
    print("\nTargets")
    for section in results.values():
        if isinstance(section, dict):
            for name, ok in section.get("targets", {}).items():
                print(f"  [{'met' if ok else 'NOT MET'}] {name}")


if __name__ == "__main__":
    sys.exit(main())
