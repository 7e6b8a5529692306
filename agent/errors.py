"""Every exception the library raises on purpose, in one module.

Callers can catch :class:`AgentError` to handle anything this package reports, and the CLI
turns it into a one-line message and a non-zero exit code instead of a stack trace. Each error
names the thing that is wrong and, where there is one, what to do about it.
"""

from __future__ import annotations

from langchain_core.tools import ToolException


class AgentError(Exception):
    """Base class of every error this package raises deliberately."""


class ConfigurationError(AgentError):
    """A setting is missing, unknown, malformed or names something unusable."""


class UnknownSettingError(ConfigurationError):
    """An ``AGENT_*`` variable or settings-file key is not a known setting."""

    def __init__(self, key: str, source: str, suggestion: str | None) -> None:
        self.key = key
        self.source = source
        self.suggestion = suggestion
        hint = f" Did you mean {suggestion}?" if suggestion else ""
        super().__init__(f"Unknown setting {key} (from {source}).{hint}")


class MissingExtraError(ConfigurationError):
    """An optional backend was configured but its extra is not installed."""

    def __init__(self, what: str, extra: str, module: str) -> None:
        self.extra = extra
        super().__init__(
            f"{what} needs the '{extra}' extra (module {module!r} is not installed): "
            f"pip install 'travel-memory-agent[{extra}]'"
        )


class ProviderUnavailableError(ConfigurationError):
    """The configured model or embedding provider cannot be used as configured."""


class InvalidContextError(AgentError):
    """The per-run context (user id, conversation id) is missing or malformed."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        super().__init__(f"{field}: {problem}")


class MissingConversationIdError(InvalidContextError):
    """No conversation id was given: there is no shared default conversation."""

    def __init__(self) -> None:
        super().__init__(
            "conversation_id",
            "is required; every run must name its conversation (there is no shared default)",
        )


class InvalidMessageError(AgentError):
    """A user message is empty or otherwise unusable."""


class MessageTooLargeError(InvalidMessageError):
    """A user message is larger than the configured limit."""


class BackendUnavailableError(AgentError):
    """A configured backend (database, cache, store) cannot be reached or used."""


class ConversationNotFoundError(AgentError):
    """No such conversation for this user: missing, or someone else's (the two look alike)."""

    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        super().__init__(f"conversation {conversation_id} not found")


class ConversationBusyError(AgentError):
    """Another send to the same conversation is still running."""

    def __init__(self, conversation_id: str, waited: float) -> None:
        self.conversation_id = conversation_id
        super().__init__(
            f"conversation {conversation_id} is busy: another message to it is still being "
            f"answered (waited {waited:g} s); try again"
        )


class ToolInputError(AgentError, ToolException):
    """A tool was called with arguments it cannot serve (unknown city, past date, sold out).

    Tools report it to the model as the tool's result, so the model can correct itself; it
    never ends the run.
    """
