"""Slow requests never hold up a connection's moves, and keep their order among the others.

Over a real SQLite file that another process has locked, the store's one thread waits to write a move,
so a ``leaderboard`` read waits behind it; the same connection's moves in its live match are answered
meanwhile, its later lobby request waits its turn, and once the lock goes both are answered in order.
(server/arbiter/server/play/session.py: the session's lane.)
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arbiter.server import ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match


async def test_a_stalled_read_neither_blocks_moves_nor_loses_its_place(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    setup = SqliteStore(path)
    await setup.open()
    tokens = {name: await setup.add_player(name, "bot") for name in ("alpha", "beta")}
    await setup.close()
    store = SqliteStore(path, busy_timeout=30)
    async with run_server(ServerConfig(port=0), store) as server:
        alpha, beta = [await Client.connect(server.url, token=tokens[name]) for name in ("alpha", "beta")]
        match = await start_match(alpha, beta)
        await store.flush()
        locker = sqlite3.connect(path, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            assert (await play_move(alpha, match, 0, [0, 0]))["type"] == "moved"  # its write now waits
            await alpha.send({"type": "leaderboard", "id": "board", "game": "tictactoe"})
            await alpha.send({"type": "lobby", "id": "lobby"})
            for ply, move in enumerate([[1, 1], [0, 1], [2, 2]], start=1):  # moves flow while the read waits
                moved = await play_move(beta if ply % 2 else alpha, match, ply, move)
                assert moved["type"] == "moved", moved
            assert alpha.pending("leaderboard") == [] and alpha.pending("lobby_state") == []  # both still waiting
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        assert (await alpha.expect("lobby_state", re="lobby", timeout=40))["players"]
        assert [m["re"] for m in alpha.pending("leaderboard")] == ["board"]  # it came first, as it was asked
        for client in (alpha, beta):
            await client.close()
