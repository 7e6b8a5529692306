"""The graph ``langgraph dev`` and LangGraph Studio serve (see langgraph.json).

Compiled without a checkpointer: the server supplies one (ours, through langgraph.json's
``checkpointer`` key). Settings are read and checked at import, so a misconfigured server fails
at start-up with the same clear errors as the CLI. The bookings file and the long-term store
stay open for the life of the server process; pending memory extraction finishes at exit.
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack

from agent.factory import bookings_path, graph_from_settings, open_long_term_memory
from agent.models import build_chat_model
from agent.observability import configure_logging, log_backends
from agent.settings import Settings
from agent.tools import build_travel_tools, open_travel_desk

_settings = Settings.load()
configure_logging(_settings.log_level)
_model = build_chat_model(_settings.model)
_resources = ExitStack()
atexit.register(_resources.close)
_desk = _resources.enter_context(open_travel_desk(bookings_path(_settings)))
_memory = _resources.enter_context(open_long_term_memory(_settings, _model))
log_backends(_settings.describe())

graph = graph_from_settings(
    _settings, tools=build_travel_tools(_desk), model=_model, long_term=_memory
)
