"""kill -9 in the middle of a game (SQLite and PostgreSQL): reopening the store finds the
finished games and ratings intact and the interrupted game with every move that had been
flushed; and kill -9 after an end that could not be written (a locked SQLite file) was
announced: the end is found after the restart."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from store_helpers import TTT

from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.factory import store_for
from arbiter.server.store.sqlite import SqliteStore

WRITER = """
import asyncio, sys
from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameStart, MoveRecord
from arbiter.server.store.factory import store_for

async def main(db):
    store = store_for(db, flush_interval=0.01)
    await store.open()
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    for i in range(3):
        start = GameStart(f"done{i}", "tictactoe", {}, ("alice", "bob"), {"initial": 60}, True, float(i))
        await store.start_game(start)
        for ply in range(5):
            store.record_move(start.match_id, MoveRecord(ply, [ply, 0], 10))
        await store.finish_game(start.match_id, "1-0", "line", i + 0.5, rate_result)
    live = GameStart("live", "gomoku", {}, ("bob", "alice"), {"initial": 60}, True, 10.0)
    await store.start_game(live)
    for ply in range(40):
        store.record_move("live", MoveRecord(ply, [ply % 15, ply // 15], 3))
    await store.flush()
    print("flushed 40", flush=True)
    for ply in range(40, 60):  # may or may not reach the disk before the kill
        store.record_move("live", MoveRecord(ply, [ply % 15, ply // 15], 3))
    print("ready", flush=True)
    await asyncio.Event().wait()

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_sigkill_mid_game_loses_nothing_that_was_flushed(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    db = str(tmp_path / "a.db") if backend == "sqlite" else request.getfixturevalue("postgres_url")
    child = subprocess.Popen([sys.executable, "-c", WRITER, db], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "flushed 40"
        assert child.stdout.readline().strip() == "ready"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    store = store_for(db)
    await store.open()
    try:
        finished = await store.list_games(game="tictactoe")
        assert sorted(g.start.match_id for g in finished) == ["done0", "done1", "done2"]
        assert all(g.result == "1-0" and len(g.moves) == 5 for g in finished)
        alice = await store.get_rating("alice", TTT)
        assert (alice.games, alice.wins) == (3, 3) and alice.rating > 1500
        [live] = await store.interrupted_games()
        assert live.start.match_id == "live" and live.result is None
        plies = [m.ply for m in live.moves]
        assert 40 <= len(plies) <= 60 and plies == list(range(len(plies)))
    finally:
        await store.close()


ANNOUNCER = """
import asyncio, sys
from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameStart, StoreError
from arbiter.server.store.sqlite import SqliteStore

async def main(path):
    store = SqliteStore(path, busy_timeout=0.1)
    await store.open()
    await store.start_game(GameStart("m", "tictactoe", {}, ("alice", "bob"), {"initial": 60}, True, 1.0))
    await store.flush()
    print("started", flush=True)
    sys.stdin.readline()  # the parent locks the file meanwhile
    try:
        await store.finish_game("m", "0-1", "timeout", 2.0, rate_result)
    except StoreError:
        print("announced", flush=True)  # what the server does next: announce the end
    await asyncio.Event().wait()

asyncio.run(main(sys.argv[1]))
"""


async def test_sigkill_after_an_end_that_could_not_be_written_keeps_the_end(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path)
    await store.open()
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    await store.close()
    child = subprocess.Popen(
        [sys.executable, "-c", ANNOUNCER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    locker = sqlite3.connect(path, isolation_level=None)
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "started"
        locker.execute("BEGIN EXCLUSIVE")
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "announced"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    locker.execute("ROLLBACK")
    locker.close()

    store = SqliteStore(path)
    await store.open()
    try:
        [kept] = await store.interrupted_games()
        assert (kept.start.match_id, kept.result, kept.reason, kept.ended) == ("m", "0-1", "timeout", 2.0)
        changes = await store.finish_game("m", "0-1", "timeout", 2.0, rate_result)
        assert changes["bob"] > 0 > changes["alice"]
        assert await store.interrupted_games() == [] and not store.ends_path.exists()
        bob = await store.get_rating("bob", TTT)
        assert (bob.games, bob.wins) == (1, 1)
    finally:
        await store.close()
