"""The long-term memory the graph talks to: recall before the model call, record after it.

Recording runs off the response path by default: the reply is returned as soon as the model
has answered, and extraction and consolidation finish on a worker thread. Nothing is lost on
a normal exit — :meth:`MemoryService.close` (called when the agent closes) and the interpreter's
own shutdown both wait for pending work. ``mode="inline"`` records before the turn returns,
for tests and for scripts that read the memories right after.

The same object serves the management commands (``agent memories …``, HTTP routes).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

import numpy as np
from langchain_core.embeddings import Embeddings

from agent.context import Conversation
from agent.errors import AgentError, ConfigurationError
from agent.long_term.consolidation import ConsolidationReport, Consolidator
from agent.long_term.embeddings import embed_texts
from agent.long_term.extraction import Candidate, Extractor
from agent.long_term.records import MemoryRecord, MemoryType, ScoredMemory, utc_now
from agent.long_term.retrieval import Retriever
from agent.long_term.stores.base import MemoryStore

log = logging.getLogger("agent.long_term")
ExtractionMode = Literal["background", "inline"]
MemoryScope = Literal["user", "conversation"]
IMPORT_BATCH = 256


class InvalidMemoryError(AgentError):
    """A memory given by a user or a file is malformed."""


@dataclass
class MemoryStats:
    """Counters since start-up, for logs, tests and benchmarks."""

    turns_recorded: int = 0
    added: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0


class MemoryService:
    """Recall, record and manage one store's memories."""

    def __init__(
        self,
        store: MemoryStore,
        embeddings: Embeddings,
        extractor: Extractor | None,
        consolidator: Consolidator | None,
        retriever: Retriever,
        *,
        scope: MemoryScope = "user",
        mode: ExtractionMode = "background",
        workers: int = 2,
    ) -> None:
        self.store = store
        self.embeddings = embeddings
        self.extractor = extractor
        self.consolidator = consolidator
        self.retriever = retriever
        self.scope = scope
        self.mode = mode
        self.stats = MemoryStats()
        self._pending: set[Future[ConsolidationReport | None]] = set()
        self._pending_lock = threading.Lock()
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="memory-extraction")

    # -- the graph's interface ---------------------------------------------------------------
    def recall(
        self, conversation: Conversation, query: str, context: str = ""
    ) -> list[dict[str, str]]:
        hits = self.retriever.search(
            conversation.user_id,
            query,
            conversation_id=self._scoped(conversation),
            context=context,
        )
        return [
            {
                "id": h.record.id,
                "memory_type": h.record.memory_type.value,
                "content": h.record.content,
            }
            for h in hits
        ]

    def record(self, conversation: Conversation, user_message: str, answer: str) -> None:
        if self.mode == "inline":
            self._record_now(conversation, user_message, answer)
            return
        future = self._executor.submit(self._record_now, conversation, user_message, answer)
        with self._pending_lock:
            self._pending.add(future)
        future.add_done_callback(self._done)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait for pending extractions; True when none is left."""
        with self._pending_lock:
            pending = set(self._pending)
        _, not_done = wait(pending, timeout=timeout)
        return not not_done

    def close(self) -> None:
        """Finish pending extractions, then stop the workers."""
        self.flush()
        self._executor.shutdown(wait=True)

    # -- management --------------------------------------------------------------------------
    def list_memories(
        self, user_id: str, *, include_superseded: bool = False
    ) -> list[MemoryRecord]:
        return self.store.list(user_id, include_superseded=include_superseded)

    def search(self, user_id: str, query: str, k: int | None = None) -> list[ScoredMemory]:
        return self.retriever.search(user_id, query, k=k)

    def add(
        self,
        conversation: Conversation,
        content: str,
        memory_type: MemoryType,
    ) -> ConsolidationReport:
        """Add one memory as if it had been extracted (de-duplicated, may update another)."""
        candidate = _candidate(content, memory_type.value)
        report = self._consolidator().apply(conversation, [candidate])
        self._count(report)
        return report

    def import_records(self, user_id: str, rows: Iterable[Mapping[str, Any]]) -> int:
        """Bulk-add records (content, memory_type, optional created_at, metadata, conversation_id).

        Every row is validated before anything is written; embeddings are computed in batches.
        """
        records = [_record_from_row(user_id, row, number) for number, row in enumerate(rows, 1)]
        for start in range(0, len(records), IMPORT_BATCH):
            batch = records[start : start + IMPORT_BATCH]
            vectors = embed_texts(self.embeddings, [r.content for r in batch])
            self.store.add(
                [
                    replace(r, embedding=np.asarray(v, dtype=np.float32).tolist())
                    for r, v in zip(batch, vectors, strict=True)
                ]
            )
        return len(records)

    def forget(self, user_id: str, memory_id: str) -> bool:
        return self.store.delete(user_id, memory_id)

    def forget_user(self, user_id: str) -> int:
        return self.store.delete_user(user_id)

    # -- internals ---------------------------------------------------------------------------
    def _record_now(
        self, conversation: Conversation, user_message: str, answer: str
    ) -> ConsolidationReport | None:
        try:
            if self.extractor is None:
                raise ConfigurationError("memory extraction needs a chat model")
            candidates = self.extractor.extract(user_message, answer)
            report = self._consolidator().apply(conversation, candidates)
        except Exception:
            self.stats.failed += 1
            log.exception(
                "memory extraction failed for conversation %s; the turn itself succeeded",
                conversation.conversation_id,
            )
            return None
        self.stats.turns_recorded += 1
        self._count(report)
        if report.added or report.updated or report.skipped:
            log.info(
                "memories for %s: %d added, %d updated, %d skipped",
                conversation.user_id,
                len(report.added),
                len(report.updated),
                len(report.skipped),
            )
        return report

    def _consolidator(self) -> Consolidator:
        if self.consolidator is None:
            raise ConfigurationError("adding memories needs a chat model (AGENT_MODEL)")
        return self.consolidator

    def _count(self, report: ConsolidationReport) -> None:
        self.stats.added += len(report.added)
        self.stats.updated += len(report.updated)
        self.stats.skipped += len(report.skipped)

    def _done(self, future: Future[ConsolidationReport | None]) -> None:
        with self._pending_lock:
            self._pending.discard(future)

    def _scoped(self, conversation: Conversation) -> str | None:
        return conversation.conversation_id if self.scope == "conversation" else None


def _candidate(content: object, memory_type: object) -> Candidate:
    if memory_type not in {"EPISODIC", "SEMANTIC"}:
        raise InvalidMemoryError(f"memory_type must be EPISODIC or SEMANTIC, not {memory_type!r}")
    if not isinstance(content, str) or not content.strip():
        raise InvalidMemoryError("content must be a non-empty string")
    if len(content) > 500:
        raise InvalidMemoryError(f"content is {len(content)} characters; the limit is 500")
    return Candidate.model_validate({"content": content, "memory_type": memory_type})


def _record_from_row(user_id: str, row: Mapping[str, Any], number: int) -> MemoryRecord:
    if not isinstance(row, Mapping):
        raise InvalidMemoryError(f"record {number}: not a JSON object")
    unknown = set(row) - {"content", "memory_type", "created_at", "metadata", "conversation_id"}
    if unknown:
        raise InvalidMemoryError(f"record {number}: unknown fields {sorted(unknown)}")
    try:
        candidate = _candidate(row.get("content"), row.get("memory_type"))
        created = _timestamp(row.get("created_at"))
    except InvalidMemoryError as exc:
        raise InvalidMemoryError(f"record {number}: {exc}") from exc
    metadata = row.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InvalidMemoryError(f"record {number}: metadata must be a JSON object")
    conversation_id = row.get("conversation_id")
    return MemoryRecord(
        user_id=user_id,
        conversation_id=str(conversation_id) if conversation_id else None,
        content=candidate.content,
        memory_type=MemoryType(candidate.memory_type),
        created_at=created,
        updated_at=created,
        metadata=metadata,
    )


def _timestamp(value: object) -> datetime:
    if value is None:
        return utc_now()
    try:
        parsed = datetime.fromisoformat(str(value))
    except ValueError:
        raise InvalidMemoryError(f"created_at {value!r} is not an ISO 8601 timestamp") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=utc_now().tzinfo)


def read_jsonl(lines: Sequence[str]) -> list[dict[str, Any]]:
    """Parse JSON lines (blank lines allowed), naming the line of the first error."""
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InvalidMemoryError(f"line {number}: invalid JSON ({exc.msg})") from exc
    return rows
