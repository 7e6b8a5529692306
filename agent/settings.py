"""One typed settings object for the whole application, read from ``AGENT_*`` variables.

Why this module is strict: a misspelt setting that is silently ignored looks exactly like a
working one until production (the Spring AI article this project ports shows three plausible
window keys doing nothing). So every ``AGENT_*`` environment variable and every ``AGENT_*`` key
in the settings file must name a real setting, or start-up fails with the closest real name.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from agent.errors import ConfigurationError, UnknownSettingError
from agent.long_term.profiles import embedder_profile

ENV_PREFIX = "AGENT_"
DEFAULT_ENV_FILE = ".env"


class Settings(BaseSettings):
    """Every setting, with its default. Environment names are ``AGENT_`` + the upper-case name.

    Read them with :meth:`Settings.load`; ``Settings(model="offline")`` builds one in code.
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", frozen=True)

    model: str = Field(
        default="openai:gpt-4o-mini",
        description="Chat model as 'provider:model' (init_chat_model style), or 'offline'.",
    )
    embeddings: str = Field(
        default="offline",
        description="Embedding model as 'provider:model', or 'offline' (ships with the package).",
    )
    data_dir: Path = Field(
        default=Path(".agent-data"),
        description="Where the embedded defaults keep their files.",
    )
    checkpointer_url: str | None = Field(
        default=None,
        description="memory://, sqlite:///path, postgresql://… or redis://…; "
        "default: SQLite in the data directory.",
    )
    memory_store_url: str | None = Field(
        default=None,
        description="Long-term memory store; default: the embedded store in the data directory.",
    )
    conversation_ttl: timedelta | None = Field(
        default=None,
        description="Forget conversations idle this long (e.g. 30m, 24h, 7d): native TTL on "
        "Redis, `agent prune` on SQLite and Postgres. Default: keep forever.",
    )
    ttl_refresh_on_read: bool = Field(
        default=True, description="On Redis, reading a conversation restarts its TTL."
    )
    postgres_pool_size: int = Field(
        default=10, ge=1, le=200, description="Most connections in the Postgres pool."
    )
    window: Literal["messages", "tokens"] = Field(
        default="messages",
        description="Short-term memory policy: a message window or a token budget.",
    )
    max_messages: int = Field(default=20, ge=1, description="Message window size.")
    max_tokens: int = Field(
        default=4000, ge=32, description="Token budget of the kept history (o200k_base)."
    )
    long_term_memory: bool = Field(
        default=True, description="Retrieve and extract long-term memories around each turn."
    )
    memory_scope: Literal["user", "conversation"] = Field(
        default="user",
        description="Whose memories a turn sees: all of the user's, or this conversation's.",
    )
    extraction: Literal["background", "inline"] = Field(
        default="background",
        description="Extract memories after the reply (background) or before it returns.",
    )
    retriever: Literal["hybrid", "dense", "lexical"] = Field(
        default="hybrid", description="How memories are ranked for recall."
    )
    retrieval_k: int = Field(default=5, ge=1, le=50, description="Memories recalled per turn.")
    retrieval_threshold: float | None = Field(
        default=None,
        ge=-1.0,
        le=1.0,
        description="Least cosine similarity of a recalled memory; default: the embedder's.",
    )
    dedup_threshold: float = Field(
        default=0.9, ge=0.0, le=1.0, description="Similarity at which a new memory is a duplicate."
    )
    max_memories_per_turn: int = Field(
        default=5, ge=1, le=20, description="Most memories extracted from one exchange."
    )
    keep_tool_messages: bool = Field(
        default=False,
        description="Keep a turn's tool calls and results in the kept history after the answer.",
    )
    max_input_chars: int = Field(
        default=16_000, ge=1, description="Largest user message accepted, in characters."
    )
    durability: Literal["exit", "async", "sync"] = Field(
        default="exit",
        description="When a turn is checkpointed (Python API and CLI): once, when it ends "
        "(exit: one write per turn; a crash mid-turn loses that turn), or after every step.",
    )
    conversation_lock_timeout: float = Field(
        default=30.0,
        ge=0.0,
        description="Python API and CLI: seconds a send waits for another send to the same "
        "conversation before it fails as busy.",
    )
    auth: Literal["dev", "jwt"] | None = Field(
        default=None,
        description="Server authentication: 'dev' trusts an X-User-Id header (development "
        "only); 'jwt' verifies a bearer token. The server refuses to start without it.",
    )
    jwt_secret: SecretStr | None = Field(
        default=None, description="Shared secret (HS256) for AGENT_AUTH=jwt."
    )
    jwt_jwks_url: str | None = Field(
        default=None, description="JWKS URL (RS256/ES256) for AGENT_AUTH=jwt."
    )
    jwt_user_claim: str = Field(
        default="sub", description="The token claim that holds the user id."
    )
    jwt_audience: str | None = Field(default=None, description="Required 'aud' of tokens.")
    jwt_issuer: str | None = Field(default=None, description="Required 'iss' of tokens.")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", description="Log level of the agent's own loggers."
    )

    @classmethod
    def load(
        cls,
        environ: Mapping[str, str] | None = None,
        env_file: Path | str | None = DEFAULT_ENV_FILE,
        overrides: Mapping[str, Any] | None = None,
    ) -> Settings:
        """Read settings from the environment and the settings file, rejecting unknown keys.

        ``overrides`` win over both (the CLI's ``--model`` uses this).
        """
        environ = os.environ if environ is None else environ
        file_values = _read_env_file(env_file)
        check_unknown_keys(environ, source="environment")
        check_unknown_keys(file_values, source=f"settings file {env_file}")
        values: dict[str, Any] = {
            key[len(ENV_PREFIX) :].lower(): value
            for source in (file_values, environ)
            for key, value in source.items()
            if key.upper().startswith(ENV_PREFIX) and value is not None
        }
        values.update({k: v for k, v in (overrides or {}).items() if v is not None})
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigurationError(_describe_validation_error(exc)) from exc

    @field_validator("conversation_ttl", mode="before")
    @classmethod
    def _parse_duration(cls, value: object) -> object:
        return parse_duration(value) if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # load() is the one reader of the environment, so that it can reject unknown keys
        # first; a bare Settings(...) takes only what it is given.
        return (init_settings,)

    @property
    def resolved_checkpointer_url(self) -> str:
        """The checkpointer URL, with the SQLite default filled in."""
        if self.checkpointer_url:
            return self.checkpointer_url
        return f"sqlite:///{(self.data_dir / 'checkpoints.sqlite').resolve()}"

    @property
    def resolved_memory_store_url(self) -> str:
        """The long-term store URL, with the embedded default filled in."""
        if self.memory_store_url:
            return self.memory_store_url
        return f"embedded:///{(self.data_dir / 'memories.sqlite').resolve()}"

    @property
    def effective_retrieval_threshold(self) -> float:
        """The retrieval threshold in force: the setting, else the embedder's calibrated one."""
        if self.retrieval_threshold is not None:
            return self.retrieval_threshold
        return embedder_profile(self.embeddings).retrieval_threshold

    def describe(self) -> dict[str, str]:
        """The resolved backends, secrets masked: for start-up logs and ``agent doctor``."""
        if self.window == "messages":
            window = f"messages (keep at most {self.max_messages})"
        else:
            window = f"tokens (budget {self.max_tokens}, o200k_base)"
        long_term = "disabled"
        if self.long_term_memory:
            long_term = (
                f"{mask_url(self.resolved_memory_store_url)} (scope {self.memory_scope}, "
                f"{self.retriever} retrieval k={self.retrieval_k} "
                f"threshold={self.effective_retrieval_threshold}, dedup {self.dedup_threshold}, "
                f"extraction {self.extraction})"
            )
        return {
            "model": describe_model(self.model),
            "checkpointer": mask_url(self.resolved_checkpointer_url),
            "window": window,
            "long_term_store": long_term,
            "embeddings": embedder_profile(self.embeddings).name
            if self.long_term_memory
            else "unused (long-term memory disabled)",
            "tool_messages": "kept" if self.keep_tool_messages else "dropped after each turn",
            "conversation_ttl": format_duration(self.conversation_ttl)
            if self.conversation_ttl
            else "none (kept until deleted)",
        }


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNIT_SECONDS = {"s": 1, "": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> timedelta | None:
    """``90s``, ``30m``, ``24h``, ``7d`` or plain seconds; ``none``/empty means no limit."""
    if text.strip().lower() in {"", "none", "off"}:
        return None
    match = _DURATION.match(text.lower())
    if match is None:
        raise ValueError(f"{text!r} is not a duration; use e.g. 90s, 30m, 24h or 7d")
    seconds = float(match[1]) * _UNIT_SECONDS[match[2]]
    if seconds <= 0:
        raise ValueError("a duration must be positive")
    return timedelta(seconds=seconds)


def format_duration(value: timedelta) -> str:
    seconds = value.total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


def describe_model(model: str) -> str:
    """Name a model spec for humans; the offline model is never mistaken for an LLM."""
    if model == "offline":
        return "offline (deterministic test double, NOT an LLM)"
    return model


def known_setting_names() -> list[str]:
    """Every valid environment variable name."""
    return [ENV_PREFIX + name.upper() for name in Settings.model_fields]


def check_unknown_keys(values: Mapping[str, Any], source: str) -> None:
    """Raise :class:`UnknownSettingError` for the first ``AGENT_*`` key that is not a setting."""
    known = known_setting_names()
    for key in sorted(values):
        upper = key.upper()
        if upper.startswith(ENV_PREFIX) and upper not in known:
            matches = difflib.get_close_matches(upper, known, n=1, cutoff=0.6)
            raise UnknownSettingError(key, source, matches[0] if matches else None)


def mask_url(url: str) -> str:
    """Hide the password of a URL so it can be logged."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    netloc = f"{parts.username}:***@{host}" if parts.username else f"***@{host}"
    return urlunsplit(parts._replace(netloc=netloc))


def _read_env_file(env_file: Path | str | None) -> dict[str, str | None]:
    if env_file is None:
        return {}
    path = Path(env_file)
    if not path.is_file():
        return {}
    return {k: v for k, v in dotenv_values(path).items() if k.upper().startswith(ENV_PREFIX)}


def _describe_validation_error(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else "?"
        problems.append(f"{ENV_PREFIX}{field.upper()}: {error['msg']} (got {error.get('input')!r})")
    return "Invalid setting: " + "; ".join(problems)
