"""Run the installed ``agent`` command in a clean environment: no AGENT_* leaks in."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

AGENT = str(Path(sys.executable).with_name("agent"))
RunAgent = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_agent(tmp_path: Path) -> RunAgent:
    """``run_agent("chat", "-m", "hi", env={...})``: each call is a new process."""
    workdir = tmp_path / "work"
    workdir.mkdir()

    def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None):  # type: ignore[no-untyped-def]
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_"))}
        clean.update({"AGENT_DATA_DIR": str(tmp_path / "data"), "AGENT_MODEL": "offline"})
        clean.update(env or {})
        return subprocess.run(
            [AGENT, *args],
            cwd=workdir,
            env=clean,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    return run
