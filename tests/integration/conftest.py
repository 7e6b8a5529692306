"""Start real servers for integration tests; each test names the server it needs by marker."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.services.servers import mongo_standin, postgres_database, redis_stack, stop_process

REPO = Path(__file__).resolve().parents[2]
LANGGRAPH = str(Path(sys.executable).with_name("langgraph"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def langgraph_dev_server(env: dict[str, str], log_path: Path) -> Iterator[str]:
    """A real ``langgraph dev`` on a free port, serving this repository's langgraph.json.

    The dev server keeps its thread registry in ``./.langgraph_api`` and resolves the paths of
    langgraph.json from its working folder, so each server runs in the log's folder, laid out
    like the repository (langgraph.json, and links to agent/ and graphs/): servers started
    with the same folder share threads (a restart), other tests' servers do not.
    """
    workdir = log_path.parent
    for name in ("agent", "graphs"):
        if not (workdir / name).exists():
            (workdir / name).symlink_to(REPO / name, target_is_directory=True)
    shutil.copyfile(REPO / "langgraph.json", workdir / "langgraph.json")
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "OPENAI_"))}
    clean.update(env)
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [LANGGRAPH, "dev", "--no-browser", "--no-reload", "--port", str(port)],
            cwd=workdir,
            env=clean,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited: {log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"langgraph dev did not start: {log_path.read_text()[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        stop_process(process)


@pytest.fixture
def dev_server(tmp_path: Path) -> Callable[[dict[str, str | None]], object]:
    """``with dev_server({...env}) as url:`` — each call starts a fresh server process."""

    def start(env: dict[str, str | None]) -> object:
        """Values of None remove a variable the fixture would otherwise set."""
        base: dict[str, str | None] = {
            "AGENT_MODEL": "offline",
            "AGENT_DATA_DIR": str(tmp_path / "data"),
            "AGENT_AUTH": "dev",
        }
        merged = {k: v for k, v in {**base, **env}.items() if v is not None}
        return langgraph_dev_server(merged, tmp_path / "langgraph-dev.log")

    return start


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh database on a real PostgreSQL server, dropped after the session."""
    with postgres_database() as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis Stack server (RediSearch + RedisJSON) on a free port."""
    with redis_stack() as url:
        yield url


@pytest.fixture(scope="session")
def mongo_url() -> Iterator[str]:
    """The MongoDB wire stand-in (mongoeco) with the vector index created."""
    with mongo_standin() as url:
        yield url


@pytest.fixture(scope="session")
def plain_redis_url() -> Iterator[str]:
    """A Redis server without RediSearch and RedisJSON, like a stock Redis 7."""
    with redis_stack(modules=False) as url:
        yield url
