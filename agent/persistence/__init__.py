"""Durable short-term memory: open the LangGraph checkpointer that a URL names."""

from agent.persistence.checkpointers import (
    CheckpointerOptions,
    CheckpointerURL,
    open_async_checkpointer,
    open_checkpointer,
    parse_checkpointer_url,
)

__all__ = [
    "CheckpointerOptions",
    "CheckpointerURL",
    "open_async_checkpointer",
    "open_checkpointer",
    "parse_checkpointer_url",
]
