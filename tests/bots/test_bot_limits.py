"""``arbiter bot --depth/--time/--nodes``: a real bot process bounds its searches by them, as its own
game record shows; conflicting or unknown limits are refused before anything starts."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from bot_process import BotProcess

from arbiter.server import RunningServer, ServerConfig, run_server
from tests.support.wsclient import Client, play_move

pytestmark = pytest.mark.timeout(120)

CLOCK = {"initial_ms": 120_000, "increment_ms": 0}


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0)) as running:
        yield running


def within_depth_and_nodes(info: dict[str, Any]) -> bool:
    return info["depth"] <= 2 and info["nodes"] <= 400 + 1024  # the node limit is checked every 1024 nodes


def within_time(info: dict[str, Any]) -> bool:
    return info["seconds"] < 0.5  # the 120 s clock alone gives a move several seconds


@pytest.mark.parametrize(
    ("flags", "within"),
    [(["--depth", "2", "--nodes", "400"], within_depth_and_nodes), (["--time", "0.05"], within_time)],
    ids=["depth-nodes", "time"],
)
async def test_limit_flags_bound_every_search(
    server: RunningServer, tmp_path: Path, flags: list[str], within: Callable[[dict[str, Any]], bool]
) -> None:
    log = tmp_path / "games.jsonl"
    bot = await BotProcess.start(
        server, tmp_path, "shallow", *flags, "--game-log", str(log), brain="gomoku", games="gomoku10"
    )
    try:
        await bot.logged('"connected"')
        assert server.hub.roster.get("shallow").capacity == 1  # announced: its one worker (--capacity's default)
        human = await Client.connect(server.url, token=await server.hub.store.add_player("tester", "human"))
        created = await human.request("challenge", to="shallow", game="gomoku10", clock=CLOCK, color="first")
        assert created["type"] == "challenge_created", created
        match = (await human.expect("match_start"))["match"]
        taken: list[list[int]] = []
        for ply in (0, 2):  # two stones side by side: the bot has something to think about
            cell = next(c for c in ([4, 4], [5, 4], [3, 4], [4, 5]) if c not in taken)
            moved = await play_move(human, match, ply, cell)
            assert moved["type"] == "moved", moved
            reply = await human.expect("moved", match=match, ply=ply + 1)
            taken += [cell, reply["move"]]
        await human.request("resign", match=match)
        await human.expect("end", match=match)
        bot.process.send_signal(signal.SIGTERM)  # the record is written by the time it exits
        assert await bot.exit_code() == 0
        record = json.loads(log.read_text().splitlines()[-1])
        searched = [d["info"] for d in record["decisions"] if d["info"].get("reason") == "search"]
        assert searched, record["decisions"]
        assert all(within(info) for info in searched), searched
        await human.close()
    finally:
        bot.kill()


@pytest.mark.parametrize(
    ("brain", "flags", "message"),
    [
        ("gomoku", ["--depth", "3", "--option", "depth=4"], "--depth and --option depth=... both given"),
        ("soccer", ["--nodes", "5"], "arbiter: error: soccer: unknown option 'nodes'; known: depth, heuristic"),
        ("random", ["--depth", "3"], "arbiter: error: random: unknown option 'depth'; known: none"),
        ("perfect", ["--time", "1"], "arbiter: error: perfect: unknown option 'time'; known: none"),
        ("gomoku", ["--time", "0"], "Invalid value for '--time'"),
    ],
)
def test_conflicting_or_unknown_limits_are_refused(brain: str, flags: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "bot", brain, "--server", "ws://127.0.0.1:9/", "--token", "x", *flags],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and message in done.stderr, done.stderr
