"""A match's end survives a restart of the server (SPEC section 9), on a real ``arbiter serve`` and its store.

The winner's socket dies with its winning move or right after its ``moved``, so it never reads the
``end``; the server is killed (SIGKILL) or stopped (SIGTERM) before the winner is back. The server
that starts again on the same store has the match in no memory, yet after the winner's welcome the
``end`` comes from the store, with the live end's fields, exactly once: after its pong a second
reconnect gets nothing. A match a crash cut short ends by the restart rule (voided), and each
player hears that end after its next welcome the same way. A guest's resume token is refused then.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.serve_process import opened, serving, start_server
from tests.support.wsclient import Client, play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1]]  # then [0, 2]: the first column
WINNING = [0, 2]
NAMES = ("winner", "loser")


@contextlib.asynccontextmanager
async def running(db: str) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """A server process on ``db`` and its address; the block stops it (``stop``), else it is killed."""
    process, url = await start_server(db)
    try:
        yield process, url
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def stop(process: asyncio.subprocess.Process, how: str) -> None:
    if how == "kill":
        process.kill()  # no shutdown code runs
        assert await process.wait() == -signal.SIGKILL
    else:
        process.terminate()  # a drain, then a clean exit
        assert await process.wait() == 0


async def read_once(url: str, token: str, match: str) -> dict:
    """Reconnect: the match's ``end`` after the welcome, and never again (not before the pong, nor
    after a second reconnect)."""
    back = await Client.connect(url, token=token)
    try:
        assert back.welcome["resumed"] == []
        end = await back.expect("end", match=match)
        assert (await back.request("ping"))["type"] == "pong"
        assert back.pending("end") == []
    finally:
        await back.close()
    again = await Client.connect(url, token=token)
    try:
        assert (await again.request("ping"))["type"] == "pong"
        assert again.pending("end") == []
    finally:
        await again.close()
    return end


# Each point and each stop on SQLite; PostgreSQL after a kill.
CASES = [("sqlite", point, stopped) for point in ("with_move", "after_moved") for stopped in ("kill", "term")]
CASES += [("postgresql", point, "kill") for point in ("with_move", "after_moved")]


@pytest.mark.parametrize(("backend", "point", "stopped"), CASES)
async def test_an_end_lost_to_a_dying_socket_comes_after_a_restart_once(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str, point: str, stopped: str
) -> None:
    db = str(tmp_path / "arbiter.db") if backend == "sqlite" else request.getfixturevalue("postgres_url")
    async with opened(db) as setup:
        tokens = {name: await setup.add_player(name, "bot") for name in NAMES}
    async with running(db) as (process, url):
        winner = await Client.connect(url, token=tokens["winner"])
        loser = await Client.connect(url, token=tokens["loser"])
        match = await start_match(winner, loser, rated=True)
        for ply, move in enumerate(FIRST_WINS):
            assert (await play_move([winner, loser][ply % 2], match, ply, move))["type"] == "moved"
        await winner.expect("moved", match=match, ply=3)
        await winner.send({"type": "move", "match": match, "ply": 4, "move": WINNING})
        if point == "with_move":
            winner.ws.transport.close()  # FIN behind the move: the server reads the move, then the end is lost
        else:
            await winner.expect("moved", match=match, ply=4)
            winner.ws.transport.abort()  # RST
        live = await loser.expect("end", match=match)  # committed to the store before it was sent
        await loser.close()
        await stop(process, stopped)

    async with serving(db) as url:
        end = await read_once(url, tokens["winner"], match)
    assert (end["result"], end["winner"], end["reason"], end["ply"]) == ("1-0", 0, "line", 5)
    assert end["rating_changes"] == pytest.approx(live["rating_changes"]) and end["rating_changes"]["winner"] > 0
    # The clocks as the stored moves leave them: each move's thinking time is kept in whole milliseconds.
    assert all(abs(a - b) <= 5 for a, b in zip(end["clocks"], live["clocks"], strict=True))


async def test_a_match_a_crash_cut_short_ends_void_after_each_players_next_welcome(tmp_path: Path) -> None:
    db = str(tmp_path / "arbiter.db")
    async with opened(db) as setup:
        tokens = {name: await setup.add_player(name, "bot") for name in NAMES}
    async with running(db) as (process, url):
        clients = [await Client.connect(url, token=tokens[name]) for name in NAMES]
        guest = (await Client.connect(url)).welcome["resume_token"]
        match = await start_match(*clients, rated=True)
        for ply, move in enumerate(FIRST_WINS[:3]):
            assert (await play_move(clients[ply % 2], match, ply, move))["type"] == "moved"
        await clients[0].request("leaderboard", game="tictactoe")  # a read: the queued moves are written first
        await stop(process, "kill")

    async with serving(db) as url:
        for name in NAMES:
            end = await read_once(url, tokens[name], match)
            assert (end["result"], end["winner"], end["reason"], end["ply"]) == (None, None, "interrupted", 3)
            assert end["rating_changes"] == {}
        # A guest does not outlive its server: its resume token means nothing to the next one.
        stranger = await Client.connect(url, hello=False)
        hello = await stranger.request("hello", protocol=1, client="tests/1", token=guest)
        assert (hello["type"], hello["code"]) == ("error", "auth_failed")
        await stranger.close()
