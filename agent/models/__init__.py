"""Chat models: one factory from a provider string, and the offline deterministic model."""

from agent.models.factory import build_chat_model
from agent.models.offline import OfflineChatModel

__all__ = ["OfflineChatModel", "build_chat_model"]
