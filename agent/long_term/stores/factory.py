"""Open the long-term store a URL names; no silent substitution of another store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from langchain_core.embeddings import Embeddings

from agent.errors import ConfigurationError, MissingExtraError
from agent.long_term.stores.base import MemoryStore
from agent.settings import mask_url


@contextmanager
def open_memory_store(url: str, embeddings: Embeddings) -> Iterator[MemoryStore]:
    """``embedded:///path/to/memories.sqlite``, or ``mongodb://…`` / ``mongodb+srv://…``."""
    scheme = urlsplit(url).scheme.lower()
    store: MemoryStore
    if scheme == "embedded":
        if not url.startswith("embedded:///") or url == "embedded:///":
            raise ConfigurationError(
                f"AGENT_MEMORY_STORE_URL={url!r}: write embedded:///relative/path.sqlite or "
                "embedded:////absolute/path.sqlite"
            )
        from agent.long_term.stores.embedded import EmbeddedMemoryStore

        store = EmbeddedMemoryStore(Path(url[len("embedded:///") :]))
    elif scheme in {"mongodb", "mongodb+srv"}:
        try:
            from agent.long_term.stores.mongodb import MongoMemoryStore
        except ImportError as exc:
            raise MissingExtraError("A mongodb:// memory store", "mongodb", str(exc.name)) from exc
        store = MongoMemoryStore.from_url(url, embeddings)
    else:
        raise ConfigurationError(
            f"AGENT_MEMORY_STORE_URL={mask_url(url)!r}: unsupported scheme {scheme!r}; use "
            "embedded:///path or mongodb://…"
        )
    try:
        yield store
    finally:
        store.close()
