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
    sections = {"token_growth": _print_tokens, "overhead": _print_overhead,
                "store_scale": _print_store, "retrieval": _print_retrieval}  # fmt: skip
    for name, printer in sections.items():
        if name in results:
            printer(results[name])
    print("\nTargets")
    for section in results.values():
        if isinstance(section, dict):
            for name, ok in section.get("targets", {}).items():
                print(f"  [{'met' if ok else 'NOT MET'}] {name}")


def _print_tokens(tokens: dict[str, Any]) -> None:
    print("\nTokens sent over 30 turns (every token of every request)")
    print(f"  {'policy':38} {'total':>8} {'share':>7} {'turn 30':>8}")
    for name, data in tokens["policies"].items():
        print(f"  {name:38} {data['total']:>8} {data['share_of_unbounded']:>7.1%} "
              f"{data['per_turn'][-1]:>8}")  # fmt: skip


def _print_overhead(overhead: dict[str, Any]) -> None:
    print("\nPer-turn time, zero-latency model (ms): bare agent vs full graph")
    print(f"  {'backend':10} {'bare med':>9} {'full med':>9} {'full p95':>9} {'added':>7} "
          f"{'extract':>8}")  # fmt: skip
    for name, data in overhead["backends"].items():
        print(f"  {name:10} {data['bare']['median_ms']:>9.2f} {data['full']['median_ms']:>9.2f}"
              f" {data['full']['p95_ms']:>9.2f} {data['added_median_ms']:>7.2f}"
              f" {data['extraction']['median_ms']:>8.2f}")  # fmt: skip
        if "full_short_follow_ups" in data:
            short, added = data["full_short_follow_ups"], data["added_median_ms_short_follow_ups"]
            print(f"  {'  short':10} {'':>9} {short['median_ms']:>9.2f}"
                  f" {short['p95_ms']:>9.2f} {added:>7.2f}")  # fmt: skip


def _print_store(store: dict[str, Any]) -> None:
    print("\nLong-term store: import and search (query embedding included)")
    for kind in ("embedded", "mongodb_standin"):
        for size, data in store[kind].items():
            search = data["search"]
            print(f"  {kind:16} {int(size):>7} memories: import "
                  f"{data['import_per_second']:>8.0f}/s, search p50 "
                  f"{search['median_ms']:.1f} ms, p95 {search['p95_ms']:.1f} ms")  # fmt: skip
            if "search_dense_only" in data:
                print(f"  {'':16} {'':>7}           dense only: search p50 "
                      f"{data['search_dense_only']['median_ms']:.1f} ms")  # fmt: skip


def _print_retrieval(r: dict[str, Any]) -> None:
    print(f"\nRetrieval: {r['questions']} questions over {r['memories']} memories of "
          f"{r['users']} users (k={r['k']}, threshold {r['threshold']})")  # fmt: skip
    kinds = list(r["questions_by_kind"])
    print(f"  {'retriever':46} {'recall@5':>8} {'MRR':>6}  " + "  ".join(kinds))
    rows = [*r["modes"].items(), *r["variants"].items()]
    for name, data in rows:
        by_kind = "  ".join(f"{data['recall_by_kind'][k]:>{len(k)}.2f}" for k in kinds)
        print(f"  {name:46} {data['recall_at_5']:>8.2f} {data['mrr']:>6.3f}  {by_kind}")
    lookups = r["lookups"]
    print(f"  booking-reference lookups ({lookups['questions']} questions, one user with "
          f"{lookups['memories']} references):")  # fmt: skip
    for mode, data in lookups["modes"].items():
        print(f"  {mode:46} {data['recall_at_5']:>8.2f} {data['mrr']:>6.3f}")


if __name__ == "__main__":
    sys.exit(main())
