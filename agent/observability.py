"""Answering "what did the model actually see?": print every model request as it is sent.

A LangChain callback sees the exact message list handed to the chat model on every call —
including the calls inside the tool loop — whatever the provider, so ``--show-request`` works
for the offline model and for a real LLM alike.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage

from agent.messages import format_message_line

log = logging.getLogger("agent")


class RequestPrinter(BaseCallbackHandler):
    """Writes each model request (role and content, in order) to a stream."""

    def __init__(self, stream: TextIO | None = None, width: int | None = None) -> None:
        self.stream = stream
        self.width = width
        self.calls = 0

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        stream = self.stream or sys.stderr
        for request in messages:
            self.calls += 1
            stream.write(f"--- model request {self.calls}: {len(request)} messages ---\n")
            for message in request:
                stream.write("  " + format_message_line(message, self.width) + "\n")
        stream.flush()


def configure_logging(level: str) -> None:
    """Send the agent's own log lines to stderr at ``level``."""
    logger = logging.getLogger("agent")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(level)


def log_backends(description: dict[str, str]) -> None:
    """The start-up line that says which backend is really in use for each role."""
    log.info("backends: %s", ", ".join(f"{key}={value}" for key, value in description.items()))
