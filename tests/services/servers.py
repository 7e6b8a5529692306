"""Start the real servers the integration tests need, on free local ports, and stop them.

- MongoDB: no MongoDB server installs on these machines, so the Atlas store is tested over a
  real pymongo connection against the mongoeco wire stand-in (see mongo_standin.py), run by a
  Python 3.13 virtual environment that :func:`prepare_mongo` builds in ``.services/``.

Every server binds 127.0.0.1 only, and every process started here is stopped by the caller
(the pytest session, or ``python -m tests.services``).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERVICES_DIR = REPO / ".services"
MONGO_VENV = SERVICES_DIR / "mongo-venv"
MONGO_PACKAGES = ("mongoeco==4.11.0", "pymongo>=4.10")
PYTHON_313_CANDIDATES = (
    str(Path.home() / ".pyenv" / "versions" / "3.13.0" / "bin" / "python3.13"),
    "/usr/bin/python3.13",
    "/usr/local/bin/python3.13",
)


class ServiceError(RuntimeError):
    """A test server could not be prepared or started; the message says what to do."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _python_313() -> str:
    for candidate in PYTHON_313_CANDIDATES:
        if Path(candidate).is_file():
            return candidate
    found = shutil.which("python3.13")
    if found and "/shims/" not in found:  # a pyenv shim may point at no installed version
        return found
    raise ServiceError("the MongoDB stand-in needs Python 3.13 (mongoeco); none was found")


def prepare_mongo() -> Path:
    """The stand-in's Python, with mongoeco installed (built once, then reused)."""
    python = MONGO_VENV / "bin" / "python"
    stamp = MONGO_VENV / ".installed"
    if stamp.is_file() and stamp.read_text() == " ".join(MONGO_PACKAGES):
        return python
    subprocess.run([_python_313(), "-m", "venv", "--clear", str(MONGO_VENV)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *MONGO_PACKAGES],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    stamp.write_text(" ".join(MONGO_PACKAGES))
    return python


@contextmanager
def mongo_standin(dimensions: int = 384) -> Iterator[str]:
    """A running stand-in; yields its mongodb:// URL."""
    python = prepare_mongo()
    port = free_port()
    script = Path(__file__).with_name("mongo_standin.py")
    log = SERVICES_DIR / "mongo-standin.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(python), str(script), str(port), str(dimensions)],
            stdout=subprocess.PIPE,
            stderr=out,
            start_new_session=True,
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode().strip()
        if not line.startswith("READY"):
            raise ServiceError(f"the MongoDB stand-in did not start: see {log}")
        yield f"mongodb://127.0.0.1:{port}/travel_agent_test?directConnection=true"
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.stdout is not None:
        process.stdout.close()
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise ServiceError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


if __name__ == "__main__":  # pragma: no cover - python tests/services/servers.py prepare
    if sys.argv[1:] == ["prepare"]:
        print(prepare_mongo())
    else:
        sys.exit("usage: servers.py prepare")
