"""Unauthenticated reads that cost the server: bounded parameters, exports paged and of finished
games only, the BayesElo fit kept between rated games, and a limit per client address."""

from __future__ import annotations

import asyncio
import http.client
import re
from pathlib import Path
from urllib.parse import urlsplit

from hypothesis import given
from hypothesis import strategies as st

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.net.http import BadQuery, int_param
from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameStart, MoveRecord, Store
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match

CLOCK = {"initial_ms": 60_000, "increment_ms": 1_000}  # the tictactoe/bullet pool
POOL = "tictactoe/bullet"
X_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


def get(url: str, source: str = "127.0.0.1") -> tuple[int, dict[str, str], str]:
    """Status, headers and body of a GET from the loopback address ``source``."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


async def fetch(server: RunningServer, path: str, source: str = "127.0.0.1") -> tuple[int, dict[str, str], str]:
    return await asyncio.to_thread(get, server.http_url + path, source)


async def stored(store: Store, match_id: str, started: float, result: str = "1-0", *, first: str = "alice",
                 second: str = "bob", rated: bool = True) -> None:  # fmt: skip
    """A finished game written through the store, as the server would have played it."""
    await store.start_game(GameStart(match_id, "tictactoe", {}, (first, second), CLOCK, rated, started))
    for ply, move in enumerate(X_WINS):
        store.record_move(match_id, MoveRecord(ply, move, 100))
    await store.finish_game(match_id, result, "line", started + 10, rate_result)


@given(st.one_of(st.text(max_size=30), st.integers(-(10**15), 10**15).map(str)))
def test_a_numeric_parameter_is_a_number_in_its_range_or_a_bad_query(text: str) -> None:
    try:
        value = int_param({"limit": text}, "limit", 50, 1, 1000)
    except BadQuery as error:
        assert str(error) == "limit must be a whole number from 1 to 1000"
    else:
        assert 1 <= value <= 1000 and value == int(text)


async def test_every_numeric_parameter_is_bounded(tmp_path: Path) -> None:
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "a.db")) as server:
        await stored(server.hub.store, "m0", 1000.0, rated=False)
        for path in ["/export?limit=-1", "/export?limit=0", "/export?limit=1001", "/export?limit=1e3",
                     "/export?limit=%2B5", "/games.json?limit=0", "/games.json?limit=501", "/games.json?limit=-1",
                     "/player.json?name=alice&games=0", "/player.json?name=alice&games=-5"]:  # fmt: skip
            status, _, body = await fetch(server, path)
            assert status == 400 and "must be a whole number from 1 to" in body, (path, status, body)
        assert (await fetch(server, "/export?limit=1"))[0] == 200
        assert (await fetch(server, "/games.json?limit=500"))[0] == 200


async def test_exports_page_back_with_after_and_hold_finished_games_only(tmp_path: Path) -> None:
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "a.db")) as server:
        for i in range(5):
            await stored(server.hub.store, f"m{i}", 1000.0 + i, rated=False)
        alice, bob = await Client.connect(server.url), await Client.connect(server.url)
        live = await start_match(alice, bob, "gomoku")
        await alice.send({"type": "move", "match": live, "ply": 0, "move": [7, 7], "info": {"score": 5, "unit": "cp"}})
        await bob.expect("moved", match=live, ply=0)
        await server.hub.store.flush()

        status, _, body = await fetch(server, f"/export?match={live}")
        assert status == 409 and "not over" in body  # its analysis is the opponent's only after the game
        pages, path = [], "/export?limit=2"
        while path:
            status, headers, body = await fetch(server, path)
            assert status == 200
            pages.append(re.findall(r'\[MatchId "(\w+)"\]', body))
            link = headers.get("Link")
            path = "" if link is None else re.fullmatch(r"<(.+)>; rel=\"next\"", link).group(1)  # type: ignore[union-attr]
        assert pages == [["m3", "m4"], ["m1", "m2"], ["m0"]]  # newest first, each page oldest first; no live game
        assert (await fetch(server, "/export?after=nope"))[0] == 404
        await asyncio.gather(alice.close(), bob.close())


def bayeselo_games(page: str) -> dict[str, int]:
    """The games each player's BayesElo row counts, from the /leaderboard page."""
    section = page.split("<h2>BayesElo</h2>")[1].split("<h2>Crosstable")[0]
    rows = re.findall(r"<tr><td>\d+\. ([^<]+)</td><td>[^<]*</td><td>[^<]*</td><td>(\d+)</td>", section)
    return {name: int(games) for name, games in rows}


async def test_the_bayeselo_fit_is_kept_until_a_rated_game_ends(tmp_path: Path) -> None:
    setup = SqliteStore(tmp_path / "a.db")
    await setup.open()
    tokens = {name: await setup.add_player(name, "bot") for name in ("alice", "bob")}
    await stored(setup, "m0", 1000.0)
    await setup.close()
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "a.db")) as server:
        page = f"/leaderboard?game=tictactoe&pool={POOL}"
        assert bayeselo_games((await fetch(server, page))[2]) == {"alice": 1, "bob": 1}
        await stored(server.hub.store, "m1", 2000.0, "0-1")  # behind the server's back: no rated game ended here
        assert bayeselo_games((await fetch(server, page))[2]) == {"alice": 1, "bob": 1}  # the fit made before

        alice, bob = [await Client.connect(server.url, token=tokens[name]) for name in ("alice", "bob")]
        match = await start_match(alice, bob, rated=True, clock=CLOCK)
        for ply, move in enumerate(X_WINS):
            await play_move(alice if ply % 2 == 0 else bob, match, ply, move)
        await alice.expect("end", match=match)
        for _ in range(100):  # the first request after the end starts a new fit and gets the last one
            if bayeselo_games((await fetch(server, page))[2]) == {"alice": 3, "bob": 3}:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the fit was never made again")
        await asyncio.gather(alice.close(), bob.close())


async def test_heavy_reads_are_limited_per_client_address() -> None:
    config = ServerConfig(port=0, heavy_reads_per_minute=1, heavy_reads_burst=3)
    async with run_server(config) as server:
        for path in ["/export", "/leaderboard.json", "/games.json"]:
            assert (await fetch(server, path))[0] == 200
        status, headers, body = await fetch(server, "/leaderboard?game=tictactoe")
        assert status == 429 and "too many requests" in body
        assert 1 <= int(headers["Retry-After"]) <= 60
        status, headers, body = await fetch(server, "/crosstable.json")
        assert status == 429 and headers["Content-Type"] == "application/json" and "error" in body
        assert (await fetch(server, "/healthz"))[0] == 200  # cheap routes are not counted
        assert (await fetch(server, "/export", source="127.0.0.2"))[0] == 200  # another address has its own
