"""``agent memories list|search|add|import|forget``: manage a user's long-term memories.

Output is human-readable by default and JSON with ``--json``; ``search --queries FILE`` always
writes JSON lines, one ``{"query", "results": [{"id", "content", "memory_type", "score"}]}``
per query, for scripts and evaluations.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent.context import Conversation, new_conversation_id, normalize_id
from agent.factory import open_memory_service
from agent.long_term.memory import MemoryService, read_jsonl
from agent.long_term.records import MemoryType, ScoredMemory
from agent.models import build_chat_model
from agent.settings import Settings


def add_memories_parser(commands: Any) -> argparse.ArgumentParser:
    """Register ``agent memories`` and its subcommands; returns its parser."""
    memories: argparse.ArgumentParser = commands.add_parser(
        "memories", help="list, search, add, import or forget memories"
    )
    actions = memories.add_subparsers(dest="action", required=True, metavar="ACTION")

    def with_user(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--user", required=True, help="whose memories")
        parser.add_argument("--json", action="store_true", help="machine-readable output")
        return parser

    listing = with_user(actions.add_parser("list", help="the user's memories"))
    listing.add_argument("--all", action="store_true", help="include superseded memories")

    search = with_user(actions.add_parser("search", help="retrieve as the agent would"))
    search.add_argument("query", nargs="?", help="what to search for")
    search.add_argument("--queries", type=Path, help="a file with one query per line")
    search.add_argument("--k", type=int, default=None, help="how many results (default: k)")

    add = with_user(actions.add_parser("add", help="add one memory (de-duplicated)"))
    add.add_argument("content", help="the memory, e.g. 'User prefers aisle seats'")
    add.add_argument("--type", choices=[t.value for t in MemoryType], default="EPISODIC")
    add.add_argument("--conversation", help="source conversation id")

    imports = with_user(actions.add_parser("import", help="bulk-add records from JSON lines"))
    imports.add_argument(
        "file", type=Path, help="JSONL: content, memory_type[, created_at, metadata]"
    )

    forget = with_user(actions.add_parser("forget", help="delete one memory or all of a user's"))
    forget.add_argument("--id", help="delete only this memory")
    return memories


def run_memories(args: argparse.Namespace, settings: Settings) -> int:
    user_id = normalize_id("user_id", args.user)
    model = build_chat_model(settings.model) if args.action == "add" else None
    with open_memory_service(settings, model) as service:
        handler = {
            "list": _list,
            "search": _search,
            "add": _add,
            "import": _import,
            "forget": _forget,
        }[args.action]
        return handler(service, user_id, args)


def _list(service: MemoryService, user_id: str, args: argparse.Namespace) -> int:
    records = service.list_memories(user_id, include_superseded=args.all)
    if args.json:
        print(json.dumps([r.public() for r in records], ensure_ascii=False))
        return 0
    for record in records:
        state = "" if record.active else f" (superseded by {record.superseded_by})"
        print(f"{record.id}  [{record.memory_type.value}] {record.content}{state}")
    if not records:
        print(f"(no memories for {user_id})", file=sys.stderr)
    return 0


def _search(service: MemoryService, user_id: str, args: argparse.Namespace) -> int:
    if (args.query is None) == (args.queries is None):
        raise SystemExit("agent memories search: give a QUERY or --queries FILE (not both)")
    queries = (
        [q.strip() for q in args.queries.read_text().splitlines() if q.strip()]
        if args.queries
        else [args.query]
    )
    for query in queries:
        hits = service.search(user_id, query, k=args.k)
        if args.json or args.queries:
            print(
                json.dumps({"query": query, "results": [_hit(h) for h in hits]}, ensure_ascii=False)
            )
        else:
            for hit in hits:
                record = hit.record
                print(
                    f"{hit.score:.4f}  {record.id}  [{record.memory_type.value}] {record.content}"
                )
    return 0


def _hit(hit: ScoredMemory) -> dict[str, Any]:
    return {
        "id": hit.record.id,
        "content": hit.record.content,
        "memory_type": hit.record.memory_type.value,
        "score": round(hit.score, 6),
        "similarity": round(hit.similarity, 6),
    }


def _add(service: MemoryService, user_id: str, args: argparse.Namespace) -> int:
    conversation = Conversation.of(user_id, args.conversation or new_conversation_id())
    report = service.add(conversation, args.content, MemoryType(args.type))
    result = {
        "added": [r.public() for r in report.added],
        "updated": [{"old": old.public(), "new": new.public()} for old, new in report.updated],
        "skipped": report.skipped,
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for record in report.added:
            print(f"added {record.id}: {record.content}")
        for old, new in report.updated:
            print(f"updated: {new.id} '{new.content}' supersedes {old.id} '{old.content}'")
        for reason in report.skipped:
            print(f"skipped: {reason}")
    return 0


def _import(service: MemoryService, user_id: str, args: argparse.Namespace) -> int:
    rows = read_jsonl(args.file.read_text(encoding="utf-8").splitlines())
    count = service.import_records(user_id, rows)
    print(json.dumps({"imported": count}) if args.json else f"imported {count} memories")
    return 0


def _forget(service: MemoryService, user_id: str, args: argparse.Namespace) -> int:
    if args.id:
        deleted = 1 if service.forget(user_id, args.id) else 0
        if not deleted:
            print(f"error: no memory {args.id} for {user_id}", file=sys.stderr)
    else:
        deleted = service.forget_user(user_id)
    print(json.dumps({"deleted": deleted}) if args.json else f"deleted {deleted} memories")
    return 0 if deleted or not args.id else 1
