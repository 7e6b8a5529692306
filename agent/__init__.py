"""A LangGraph travel-booking assistant and the memory library inside it.

The public surface most users need:

- :class:`agent.settings.Settings` — every ``AGENT_*`` setting, validated at start-up.
- :class:`agent.context.Context` — who is talking, in which conversation, for one run.
- :class:`agent.app.TravelAgent` — open the configured backends and send messages.
- :func:`agent.graph.build_graph` — the state graph itself, for embedding in your own app.
"""

__version__ = "0.1.0"
