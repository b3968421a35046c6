"""`arbiter up`: the real server and the three default bots as processes, then a clean stop."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import urllib.request
from pathlib import Path

import pytest
from wsclient import Client

from arbiter.stack.launcher import DEFAULT_BOTS, Launcher, UpSettings, workers_per_bot

DEFAULT_ACCOUNTS = {"alphabeta", "mcts", "minimax"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def read_until_up(process: asyncio.subprocess.Process) -> dict:
    assert process.stdout is not None
    async with asyncio.timeout(120):
        while True:
            line = await process.stdout.readline()
            assert line, "arbiter up exited before it was up"
            if line.startswith(b"{") and b"arbiter is up" in line:
                return json.loads(line)


def healthz(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
        return json.loads(response.read())


async def lobby_players(url: str) -> dict[str, dict]:
    client = await Client.connect(url)
    try:
        return {p["name"]: p for p in (await client.request("lobby"))["players"]}
    finally:
        await client.close()


@pytest.mark.slow
async def test_up_starts_server_and_bots_and_stops_cleanly(tmp_path: Path) -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arbiter.cli",
        "up",
        "--port",
        str(port),
        "--data",
        str(tmp_path / "data"),
        "--workers",
        "1",
        "--drain-timeout",
        "3",
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    try:
        announced = await read_until_up(process)
        assert announced["open"] == f"http://127.0.0.1:{port}/"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            assert response.status == 200
        async with asyncio.timeout(90):  # each bot warms its pool before it logs in
            while not set(players := await lobby_players(f"ws://127.0.0.1:{port}/")) >= DEFAULT_ACCOUNTS:
                await asyncio.sleep(0.5)
        assert all(players[name]["kind"] == "bot" for name in DEFAULT_ACCOUNTS)
        tokens = sorted(p.name for p in (tmp_path / "data" / "tokens").iterdir())
        assert tokens == sorted(f"{name}.token" for name in DEFAULT_ACCOUNTS)
        # A guest's game with the soccer bot is live when the stack is stopped: the bot cannot
        # finish it (the guest never answers), so it resigns within its part of the drain.
        guest = await Client.connect(f"ws://127.0.0.1:{port}/")
        created = await guest.request("challenge", to="minimax", game="paper_soccer",
                                      clock={"initial_ms": 120_000}, color="second")  # fmt: skip
        assert created["type"] == "challenge_created", created
        match = (await guest.expect("match_start", timeout=30))["match"]
        await guest.expect("moved", match=match, ply=0, timeout=30)
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
        async with asyncio.timeout(10):  # the launcher passes it on as one SIGTERM to each process
            while (await asyncio.to_thread(healthz, port))["status"] != "draining":
                await asyncio.sleep(0.05)
        refused = await guest.request("challenge", to="mcts", game="tictactoe", clock={"initial_ms": 60_000})
        assert refused["type"] == "error" and refused["code"] == "unavailable", refused
        end = await guest.expect("end", match=match, timeout=30)
        assert end["reason"] == "resign" and end["winner"] == 1, end
        async with asyncio.timeout(60):
            assert await process.wait() == 0
        await guest.close()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_up_names_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "arbiter.cli",
            "up",
            "--port",
            str(port),
            "--data",
            str(tmp_path / "data"),
            "--no-bots",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(60):
            _, stderr = await process.communicate()
    assert process.returncode != 0
    assert b"in use" in stderr


def test_the_cores_are_shared_among_the_bots() -> None:
    assert [workers_per_bot(3, cores) for cores in (1, 2, 3, 8, 16)] == [1, 1, 1, 2, 5]
    assert workers_per_bot(0, 4) == 4
    launcher = Launcher(UpSettings())
    arguments = launcher.bot_arguments(DEFAULT_BOTS[0])
    assert arguments[arguments.index("--workers") + 1] == str(workers_per_bot(len(DEFAULT_BOTS)))
    explicit = Launcher(UpSettings(workers=3)).bot_arguments(DEFAULT_BOTS[1])
    assert explicit[explicit.index("--workers") + 1] == "3"
