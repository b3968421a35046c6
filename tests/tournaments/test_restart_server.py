"""A tournament set up with ``arbiter tournament create|start|show|list`` and played by a real
``arbiter serve`` process, killed (SIGKILL) mid-tournament and started again on the same SQLite file
and port: the bots come back, no decided game and no pairing is lost, the game the kill cut short
is voided and played again, and the tournament ends with standings that match the stored games."""

from __future__ import annotations

import asyncio
import json
import socket
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.bots.perfect import PerfectBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.cli import main
from arbiter.server.store.base import TournamentGame
from arbiter.server.store.sqlite import SqliteStore
from tests.support.serve_process import opened, start_server
from tests.support.store_check import assert_store_clean

pytestmark = pytest.mark.timeout(300)

BOTS = {"random": RandomBrain, "perfect": PerfectBrain, "mcts": MctsBrain, "random-2": RandomBrain}


async def cli(*args: str) -> Result:
    """``arbiter ARGS`` (in a thread: the command runs its own event loop)."""
    result = await asyncio.to_thread(CliRunner().invoke, main, list(args))
    assert result.exit_code == 0, result.output
    return result


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def games_of(db: Path) -> list[TournamentGame]:
    async with opened(db) as store:
        return await store.tournament_games("restart-4")


async def test_a_killed_server_loses_no_game_and_no_pairing(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    setup = SqliteStore(db)
    await setup.open()
    tokens = {name: await setup.add_player(name, "bot") for name in BOTS}
    await setup.close()
    players = [flag for name in BOTS for flag in ("--player", name)]
    await cli("tournament", "create", "restart-4", "--game", "tictactoe", "--clock", "3+0.1", "--double",
              "--concurrency", "2", "--grace", "60", "--seed", "5", *players, "--db", str(db))  # fmt: skip
    listed = await cli("tournament", "list", "--db", str(db))
    assert "restart-4" in listed.output and "open" in listed.output
    started = await cli("tournament", "start", "restart-4", "--db", str(db))
    assert "12 games paired" in started.stderr
    paired = await games_of(db)

    port = free_port()
    process, url = await start_server(db, "--port", str(port))
    settings = BotSettings(games=("tictactoe",), max_matches=1, ponder=False, backoff_max=0.5)
    async with AsyncExitStack() as stack:
        for name, brain in BOTS.items():
            pool = await stack.enter_async_context(BrainPool(brain, workers=1))
            await stack.enter_async_context(BotClient(url, token=tokens[name], pool=pool, settings=settings).running())
        try:
            async with asyncio.timeout(120):  # some games decided, one under way: then the kill
                while True:
                    now = await games_of(db)
                    if sum(g.score is not None for g in now) >= 3 and any(g.match_id and g.score is None for g in now):
                        break
                    await asyncio.sleep(0.05)
        finally:
            process.kill()
            await process.wait()
        before = await games_of(db)
        cut_short = {g.match_id for g in before if g.match_id is not None and g.score is None}
        process, url = await start_server(db, "--port", str(port))
        try:
            async with asyncio.timeout(200):
                while "finished" not in (await cli("tournament", "list", "--db", str(db))).output:
                    await asyncio.sleep(0.2)
        finally:
            process.terminate()
            assert await process.wait() == 0
    after = await games_of(db)
    strip = [(g.round, g.board, g.black, g.white, g.opening) for g in paired]
    assert [(g.round, g.board, g.black, g.white, g.opening) for g in after] == strip  # no pairing lost
    for old, new in zip(before, after, strict=True):
        if old.score is not None:
            assert new == old  # no decided game lost
    assert all(g.score is not None and g.forfeit is None for g in after)
    assert cut_short and not cut_short & {g.match_id for g in after}  # played again, under a new match
    points = dict.fromkeys(BOTS, 0.0)
    async with opened(db) as store:
        for match_id in cut_short:
            record = await store.get_game(match_id)
            assert record is not None and record.result is None and record.reason == "interrupted"
        for game in after:
            record = await store.get_game(game.match_id)  # type: ignore[arg-type]
            assert record is not None and record.result is not None
            score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[record.result]
            assert game.score == score
            points[game.black] += score
            points[game.white or ""] += 1 - score
    shown = json.loads((await cli("tournament", "show", "restart-4", "--json", "--db", str(db))).stdout)
    assert {row["name"]: row["points"] for row in shown["standings"]} == points
    await asyncio.to_thread(assert_store_clean, db)  # `arbiter check`: every game replays, every rating holds
