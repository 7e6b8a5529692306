"""Build the chat model a setting names: ``provider:model`` or ``offline``.

Provider strings follow LangChain's ``init_chat_model`` (``openai:gpt-4o-mini``,
``anthropic:claude-…``). A provider that cannot work as configured — no API key, integration
package missing — is an error that says what to set or install. It is never quietly replaced by
the offline model: a demo that silently stops calling the real model is the worst kind of bug.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.errors import ProviderUnavailableError
from agent.models.offline import OFFLINE_MODEL_NAME, OfflineChatModel

# The variable each provider reads its key from; providers not listed manage their own auth.
PROVIDER_KEY_VARIABLES: Mapping[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "google_genai": "GOOGLE_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistralai": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
    "fireworks": "FIREWORKS_API_KEY",
    "together": "TOGETHER_API_KEY",
}


def parse_model_spec(spec: str, setting: str = "AGENT_MODEL") -> tuple[str, str]:
    """Split ``provider:model``; raise a clear error for anything else."""
    provider, sep, name = spec.partition(":")
    if not sep or not provider or not name:
        raise ProviderUnavailableError(
            f"{setting}={spec!r} is not a model spec: use 'provider:model' "
            f"(for example 'openai:gpt-4o-mini') or '{OFFLINE_MODEL_NAME}'"
        )
    return provider, name


def provider_credentials(
    spec: str, environ: Mapping[str, str], setting: str = "AGENT_MODEL"
) -> tuple[str, str, dict[str, Any]]:
    """Split a ``provider:model`` spec and check the provider's credentials.

    Returns the provider, the model name and the keyword arguments (key, base URL) to pass
    explicitly, so the key checked here is the key used.
    """
    provider, name = parse_model_spec(spec, setting)
    extra: dict[str, Any] = {}
    key_variable = PROVIDER_KEY_VARIABLES.get(provider)
    base_url = environ.get("OPENAI_BASE_URL") if provider == "openai" else None
    if base_url:
        extra["base_url"] = base_url
    if key_variable and environ.get(key_variable):
        extra["api_key"] = environ[key_variable]
    elif key_variable and base_url:
        # OpenAI-compatible local servers (llama.cpp, vLLM, Ollama) usually take no key.
        extra["api_key"] = "not-needed"
    elif key_variable:
        hint = (
            " (or OPENAI_BASE_URL for an OpenAI-compatible server)" if provider == "openai" else ""
        )
        raise ProviderUnavailableError(
            f"{setting}={spec} needs {key_variable}{hint}; set it, or choose another "
            f"value for {setting} ({setting}={OFFLINE_MODEL_NAME} is the offline default, "
            "which is not a hosted model)"
        )
    return provider, name, extra


def build_chat_model(spec: str, environ: Mapping[str, str] | None = None) -> BaseChatModel:
    """The chat model for ``spec``, checked to be usable before any conversation starts."""
    if spec == OFFLINE_MODEL_NAME:
        return OfflineChatModel()
    environ = os.environ if environ is None else environ
    provider, name, extra = provider_credentials(spec, environ)
    from langchain.chat_models import init_chat_model

    with provider_errors("AGENT_MODEL", spec, provider):
        chat_model: BaseChatModel = init_chat_model(name, model_provider=provider, **extra)
    return chat_model


@contextmanager
def provider_errors(setting: str, spec: str, provider: str) -> Iterator[None]:
    """Turn LangChain's errors for an unusable provider into one that names the setting."""
    try:
        yield
    except ImportError as exc:
        raise ProviderUnavailableError(
            f"{setting}={spec} needs the LangChain integration for {provider!r}: {exc}"
        ) from exc
    except ValueError as exc:
        raise ProviderUnavailableError(f"{setting}={spec}: {exc}") from exc
