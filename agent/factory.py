"""Settings → components: the one place that turns ``AGENT_*`` values into a working agent.

:class:`agent.app.TravelAgent` (CLI, Python), ``graphs/travel_agent.py`` (the server) and the
benchmarks all build through here, so they can never wire the agent differently.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from agent.context import Context
from agent.graph import build_graph
from agent.long_term.consolidation import Consolidator
from agent.long_term.embeddings import build_embeddings
from agent.long_term.extraction import Extractor
from agent.long_term.memory import MemoryService
from agent.long_term.retrieval import Retriever
from agent.long_term.stores import MemoryStore, open_memory_store
from agent.models import build_chat_model
from agent.settings import Settings
from agent.short_term import build_window_policy
from agent.state import AgentState

AgentGraph = CompiledStateGraph[AgentState, Context, AgentState, AgentState]


def bookings_path(settings: Settings) -> Path:
    """Where the bookings table lives."""
    return settings.data_dir / "bookings.sqlite"


def graph_from_settings(
    settings: Settings,
    *,
    tools: Sequence[BaseTool],
    model: BaseChatModel | None = None,
    long_term: MemoryService | None = None,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
) -> AgentGraph:
    """The travel-agent graph as the settings describe it, around the given components."""
    return build_graph(
        model=model or build_chat_model(settings.model),
        tools=tools,
        window=build_window_policy(settings.window, settings.max_messages, settings.max_tokens),
        long_term=long_term,
        keep_tool_messages=settings.keep_tool_messages,
        checkpointer=checkpointer,
    )


def memory_service(
    settings: Settings, store: MemoryStore, embeddings: Embeddings, model: BaseChatModel | None
) -> MemoryService:
    """Long-term memory over an open store, configured by the settings.

    Without a model the service can list, search, import and forget, but not extract or add.
    """
    scope_to_conversation = settings.memory_scope == "conversation"
    return MemoryService(
        store,
        embeddings,
        Extractor(model, settings.max_memories_per_turn) if model else None,
        Consolidator(
            store,
            embeddings,
            model,
            dedup_threshold=settings.dedup_threshold,
            scope_to_conversation=scope_to_conversation,
        )
        if model
        else None,
        Retriever(
            store,
            embeddings,
            k=settings.retrieval_k,
            threshold=settings.effective_retrieval_threshold,
            mode=settings.retriever,
        ),
        scope=settings.memory_scope,
        mode=settings.extraction,
    )


@contextmanager
def open_long_term_memory(
    settings: Settings, model: BaseChatModel
) -> Iterator[MemoryService | None]:
    """The configured long-term memory (None when disabled); pending work finishes on exit."""
    if not settings.long_term_memory:
        yield None
        return
    with open_memory_service(settings, model) as service:
        yield service


@contextmanager
def open_memory_service(settings: Settings, model: BaseChatModel | None) -> Iterator[MemoryService]:
    """The configured store and embedder as a memory service, whether or not the agent uses
    long-term memory (``agent memories`` manages the store either way)."""
    embeddings = build_embeddings(settings.embeddings)
    with open_memory_store(settings.resolved_memory_store_url, embeddings) as store:
        service = memory_service(settings, store, embeddings, model)
        try:
            yield service
        finally:
            service.close()
