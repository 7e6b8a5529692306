"""``agent doctor``: build each configured backend for real and check that it answers."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from agent.errors import AgentError
from agent.models import build_chat_model
from agent.persistence import CheckpointerOptions, open_checkpointer
from agent.settings import Settings, describe_model, mask_url
from agent.short_term.tokens import ENCODING_NAME, count_text_tokens


@dataclass(frozen=True)
class Check:
    """The outcome of one check."""

    name: str
    ok: bool
    detail: str


def run_checks(settings: Settings) -> list[Check]:
    """Every check, in order; a failing check does not stop the others."""
    checks: list[tuple[str, Callable[[Settings], str]]] = [
        ("data directory", _check_data_dir),
        ("model", _check_model),
        ("checkpointer", _check_checkpointer),
        ("long-term memory", _check_long_term),
        ("token counter", _check_tokens),
    ]
    results = []
    for name, check in checks:
        try:
            results.append(Check(name, True, check(settings)))
        except (AgentError, OSError) as exc:
            results.append(Check(name, False, str(exc)))
    return results


def _check_data_dir(settings: Settings) -> str:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=settings.data_dir, prefix=".doctor-"):
        pass
    return f"{settings.data_dir.resolve()} is writable"


def _check_model(settings: Settings) -> str:
    model = build_chat_model(settings.model)
    client = getattr(model, "root_client", None)  # OpenAI-compatible providers
    if client is None:
        return f"{describe_model(settings.model)}: built (provider not contacted)"
    try:
        client.with_options(timeout=5.0, max_retries=0).models.list()
    except Exception as exc:  # any transport or auth failure is a failed check
        raise AgentError(f"{settings.model}: the API did not answer: {exc}") from exc
    return f"{settings.model}: the API answered"


def _check_checkpointer(settings: Settings) -> str:
    url = settings.resolved_checkpointer_url
    with open_checkpointer(url, CheckpointerOptions.from_settings(settings)) as checkpointer:
        next(iter(checkpointer.list(None, limit=1)), None)
    return f"{mask_url(url)}: opened, schema set up, readable"


def _check_long_term(settings: Settings) -> str:
    if not settings.long_term_memory:
        return "disabled (AGENT_LONG_TERM_MEMORY=false)"
    from agent.factory import open_memory_service

    with open_memory_service(settings, model=None) as service:
        service.search("doctor", "reachability check")
    store = mask_url(settings.resolved_memory_store_url)
    return f"{store}: opened and searched with the {settings.embeddings} embeddings"


def _check_tokens(settings: Settings) -> str:
    tokens = count_text_tokens("What is my name?")
    return f"tiktoken {ENCODING_NAME} loaded offline ({tokens} tokens in a test sentence)"
