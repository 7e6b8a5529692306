"""The model factory: real providers or a clear error, never a silent switch to offline."""

from __future__ import annotations

import pytest

from agent.errors import ProviderUnavailableError
from agent.models import OfflineChatModel, build_chat_model


def test_offline_builds_the_deterministic_model() -> None:
    assert isinstance(build_chat_model("offline", environ={}), OfflineChatModel)


def test_openai_without_a_key_says_what_to_set_and_does_not_fall_back() -> None:
    with pytest.raises(ProviderUnavailableError) as error:
        build_chat_model("openai:gpt-4o-mini", environ={})
    message = str(error.value)
    assert "OPENAI_API_KEY" in message
    assert "OPENAI_BASE_URL" in message


def test_openai_with_a_key_builds_chat_openai() -> None:
    from langchain_openai import ChatOpenAI

    model = build_chat_model("openai:gpt-4o-mini", environ={"OPENAI_API_KEY": "sk-test"})
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4o-mini"


def test_an_openai_compatible_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_openai import ChatOpenAI

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    model = build_chat_model("openai:qwen2.5-1.5b-instruct")
    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_base == "http://127.0.0.1:8080/v1"


@pytest.mark.parametrize("spec", ["gpt-4o-mini", "openai:", ":gpt-4o"])
def test_a_spec_without_provider_and_model_is_rejected(spec: str) -> None:
    with pytest.raises(ProviderUnavailableError, match="provider:model"):
        build_chat_model(spec, environ={})


def test_an_unknown_provider_is_named() -> None:
    with pytest.raises(ProviderUnavailableError, match="nosuchprovider"):
        build_chat_model("nosuchprovider:model", environ={})


def test_a_provider_without_its_package_says_what_is_missing() -> None:
    with pytest.raises(ProviderUnavailableError, match="anthropic"):
        build_chat_model("anthropic:claude-sonnet", environ={"ANTHROPIC_API_KEY": "x"})
