"""The ``agent`` command: chat, read or delete a conversation's history, and check the setup.

    agent chat [-m TEXT] [--user U] [--conversation ID] [--model M] [--show-request] [--json]
    agent history --conversation ID [--json] [--delete]
    agent prune [--idle 24h] [--keep-last N] [--dry-run] [--json]
    agent memories list|search|add|import|forget --user U [--json]
    agent doctor
    agent demo

Replies go to stdout; logs, the request trace of ``--show-request`` and errors go to stderr, so
``agent chat -m …`` can be scripted. Any error this package reports ends the command with a
one-line message and exit code 2 — never a stack trace.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Sequence

from agent import __version__
from agent.app import TravelAgent
from agent.cli_memories import add_memories_parser, run_memories
from agent.context import new_conversation_id
from agent.errors import AgentError
from agent.messages import format_message_line, message_to_json
from agent.observability import RequestPrinter, configure_logging
from agent.settings import Settings

EXIT_ERROR = 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``agent`` console script."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.handler(args)
    except AgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    return result


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent", description="A travel-booking assistant with durable memory."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    chat = commands.add_parser("chat", help="talk to the agent (REPL, or one-shot with -m)")
    chat.add_argument("-m", "--message", help="send one message, print the reply and exit")
    chat.add_argument("--user", default=None, help="user id (default: your login name)")
    chat.add_argument(
        "--conversation", help="conversation id to continue (default: a new UUID, printed)"
    )
    chat.add_argument("--model", help="override AGENT_MODEL for this run ('offline', 'openai:…')")
    chat.add_argument(
        "--show-request",
        action="store_true",
        help="print to stderr the exact messages sent to the model on every model call",
    )
    chat.add_argument(
        "--json",
        action="store_true",
        help='with -m: print {"conversation_id", "user_id", "reply"} as JSON',
    )
    chat.set_defaults(handler=_chat)

    history = commands.add_parser("history", help="print or delete a conversation's kept history")
    history.add_argument("--conversation", required=True, help="conversation id")
    history.add_argument(
        "--user", help="act as this user: someone else's conversation is not found"
    )
    history.add_argument(
        "--json", action="store_true", help='print a JSON list of {"role", "content"}'
    )
    history.add_argument(
        "--delete", action="store_true", help="delete every stored trace of the conversation"
    )
    history.set_defaults(handler=_history)

    prune = commands.add_parser(
        "prune", help="delete idle conversations and old checkpoints (SQLite, Postgres)"
    )
    prune.add_argument(
        "--idle",
        help="delete conversations idle longer than this (default: AGENT_CONVERSATION_TTL)",
    )
    prune.add_argument(
        "--keep-last", type=int, default=1, help="checkpoints kept per conversation (default 1)"
    )
    prune.add_argument("--dry-run", action="store_true", help="report, delete nothing")
    prune.add_argument("--json", action="store_true", help="print the report as JSON")
    prune.set_defaults(handler=_prune)

    doctor = commands.add_parser("doctor", help="print the resolved backends and check each one")
    doctor.set_defaults(handler=_doctor)

    demo = commands.add_parser("demo", help="a scripted conversation with the offline model")
    demo.set_defaults(handler=_demo)

    add_memories_parser(commands).set_defaults(handler=_memories)
    return parser


def _load_settings(**overrides: object) -> Settings:
    settings = Settings.load(overrides=overrides)
    configure_logging(settings.log_level)
    return settings


def _chat(args: argparse.Namespace) -> int:
    settings = _load_settings(model=args.model)
    user_id = args.user or getpass.getuser()
    conversation_id = args.conversation or new_conversation_id()
    if not args.conversation:
        print(f"conversation: {conversation_id}", file=sys.stderr)
    callbacks = [RequestPrinter()] if args.show_request else []
    with TravelAgent.open(settings) as travel_agent:
        if args.message is not None:
            reply = travel_agent.send(
                args.message, user_id=user_id, conversation_id=conversation_id, callbacks=callbacks
            )
            if args.json:
                print(
                    json.dumps(
                        {
                            "conversation_id": reply.conversation_id,
                            "user_id": reply.user_id,
                            "reply": reply.text,
                        }
                    )
                )
            else:
                print(reply.text)
            return 0
        return _repl(travel_agent, user_id, conversation_id, callbacks)


def _repl(
    travel_agent: TravelAgent, user_id: str, conversation_id: str, callbacks: list[RequestPrinter]
) -> int:
    interactive = sys.stdin.isatty()
    if interactive:
        print("Type a message; /history shows the kept history, /exit quits.", file=sys.stderr)
    while True:
        if interactive:
            print("you> ", end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line:
            return 0
        text = line.strip()
        if not text:
            continue
        if text in {"/exit", "/quit"}:
            return 0
        if text == "/history":
            for message in travel_agent.history(conversation_id):
                print(format_message_line(message))
            continue
        try:
            reply = travel_agent.send(
                text, user_id=user_id, conversation_id=conversation_id, callbacks=callbacks
            )
        except AgentError as exc:
            # a bad message is reported and the session goes on
            print(f"error: {exc}", file=sys.stderr)
            continue
        print(f"agent> {reply.text}" if interactive else reply.text, flush=True)


def _history(args: argparse.Namespace) -> int:
    settings = _load_settings()
    with TravelAgent.open(settings) as travel_agent:
        if args.delete:
            travel_agent.delete_conversation(args.conversation, user_id=args.user)
            print(f"deleted conversation {args.conversation}", file=sys.stderr)
            return 0
        messages = travel_agent.history(args.conversation, user_id=args.user)
        if args.json:
            print(json.dumps([message_to_json(m) for m in messages], ensure_ascii=False))
        else:
            for message in messages:
                print(format_message_line(message))
            if not messages:
                print(f"(no kept messages for conversation {args.conversation})", file=sys.stderr)
    return 0


def _prune(args: argparse.Namespace) -> int:
    from agent.persistence.retention import open_retention
    from agent.settings import parse_duration

    settings = _load_settings()
    idle = parse_duration(args.idle) if args.idle else settings.conversation_ttl
    with open_retention(settings.resolved_checkpointer_url) as retention:
        report = retention.prune(idle_for=idle, keep_last=args.keep_last, dry_run=args.dry_run)
    if args.json:
        print(json.dumps(report.as_json()))
        return 0
    verb = "would delete" if args.dry_run else "deleted"
    print(
        f"{report.backend}: {report.threads_examined} conversations examined; {verb} "
        f"{len(report.idle_threads_deleted)} idle conversations and "
        f"{report.checkpoints_deleted} old checkpoints"
    )
    if report.before and report.after:
        print(
            f"payload bytes {report.before.payload_bytes} -> {report.after.payload_bytes}, "
            f"checkpoints {report.before.checkpoints} -> {report.after.checkpoints}"
        )
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from agent.doctor import run_checks

    settings = _load_settings()
    for key, value in settings.describe().items():
        print(f"{key:>16}: {value}")
    print()
    ok = True
    for check in run_checks(settings):
        ok = ok and check.ok
        print(f"[{'ok' if check.ok else 'FAIL'}] {check.name}: {check.detail}")
    return 0 if ok else 1


def _memories(args: argparse.Namespace) -> int:
    return run_memories(args, _load_settings())


def _demo(args: argparse.Namespace) -> int:
    from agent.demo import run_demo

    settings = _load_settings()
    return run_demo(settings)


if __name__ == "__main__":
    sys.exit(main())
