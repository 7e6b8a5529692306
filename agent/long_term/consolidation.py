"""Consolidation: add, update or skip each extracted memory against what the user already has.

1. A candidate at or above the de-duplication threshold (cosine, same user and type) to an
   existing memory — or to an earlier candidate of the same batch — is skipped.
2. Otherwise, if the user has related memories, the model decides with structured output:
   ``add``, ``update`` (the new memory supersedes an existing one, which is kept for history
   but no longer retrieved) or ``skip``. A malformed decision falls back to ``add``: a stated
   fact is never lost because the model answered badly.
3. The writes happen under the store's per-user lock, after checking for duplicates again, so
   two extractions racing for the same user cannot insert the same memory twice. The model is
   called outside the lock, so a slow model never blocks other writers.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agent.context import Conversation
from agent.long_term.embeddings import Matrix, embed_texts
from agent.long_term.extraction import (
    Candidate,
    MalformedOutputError,
    parse_json_object,
    structured_model,
)
from agent.long_term.records import MemoryRecord, MemoryType
from agent.long_term.stores.base import MemoryStore
from agent.messages import message_text
from agent.prompts import CONSOLIDATION_SYSTEM_PROMPT, CONSOLIDATION_USER_TEMPLATE

log = logging.getLogger("agent.long_term")
Action = Literal["add", "update", "skip"]
DECISION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["add", "update", "skip"]},
        "target": {"type": ["integer", "null"]},
    },
    "required": ["action", "target"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Decision:
    action: Action
    target: MemoryRecord | None = None
    reason: str = ""


@dataclass
class ConsolidationReport:
    """What one batch did: records added, (old, new) pairs updated, contents skipped."""

    added: list[MemoryRecord] = field(default_factory=list)
    updated: list[tuple[MemoryRecord, MemoryRecord]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


class Consolidator:
    """Decides and applies add / update / skip for a user's new memory candidates."""

    def __init__(
        self,
        store: MemoryStore,
        embeddings: Embeddings,
        model: BaseChatModel,
        *,
        dedup_threshold: float = 0.9,
        related_threshold: float = 0.55,
        neighbours: int = 3,
        scope_to_conversation: bool = False,
    ) -> None:
        self.store = store
        self.embeddings = embeddings
        self.dedup_threshold = dedup_threshold
        self.related_threshold = related_threshold
        self.neighbours = neighbours
        self.scope_to_conversation = scope_to_conversation
        self._model = structured_model(model, "decision", DECISION_SCHEMA)

    def apply(
        self, conversation: Conversation, candidates: Sequence[Candidate]
    ) -> ConsolidationReport:
        report = ConsolidationReport()
        if not candidates:
            return report
        vectors = embed_texts(self.embeddings, [c.content for c in candidates])
        planned: list[tuple[Candidate, Matrix, Decision]] = []
        for candidate, vector in zip(candidates, vectors, strict=True):
            if any(
                c.memory_type == candidate.memory_type and float(v @ vector) >= self.dedup_threshold
                for c, v, _ in planned
            ):
                report.skipped.append(f"{candidate.content} (repeated in this batch)")
                continue
            planned.append((candidate, vector, self._decide(conversation, candidate, vector)))
        with self.store.user_lock(conversation.user_id):
            for candidate, vector, decision in planned:
                self._write(conversation, candidate, vector, decision, report)
        return report

    def _neighbours(
        self, conversation: Conversation, candidate: Candidate, vector: Matrix
    ) -> list[tuple[MemoryRecord, float]]:
        return self.store.vector_search(
            conversation.user_id,
            vector,
            self.neighbours,
            memory_type=MemoryType(candidate.memory_type),
            conversation_id=conversation.conversation_id if self.scope_to_conversation else None,
        )

    def _decide(self, conversation: Conversation, candidate: Candidate, vector: Matrix) -> Decision:
        nearest = self._neighbours(conversation, candidate, vector)
        if nearest and nearest[0][1] >= self.dedup_threshold:
            return Decision("skip", nearest[0][0], f"duplicate ({nearest[0][1]:.2f})")
        related = [record for record, similarity in nearest if similarity >= self.related_threshold]
        if not related:
            return Decision("add", reason="nothing related")
        return self._ask_model(candidate, related)

    def _ask_model(self, candidate: Candidate, related: list[MemoryRecord]) -> Decision:
        existing = "\n".join(
            f"{n}. [{r.memory_type.value}] {r.content}" for n, r in enumerate(related, 1)
        )
        request = [
            SystemMessage(CONSOLIDATION_SYSTEM_PROMPT.format(schema=json.dumps(DECISION_SCHEMA))),
            HumanMessage(
                CONSOLIDATION_USER_TEMPLATE.format(
                    memory_type=candidate.memory_type, content=candidate.content, existing=existing
                )
            ),
        ]
        text = message_text(self._model.invoke(request))
        try:
            return parse_decision(text, related)
        except MalformedOutputError as exc:
            log.warning("memory decision malformed (%s); adding the memory: %.200r", exc, text)
            return Decision("add", reason=f"malformed decision: {exc}")

    def _write(
        self,
        conversation: Conversation,
        candidate: Candidate,
        vector: Matrix,
        decision: Decision,
        report: ConsolidationReport,
    ) -> None:
        if decision.action == "skip":
            report.skipped.append(f"{candidate.content} ({decision.reason or 'model: skip'})")
            return
        # Under the lock: a concurrent extraction may have written the same memory meanwhile.
        nearest = self._neighbours(conversation, candidate, vector)
        if nearest and nearest[0][1] >= self.dedup_threshold:
            report.skipped.append(f"{candidate.content} (written concurrently)")
            return
        record = MemoryRecord(
            user_id=conversation.user_id,
            conversation_id=conversation.conversation_id,
            content=candidate.content,
            memory_type=MemoryType(candidate.memory_type),
            embedding=np.asarray(vector, dtype=np.float32).tolist(),
        )
        target = decision.target
        if decision.action == "update" and target is not None:
            current = self.store.get(conversation.user_id, target.id)
            if current is not None and current.active:
                self.store.add([record])
                self.store.supersede(conversation.user_id, target.id, record.id)
                report.updated.append((target, replace(record, embedding=None)))
                return
        self.store.add([record])
        report.added.append(replace(record, embedding=None))


def parse_decision(text: str, related: Sequence[MemoryRecord]) -> Decision:
    """Validate the model's add / update / skip answer."""
    value = parse_json_object(text)
    action = value.get("action")
    if set(value) - {"action", "target"} or action not in {"add", "update", "skip"}:
        raise MalformedOutputError(f"expected action add|update|skip, got {value!r}")
    if action != "update":
        return Decision(action, reason=f"model: {action}")
    target = value.get("target")
    if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= len(related):
        raise MalformedOutputError(f"update target {target!r} is not one of 1..{len(related)}")
    return Decision("update", related[target - 1], reason="model: update")
