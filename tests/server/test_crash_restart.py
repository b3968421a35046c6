"""kill -9 of a real ``arbiter serve`` mid-game, then a restart on the same database file:
the finished game and the ratings are intact, the interrupted game is voided with its moves."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import pytest

from arbiter.server.store.sqlite import SqliteStore
from tests.support.serve_process import serving, start_server
from tests.support.store_check import assert_store_clean
from tests.support.wsclient import Client, play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


async def moves_on_disk(db: Path, count: int) -> None:
    """Wait until the server's batched writes have put ``count`` moves in the file."""
    reader = sqlite3.connect(db)
    try:
        async with asyncio.timeout(10):
            while reader.execute("SELECT count(*) FROM moves").fetchone()[0] < count:
                await asyncio.sleep(0.02)
    finally:
        reader.close()


async def test_sigkill_mid_game_then_restart(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    setup = SqliteStore(db)
    await setup.open()
    tokens = {name: await setup.add_player(name, "bot") for name in ("alpha", "beta")}
    await setup.close()

    process, url = await start_server(db)
    try:
        alpha = await Client.connect(url, token=tokens["alpha"])
        beta = await Client.connect(url, token=tokens["beta"])
        finished = await start_match(alpha, beta, rated=True)
        for ply, move in enumerate(FIRST_WINS):
            await play_move(alpha if ply % 2 == 0 else beta, finished, ply, move)
        end = await alpha.expect("end", match=finished)
        assert end["rating_changes"]["alpha"] > 0
        cut = await start_match(beta, alpha, rated=True)
        for ply, move in enumerate(FIRST_WINS[:3]):
            await play_move(beta if ply % 2 == 0 else alpha, cut, ply, move)
        await moves_on_disk(db, len(FIRST_WINS) + 3)
        process.kill()  # SIGKILL: no shutdown code runs
        assert await process.wait() == -signal.SIGKILL
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()

    async with serving(db) as url:
        alpha = await Client.connect(url, token=tokens["alpha"])
        board = await alpha.request("leaderboard", game="tictactoe")
        assert {(r["player"], r["games"], r["wins"]) for r in board["ratings"]} == {("alpha", 1, 1), ("beta", 1, 0)}

    store = SqliteStore(db)
    await store.open()
    try:
        done, voided = await store.get_game(finished), await store.get_game(cut)
        assert done is not None and done.result == "1-0" and len(done.moves) == 5
        assert done.rating_changes["alpha"] == pytest.approx(end["rating_changes"]["alpha"])
        assert voided is not None and (voided.result, voided.reason) == (None, "interrupted")
        assert [m.move for m in voided.moves] == FIRST_WINS[:3] and voided.ended is not None
        assert await store.interrupted_games() == []
        assert (await store.get_rating("beta", "tictactoe/bullet")).games == 1
    finally:
        await store.close()
    await asyncio.to_thread(assert_store_clean, db)  # what a kill -9 and the restart rule left is consistent
