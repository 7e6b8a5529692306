"""The checkpointer ``langgraph dev`` uses, from the same ``AGENT_CHECKPOINTER_URL`` as the CLI.

langgraph.json's ``checkpointer.path`` names :func:`checkpointer`; the server enters it once per
event loop. Because it reads the same settings, the CLI and the server share conversations.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver

from agent.observability import configure_logging, log_backends
from agent.persistence import CheckpointerOptions, open_async_checkpointer
from agent.settings import Settings


@asynccontextmanager
async def checkpointer() -> AsyncIterator[BaseCheckpointSaver[str]]:
    """Open the configured checkpointer for the server's lifetime."""
    settings = Settings.load()
    configure_logging(settings.log_level)
    options = CheckpointerOptions.from_settings(settings)
    async with open_async_checkpointer(settings.resolved_checkpointer_url, options) as saver:
        log_backends({"server checkpointer": settings.describe()["checkpointer"]})
        yield saver
