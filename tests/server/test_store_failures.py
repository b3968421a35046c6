"""The server over a real SQLite file that fails under it: revoked tokens are refused, and a
locked database never stops a live game (moves flow, the end is announced; the record, result
and ratings catch up once the lock goes). An announced end is never lost, even when the server
restarts while the lock lasts: it is written with its reason and rated exactly once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arbiter.server import ServerConfig, run_server
from arbiter.server.results.recovery import resolve_interrupted
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match

PLAYERS = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "gone")

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


@pytest.fixture
async def tokens(tmp_path: Path) -> dict[str, str]:
    setup = SqliteStore(tmp_path / "a.db")
    await setup.open()
    try:
        tokens = {name: await setup.add_player(name, "bot") for name in PLAYERS}
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
        assert end["result"] == "1-0" and end["rating_changes"] == {}  # announced, though not recorded yet
        locker.execute("ROLLBACK")
        locker.close()
        await store.flush()  # the queued moves and the end reach the file once the lock is gone
        record = await store.get_game(match)
        assert record is not None and len(record.moves) == 5 and (record.result, record.reason) == ("1-0", "line")
        assert record.rating_changes["alpha"] > 0
        await alpha.close()
        await beta.close()
    reopened = SqliteStore(path)
    await reopened.open()
    try:
        assert await resolve_interrupted(reopened) == []  # nothing left for the restart rule
        alpha_rating = await reopened.get_rating("alpha", "tictactoe/bullet")
        assert (alpha_rating.games, alpha_rating.wins) == (1, 1)
    finally:
        await reopened.close()


async def test_announced_ends_survive_a_restart_while_the_database_is_locked(
    tmp_path: Path, tokens: dict[str, str]
) -> None:
    path = tmp_path / "a.db"
    first = SqliteStore(path, busy_timeout=0.1)
    async with run_server(ServerConfig(port=0), first) as server:
        c = {name: await Client.connect(server.url, token=tokens[name]) for name in PLAYERS[:6]}
        resigned = await start_match(c["alpha"], c["beta"], rated=True)
        await play_move(c["alpha"], resigned, 0, [1, 1])
        drawn = await start_match(c["gamma"], c["delta"], rated=True)
        flagged = await start_match(c["eps"], c["zeta"], rated=True, clock={"initial_ms": 2000, "increment_ms": 0})
        await first.flush()
        locker = sqlite3.connect(path, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")  # held from here until after the restart
        assert (await c["beta"].request("resign", match=resigned))["type"] == "ok"
        assert (await c["gamma"].request("offer_draw", match=drawn))["type"] == "ok"
        assert (await c["delta"].request("accept_draw", match=drawn))["type"] == "ok"
        announced = {}
        for match, watcher in ((resigned, "alpha"), (drawn, "gamma"), (flagged, "eps")):
            end = await c[watcher].expect("end", match=match, timeout=5)
            assert end["rating_changes"] == {}  # not written yet: no rating change known
            announced[match] = (end["result"], end["reason"])
        assert announced == {
            resigned: ("1-0", "resign"),
            drawn: ("1/2-1/2", "draw_agreed"),
            flagged: ("0-1", "timeout"),
        }
        assert locker.execute("SELECT count(*) FROM games WHERE ended IS NULL").fetchone() == (3,)
        for client in c.values():
            await client.close()

    second = SqliteStore(path, busy_timeout=0.1)
    async with run_server(ServerConfig(port=0), second) as server:  # the restart rule cannot write yet
        assert locker.execute("SELECT count(*) FROM games WHERE ended IS NULL").fetchone() == (3,)
        locker.execute("ROLLBACK")
        locker.close()
        await second.flush()  # the kept ends are retried and written
        viewer = await Client.connect(server.url, token=tokens["alpha"])
        board = await viewer.request("leaderboard", game="tictactoe")
        assert sorted((r["player"], r["games"], r["wins"], r["draws"], r["losses"]) for r in board["ratings"]) == [
            ("alpha", 1, 1, 0, 0), ("beta", 1, 0, 0, 1), ("delta", 1, 0, 1, 0),
            ("eps", 1, 0, 0, 1), ("gamma", 1, 0, 1, 0), ("zeta", 1, 1, 0, 0),
        ]  # fmt: skip
        await viewer.close()

    reader = sqlite3.connect(path)
    try:
        rows = reader.execute("SELECT match_id, result, reason FROM games WHERE ended IS NOT NULL").fetchall()
        assert {match: (result, reason) for match, result, reason in rows} == announced
        history = reader.execute("SELECT g.match_id, count(*) FROM rating_history h JOIN games g ON g.id = h.game_id"
                                 " GROUP BY g.match_id").fetchall()  # fmt: skip
        assert dict(history) == {match: 2 for match in announced}  # rated exactly once
    finally:
        reader.close()
    assert not second.ends_path.exists()
