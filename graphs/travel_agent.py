"""The graph ``langgraph dev`` and LangGraph Studio serve (see langgraph.json).

Compiled without a checkpointer: the server supplies one (ours, through langgraph.json's
``checkpointer`` key). Settings are read and checked at import, so a misconfigured server fails
at start-up with the same clear errors as the CLI.
"""

from __future__ import annotations

from agent.factory import bookings_path, graph_from_settings
from agent.observability import configure_logging, log_backends
from agent.settings import Settings
from agent.tools import BookingStore, Inventory, TravelDesk, build_travel_tools

_settings = Settings.load()
configure_logging(_settings.log_level)
log_backends(_settings.describe())

# The bookings store lives as long as the server process.
_desk = TravelDesk(Inventory(), BookingStore(bookings_path(_settings)))

graph = graph_from_settings(_settings, tools=build_travel_tools(_desk))
