"""Every failed start ends in one actionable line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.server import ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore

ARBITER = [sys.executable, "-m", "arbiter.cli"]


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARBITER, *args], capture_output=True, text=True, timeout=timeout, check=False)


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result
    assert "Traceback" not in result.stderr, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("arbiter: error: "), result.stderr
    return last


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_bot_with_no_server_at_the_address_says_so() -> None:
    port = _free_port()
    line = _one_line_error(_run("bot", "random", "--server", f"ws://127.0.0.1:{port}/", "--token", "x",
                                "--workers", "1"))  # fmt: skip
    assert f"cannot reach the server at ws://127.0.0.1:{port}/ (connection refused)" in line


async def test_a_bot_with_a_bad_token_says_so() -> None:
    async with run_server(ServerConfig(port=0, warm_engine=False), MemoryStore()) as server:
        result = await asyncio.to_thread(_run, "bot", "random", "--server", server.url, "--token", "not-a-token",
                                  "--workers", "1")  # fmt: skip
    assert "auth_failed" in _one_line_error(result)


def test_a_server_on_a_port_in_use_says_so() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _one_line_error(_run("serve", "--port", str(port), "--db", ":memory:", "--no-warm"))
    assert f"cannot listen on 127.0.0.1:{port}" in line and "in use" in line


@pytest.mark.parametrize("where", ["missing-folder/arbiter.db", "a-folder"])
def test_a_server_whose_database_cannot_be_opened_says_so(tmp_path: Path, where: str) -> None:
    (tmp_path / "a-folder").mkdir()
    line = _one_line_error(_run("serve", "--port", "0", "--db", str(tmp_path / where), "--no-warm"))
    assert str(tmp_path / where) in line


@pytest.mark.parametrize(
    ("option", "message"),
    [("speed=3", "unknown option 'speed'"), ("depth=0", "depth must be"), ("depth", "--option takes key=value")],
)
def test_a_bad_brain_option_is_named_before_anything_starts(option: str, message: str) -> None:
    line = _one_line_error(_run("bot", "gomoku", "--server", "ws://127.0.0.1:9/", "--token", "x", "--option", option))
    assert message in line
