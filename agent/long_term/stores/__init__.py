"""Long-term memory stores behind one small interface; each store is chosen by URL."""

from agent.long_term.stores.base import MemoryStore
from agent.long_term.stores.factory import open_memory_store

__all__ = ["MemoryStore", "open_memory_store"]
