"""Build the graph from settings: the one place that turns ``AGENT_*`` values into components.

Both :class:`agent.app.TravelAgent` (CLI, Python) and ``graphs/travel_agent.py`` (the server)
call :func:`graph_from_settings`, so the two can never wire the agent differently.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from agent.context import Context
from agent.errors import ConfigurationError
from agent.graph import build_graph
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
    checkpointer: BaseCheckpointSaver[Any] | None = None,
) -> AgentGraph:
    """The travel-agent graph as the settings describe it, around the given tools."""
    if settings.long_term_memory:
        raise ConfigurationError(
            "AGENT_LONG_TERM_MEMORY=true: long-term memory is not available in this version"
        )
    return build_graph(
        model=model or build_chat_model(settings.model),
        tools=tools,
        window=build_window_policy(settings.window, settings.max_messages, settings.max_tokens),
        keep_tool_messages=settings.keep_tool_messages,
        checkpointer=checkpointer,
    )
