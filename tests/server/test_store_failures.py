"""The server over a real SQLite file that fails under it: revoked tokens are refused, and a
locked database never stops a live game (moves flow, the end is announced; the record catches up
once the lock goes, and the restart rule settles the end it could not write)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from wsclient import Client, play_move, start_match

from arbiter.server import ServerConfig, run_server
from arbiter.server.recovery import resolve_interrupted
from arbiter.server.store.sqlite import SqliteStore

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


@pytest.fixture
async def tokens(tmp_path: Path) -> dict[str, str]:
    setup = SqliteStore(tmp_path / "a.db")
    await setup.open()
    try:
        tokens = {name: await setup.add_player(name, "bot") for name in ("alpha", "beta", "gone")}
        await setup.revoke_player("gone")
        return tokens
    finally:
        await setup.close()


async def test_revoked_and_unknown_tokens_are_refused(tmp_path: Path, tokens: dict[str, str]) -> None:
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "a.db")) as server:
        for token in (tokens["gone"], tokens["alpha"][:-2] + "xx", "arb_nothing.here"):
            client = await Client.connect(server.url, hello=False)
            reply = await client.request("hello", protocol=1, client="t/1", token=token)
            assert reply["type"] == "error" and reply["code"] == "auth_failed"
            assert (await client.wait_closed())[0] == 4001
        alpha = await Client.connect(server.url, token=tokens["alpha"])
        assert alpha.name == "alpha"
        await alpha.close()


async def test_a_locked_database_does_not_stop_a_live_game(tmp_path: Path, tokens: dict[str, str]) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path, busy_timeout=0.1)
    async with run_server(ServerConfig(port=0), store) as server:
        alpha = await Client.connect(server.url, token=tokens["alpha"])
        beta = await Client.connect(server.url, token=tokens["beta"])
        match = await start_match(alpha, beta, rated=True)
        await store.flush()
        locker = sqlite3.connect(path, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        for ply, move in enumerate(FIRST_WINS):
            moved = await play_move(alpha if ply % 2 == 0 else beta, match, ply, move)
            assert moved["type"] == "moved"
        end = await beta.expect("end", match=match)
        assert end["result"] == "1-0" and end["rating_changes"] == {}  # announced, though not recorded
        locker.execute("ROLLBACK")
        locker.close()
        await store.flush()  # the queued moves reach the file once the lock is gone
        record = await store.get_game(match)
        assert record is not None and len(record.moves) == 5 and record.result is None
        await alpha.close()
        await beta.close()
    reopened = SqliteStore(path)
    await reopened.open()
    try:
        assert await resolve_interrupted(reopened) == [(match, "1-0", "line")]  # the restart rule settles it
        assert (await reopened.get_rating("alpha", "tictactoe")).wins == 1
    finally:
        await reopened.close()
