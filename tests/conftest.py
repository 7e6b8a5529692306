"""Shared fixtures: settings that never read the developer's environment, and agents on them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from langchain_core.tools import BaseTool

from agent.app import TravelAgent
from agent.messages import message_text
from agent.models import OfflineChatModel
from agent.prompts import SYSTEM_PROMPT
from agent.settings import Settings
from agent.tools import TravelDesk, build_travel_tools, open_travel_desk

AgentFactory = Callable[..., TravelAgent]


def days_ahead(days: int) -> str:
    """An ISO date ``days`` from today: tool tests stay valid whenever they run."""
    return (date.today() + timedelta(days=days)).isoformat()


@pytest.fixture
def desk(tmp_path: Path) -> Iterator[TravelDesk]:
    """A travel desk over a fresh bookings file."""
    with open_travel_desk(tmp_path / "bookings.sqlite") as travel_desk:
        yield travel_desk


@pytest.fixture
def tools(desk: TravelDesk) -> list[BaseTool]:
    return build_travel_tools(desk)


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    """Settings built in code (no environment, no .env): offline model, in-memory history."""

    def build(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "model": "offline",
            "data_dir": tmp_path / "data",
            "checkpointer_url": "memory://",
            "long_term_memory": False,
            "extraction": "inline",
        }
        values.update(overrides)
        return Settings(**values)

    return build


@pytest.fixture
def make_agent(make_settings: Callable[..., Settings]) -> Iterator[AgentFactory]:
    """Open TravelAgents on the offline model; each is closed when the test ends."""
    with ExitStack() as stack:

        def open_agent(**overrides: Any) -> TravelAgent:
            settings = make_settings(**overrides)
            return stack.enter_context(TravelAgent.open(settings, model=OfflineChatModel()))

        yield open_agent


def offline(agent: TravelAgent) -> OfflineChatModel:
    """The offline model inside an agent, to read the requests it was sent."""
    assert isinstance(agent.model, OfflineChatModel)
    return agent.model


def chat_requests(agent: TravelAgent) -> list[list[BaseMessage]]:
    """The requests of the conversation itself (not memory extraction or consolidation)."""
    return [
        request
        for request in offline(agent).requests
        if request and message_text(request[0]).startswith(SYSTEM_PROMPT)
    ]
