"""Settings: typed, strict about unknown keys, and honest about what is in use."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import ConfigurationError, UnknownSettingError
from agent.settings import Settings, mask_url


def test_defaults_are_the_embedded_backends_in_the_data_directory(tmp_path: Path) -> None:
    settings = Settings.load(environ={"AGENT_DATA_DIR": str(tmp_path)}, env_file=None)
    assert settings.resolved_checkpointer_url == f"sqlite:///{tmp_path / 'checkpoints.sqlite'}"
    assert settings.window == "messages"
    assert settings.max_messages == 20
    assert settings.model == "openai:gpt-4o-mini"


def test_environment_values_are_typed_and_applied() -> None:
    settings = Settings.load(
        environ={
            "AGENT_WINDOW": "tokens",
            "AGENT_MAX_TOKENS": "400",
            "AGENT_KEEP_TOOL_MESSAGES": "true",
            "AGENT_MODEL": "offline",
        },
        env_file=None,
    )
    assert (settings.window, settings.max_tokens) == ("tokens", 400)
    assert settings.keep_tool_messages is True


@pytest.mark.parametrize(
    ("misspelt", "suggestion"),
    [
        ("AGENT_MAX_MESAGES", "AGENT_MAX_MESSAGES"),
        ("AGENT_MAXMESSAGES", "AGENT_MAX_MESSAGES"),
        ("AGENT_WINDOW_SIZE", "AGENT_WINDOW"),
        ("AGENT_CHECKPOINT_URL", "AGENT_CHECKPOINTER_URL"),
    ],
)
def test_a_misspelt_environment_variable_is_rejected_with_the_closest_real_name(
    misspelt: str, suggestion: str
) -> None:
    with pytest.raises(UnknownSettingError) as error:
        Settings.load(environ={misspelt: "6"}, env_file=None)
    assert error.value.key == misspelt
    assert error.value.suggestion == suggestion
    assert f"Did you mean {suggestion}?" in str(error.value)


def test_a_misspelt_key_in_the_settings_file_is_rejected_naming_the_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("OPENAI_API_KEY=unrelated\nAGENT_MAX_MESSAGE=6\n")
    with pytest.raises(UnknownSettingError) as error:
        Settings.load(environ={}, env_file=env_file)
    assert "settings file" in str(error.value) and str(env_file) in str(error.value)
    assert error.value.suggestion == "AGENT_MAX_MESSAGES"


def test_the_settings_file_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("AGENT_MAX_MESSAGES=6\nAGENT_WINDOW=tokens\n")
    settings = Settings.load(environ={"AGENT_MAX_MESSAGES": "8"}, env_file=env_file)
    assert (settings.max_messages, settings.window) == (8, "tokens")


def test_an_invalid_value_names_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="AGENT_WINDOW"):
        Settings.load(environ={"AGENT_WINDOW": "tokenz"}, env_file=None)
    with pytest.raises(ConfigurationError, match="AGENT_MAX_MESSAGES"):
        Settings.load(environ={"AGENT_MAX_MESSAGES": "0"}, env_file=None)


def test_unrelated_variables_are_left_alone() -> None:
    Settings.load(environ={"OPENAI_API_KEY": "x", "AGENTS": "1", "PATH": "/bin"}, env_file=None)


def test_describe_names_every_backend_and_masks_passwords() -> None:
    settings = Settings(
        model="offline", checkpointer_url="postgresql://app:s3cret@db.example:5432/agent"
    )
    described = settings.describe()
    assert set(described) >= {"model", "checkpointer", "window", "long_term_store", "embeddings"}
    assert "s3cret" not in str(described)
    assert described["checkpointer"] == "postgresql://app:***@db.example:5432/agent"
    assert "NOT an LLM" in described["model"]


def test_mask_url_leaves_urls_without_a_password_unchanged() -> None:
    assert mask_url("redis://localhost:6379/0") == "redis://localhost:6379/0"
