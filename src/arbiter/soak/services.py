"""Real PostgreSQL and Redis servers (and an HAProxy) for the tests and the benchmarks, started from Debian's packages
on free loopback ports in temporary folders, and stopped after.

PostgreSQL refuses to run as root, so when the tests run as root (CI containers) its programs
run as the ``postgres`` user that Debian's package creates (``Popen(user=…)``, no wrapper).
Readiness is read from each server's own log line ("ready to accept connections"), not polled.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

SUPERUSER = "arbiter"
PASSWORD = "arbiter-test-password"
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def postgres_bin(name: str) -> str:
    """A PostgreSQL server program: on PATH, else in Debian's versioned folder."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), reverse=True)
    for folder in versions:
        if (folder / name).exists():
            return str(folder / name)
    raise RuntimeError(f"{name} not found: run scripts/install-system-deps --test (installs postgresql)")


def _server_user() -> dict[str, object]:
    """Popen's arguments that run PostgreSQL's programs as a user it accepts."""
    if os.geteuid() != 0:
        return {}
    pwd.getpwnam("postgres")  # KeyError: Debian's postgresql package was not installed
    return {"user": "postgres", "group": "postgres", "extra_groups": []}


def _keep_reading(process: subprocess.Popen[str]) -> None:
    """Keep reading a server's log so a full pipe never blocks it."""
    assert process.stdout is not None
    threading.Thread(target=process.stdout.read, daemon=True).start()


def _wait_for_line(process: subprocess.Popen[str], sign: str, what: str) -> None:
    """Read the server's log until ``sign``; RuntimeError with the log if it exits first."""
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if sign in line:
            return
    process.wait(timeout=START_TIMEOUT)
    raise RuntimeError(f"{what} did not start (exit {process.returncode}):\n" + "".join(lines[-30:]))


class PostgresServer:
    """``postgres`` on 127.0.0.1:port with password authentication; ``url(db)`` for a database.

    Tests run it with fsync off (they kill clients, never the machine); ``durable=True`` keeps
    PostgreSQL's defaults, for benchmarks that compare it with SQLite's synchronous=FULL."""

    def __init__(self, *, durable: bool = False) -> None:
        self.durable = durable
        self.folder = Path(tempfile.mkdtemp(prefix="arbiter-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.process: subprocess.Popen[str] | None = None
        self._user = _server_user()
        if self._user:
            shutil.chown(self.folder, "postgres", "postgres")
        password_file = self.folder / "password"
        password_file.write_text(PASSWORD)
        if self._user:
            shutil.chown(password_file, "postgres", "postgres")
        subprocess.run(
            [postgres_bin("initdb"), "-D", str(self.data), "-U", SUPERUSER, f"--pwfile={password_file}",
             "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"],
            check=True, capture_output=True, text=True, **self._user,  # type: ignore[call-overload]
        )  # fmt: skip

    def start(self) -> None:
        self.process = subprocess.Popen(
            [postgres_bin("postgres"), "-D", str(self.data), "-p", str(self.port),
             "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
             "-c", f"fsync={'on' if self.durable else 'off'}", "-c", "max_connections=300"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
            **self._user,  # type: ignore[call-overload]
        )  # fmt: skip
        _wait_for_line(self.process, "ready to accept connections", "PostgreSQL")
        _keep_reading(self.process)

    def stop(self) -> None:
        """A fast shutdown (SIGINT): sessions are ended, everything committed is kept."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=START_TIMEOUT)
        self.process = None

    def url(self, database: str = "postgres", *, user: str = SUPERUSER, password: str = PASSWORD) -> str:
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def sql(self, statement: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(statement)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


class RedisServer:
    """``redis-server`` on 127.0.0.1:port, nothing saved to disk; ``options`` go to its command line
    (ACL users: ``--user NAME on >PASSWORD …``)."""

    def __init__(self, *options: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="arbiter-redis-"))
        self.port = free_port()
        self.options = options
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server not found: run scripts/install-system-deps --test (installs redis-server)")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--protected-mode", "yes", *self.options],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        _wait_for_line(self.process, "Ready to accept connections", "Redis")
        _keep_reading(self.process)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def flush(self) -> None:
        """Empty every database (a fresh cluster on the same server)."""
        import redis  # the client library, only where a test or benchmark drives Redis

        with redis.Redis.from_url(self.url) as client:
            client.flushall()

    def restart(self) -> None:
        """Stop and start again on the same port, empty (as a Redis without persistence comes back)."""
        assert self.process is not None
        self.process.terminate()
        self.process.wait(timeout=START_TIMEOUT)
        self.start()

    def remove(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=START_TIMEOUT)
            self.process = None
        shutil.rmtree(self.folder, ignore_errors=True)


class HAProxy:
    """HAProxy running the project's own deploy/haproxy.cfg in front of two nodes, on a free port."""

    CONFIG = Path(__file__).resolve().parents[3] / "deploy" / "haproxy.cfg"

    def __init__(self, node1: str, node2: str) -> None:
        self.port = free_port()
        self.nodes = (node1, node2)
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not os.access(binary, os.X_OK):
            raise RuntimeError("haproxy not found: run scripts/install-system-deps --test (installs haproxy)")
        env = {**os.environ, "PROXY_LISTEN": f"127.0.0.1:{self.port}",
               "PROXY_NODE1": self.nodes[0], "PROXY_NODE2": self.nodes[1]}  # fmt: skip
        self.process = subprocess.Popen(
            [binary, "-db", "-f", str(self.CONFIG)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, start_new_session=True,
        )  # fmt: skip
        _keep_reading(self.process)
        deadline = time.monotonic() + START_TIMEOUT
        while True:  # HAProxy says nothing when it listens: its port answering is the sign
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"haproxy did not start (exit {self.process.poll()})")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def remove(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=START_TIMEOUT)
            self.process = None


@contextlib.contextmanager
def postgres(*, durable: bool = False) -> Iterator[PostgresServer]:
    server = PostgresServer(durable=durable)
    try:
        server.start()
        yield server
    finally:
        server.remove()


@contextlib.contextmanager
def redis() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        server.start()
        yield server
    finally:
        server.remove()
