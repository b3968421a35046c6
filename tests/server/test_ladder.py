"""The ladder over real sockets with a real SQLite store: join, automatic rated pairing, rating
changes in the end message, alternating colours, standings over the protocol and over HTTP."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner

from arbiter.cli import main
from arbiter.server import RunningServer, ServerConfig
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.config import LadderConfig, parse_ladder_clock
from arbiter.server.results.records import parse_records
from arbiter.server.store.sqlite import SqliteStore
from tests.support.store_check import assert_store_clean
from tests.support.wsclient import Client, play_move

BOTS = ("alpha", "beta", "gamma")
FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]  # tic-tac-toe: the first player's column


@pytest.fixture
def config() -> ServerConfig:
    ladder = LadderConfig(window=1000.0, rematch_after_s=0.0, retry_s=0.05, seed=7)  # one game moves ratings ~160
    return ServerConfig(port=0, reconnect_grace_s=2.0, ladder=ladder)


@pytest.fixture
async def tokens(tmp_path: Path) -> dict[str, str]:
    setup = SqliteStore(tmp_path / "ladder.db")
    await setup.open()
    try:
        return {name: await setup.add_player(name, "bot") for name in BOTS}
    finally:
        await setup.close()


@pytest.fixture
def store(tmp_path: Path, tokens: dict[str, str]) -> SqliteStore:
    return SqliteStore(tmp_path / "ladder.db")


@pytest.fixture(autouse=True)
def checked_when_the_server_stops(tmp_path: Path) -> Iterator[None]:
    """Set up before the server, so torn down after it: `arbiter check` finds the games it stored clean."""
    yield
    if (tmp_path / "ladder.db").exists():
        assert_store_clean(tmp_path / "ladder.db")


async def join(client: Client, game: str = "tictactoe", **fields: Any) -> dict[str, Any]:
    reply = await client.request("ladder_join", game=game, **fields)
    assert reply["type"] == "ladder_joined", reply
    return reply


async def play_ladder_game(clients: dict[str, Client]) -> tuple[list[str], dict[str, Any]]:
    """Both clients get match_start; the first player wins with a column. (first, second), end."""
    starts = {name: await client.expect("match_start") for name, client in clients.items()}
    assert all(start["challenge"] is None for start in starts.values())  # the ladder's, not a challenge's
    [start] = {s["match"]: s for s in starts.values()}.values()
    assert start["rated"] is True and start["clock"] == {
        "initial_ms": 10_000,
        "increment_ms": 200,
        "move_limit_ms": None,
    }
    order = [p["name"] for p in start["players"]]
    for ply, move in enumerate(FIRST_WINS):
        moved = await play_move(clients[order[ply % 2]], start["match"], ply, move)
        assert moved["type"] == "moved", moved
    ends = [await clients[name].expect("end", match=start["match"]) for name in order]
    return order, ends[0]


async def test_two_bots_are_paired_rated_and_paired_again(connect, tokens, store) -> None:
    clients = {name: await connect(token=tokens[name]) for name in BOTS[:2]}
    joined = await join(clients["alpha"])
    assert joined["rating"]["rating"] == 1500 and joined["rating"]["provisional"] and joined["waiting"] == 1
    await join(clients["beta"])
    order, end = await play_ladder_game(clients)
    assert end["result"] == "1-0" and end["reason"] == "line"
    assert end["rating_changes"][order[0]] > 0 > end["rating_changes"][order[1]]
    # They stay in the queue: paired again at once, colours swapped.
    order_again, _ = await play_ladder_game(clients)
    assert order_again == order[::-1]
    board = await clients["alpha"].request("leaderboard", game="tictactoe")
    assert sorted((r["player"], r["games"], r["wins"], r["losses"]) for r in board["ratings"]) == [
        ("alpha", 2, 1, 1),
        ("beta", 2, 1, 1),
    ]
    table = await clients["beta"].request("crosstable", game="tictactoe")
    assert table["table"] == {"alpha": {"beta": [1, 0, 1]}, "beta": {"alpha": [1, 0, 1]}}


async def test_leaving_stops_pairing_and_bad_requests_are_refused(connect, tokens) -> None:
    alpha = await connect(token=tokens["alpha"])
    beta = await connect(token=tokens["beta"])
    guest = await connect()
    refused = await guest.request("ladder_join", game="tictactoe")
    assert refused["type"] == "error" and refused["code"] == "rated_needs_account"
    unknown = await alpha.request("ladder_join", game="chess")
    assert unknown["type"] == "error" and unknown["code"] == "unknown_game"
    too_many = await alpha.request("ladder_join", game="tictactoe", max_matches=0)
    assert too_many["type"] == "error" and too_many["code"] == "bad_field"
    await join(alpha)
    assert (await alpha.request("ladder_leave", game="tictactoe"))["type"] == "ok"
    assert (await alpha.request("ladder_leave", game="tictactoe"))["type"] == "ok"  # idempotent
    await join(beta)
    await asyncio.sleep(0.2)  # several pairing rounds (retry_s = 0.05): nobody to play
    assert not alpha.pending("match_start") and not beta.pending("match_start")


async def test_a_bot_may_play_several_ladder_matches_at_once(connect, tokens) -> None:
    clients = {name: await connect(token=tokens[name]) for name in BOTS}
    await join(clients["alpha"], max_matches=2)
    await join(clients["beta"])
    await join(clients["gamma"])
    starts = [await clients["alpha"].expect("match_start") for _ in range(2)]
    opponents = {p["name"] for s in starts for p in s["players"]} - {"alpha"}
    assert opponents == {"beta", "gamma"}


async def test_a_bots_capacity_bounds_its_ladder_matches_across_games(connect, tokens, server: RunningServer) -> None:
    """Announced in hello: one match at a time, though it joined two ladders and asked for two in one."""
    alpha = await connect(token=tokens["alpha"], capacity=1)
    others = [await connect(token=tokens[name]) for name in ("beta", "gamma")]
    for game in ("tictactoe", "tictactoe4"):
        await join(alpha, game, max_matches=2)
        for client in others:
            await join(client, game)
    await alpha.expect("match_start")
    await asyncio.sleep(0.3)  # several pairing rounds (retry_s = 0.05): others could pair alpha again
    assert alpha.pending("match_start") == []
    assert len(server.hub.roster.get("alpha").matches) == 1


def http_get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


async def test_standings_and_records_over_http(connect, tokens, server: RunningServer) -> None:
    clients = {name: await connect(token=tokens[name]) for name in BOTS[:2]}
    await join(clients["alpha"])
    await join(clients["beta"])
    order, end = await play_ladder_game(clients)
    await clients["alpha"].request("ladder_leave", game="tictactoe")
    await clients["beta"].request("ladder_leave", game="tictactoe")
    base = server.http_url

    status, kind, body = await asyncio.to_thread(http_get, f"{base}/leaderboard.json?game=tictactoe")
    assert status == 200 and kind.startswith("application/json")
    ratings = json.loads(body)["ratings"]
    assert [r["player"] for r in ratings] == order and ratings[0]["wins"] == 1
    status, _, body = await asyncio.to_thread(http_get, f"{base}/crosstable.json?game=tictactoe")
    assert json.loads(body)["table"][order[0]][order[1]] == [1, 0, 0]
    status, kind, body = await asyncio.to_thread(http_get, f"{base}/leaderboard?game=tictactoe")
    assert status == 200 and kind.startswith("text/html") and order[0] in body and "Crosstable" in body
    status, kind, body = await asyncio.to_thread(http_get, f"{base}/export?game=tictactoe")
    assert status == 200 and kind.startswith("text/plain")
    [record] = parse_records(body)  # finished games only (they may have been paired again before they left)
    assert record.start.players == tuple(order) and record.result == "1-0" and len(record.moves) == 5
    assert record.rating_changes[order[0]] == pytest.approx(end["rating_changes"][order[0]], abs=0.01)
    status, _, body = await asyncio.to_thread(http_get, f"{base}/leaderboard.json")  # no game: one with ratings
    assert status == 200 and json.loads(body)["game"] == "tictactoe" and json.loads(body)["ratings"]
    for path, expected in [("/leaderboard.json?game=chess", 404), ("/crosstable.json?game=tictactoe&pool=x", 404),
                           ("/export?game=chess", 404), ("/export?limit=x", 400)]:  # fmt: skip
        assert (await asyncio.to_thread(http_get, base + path))[0] == expected, path


async def test_the_leaderboard_names_the_pool_a_games_rules_would_be_rated_in(server: RunningServer) -> None:
    """The lobby asks with the rules and clock it would play (lobby.js): the server names the pool (pools.py)."""

    def pool(query: dict[str, str]) -> tuple[int, str]:
        status, _, body = http_get(f"{server.http_url}/leaderboard.json?{urlencode({'game': 'gomoku', **query})}")
        answer = json.loads(body)
        return status, answer["pool"] if status == 200 else answer["error"]

    blitz = {"initial_ms": "300000", "increment_ms": "3000"}
    bullet = {"initial_ms": "60000", "increment_ms": "1000"}
    assert await asyncio.to_thread(pool, {"params": '{"m": 15, "exact": false}', **blitz}) == (200, "gomoku/blitz")
    assert await asyncio.to_thread(pool, {"params": '{"exact": true}', **bullet}) == (200, "gomoku[exact=true]/bullet")
    assert await asyncio.to_thread(pool, {"initial_ms": "1800000"}) == (200, "gomoku/classical")
    bad_queries = [({"params": "{", **blitz}, "params is not JSON"), ({"params": "[1]", **blitz}, "JSON object"),
                   ({"params": '{"k": 99}', **blitz}, "params: "), ({"initial_ms": "soon"}, "initial_ms")]  # fmt: skip
    for bad, says in bad_queries:
        status, error = await asyncio.to_thread(pool, bad)
        assert status == 400 and says in error, (bad, error)


def test_ladder_clocks_parse_and_bad_ones_are_refused() -> None:
    assert parse_ladder_clock("gomoku=60+1") == ("gomoku", ClockSpec(60_000, 1_000))
    assert parse_ladder_clock("tictactoe=5.5") == ("tictactoe", ClockSpec(5_500, 0))
    assert parse_ladder_clock("gomoku=30+0.5/5") == ("gomoku", ClockSpec(30_000, 500, 5_000))
    for bad in ["gomoku", "chess=60+1", "gomoku=fast", "gomoku=0+1", "gomoku=60+-1", "gomoku=60+1/0"]:
        with pytest.raises(ValueError, match=r"gomoku|chess"):
            parse_ladder_clock(bad)
    result = CliRunner().invoke(main, ["serve", "--db", ":memory:", "--ladder-clock", "chess=60+1"])
    assert result.exit_code == 2 and "--ladder-clock 'chess=60+1'" in result.stderr


async def test_a_player_who_joins_while_the_cluster_counts_are_read_waits_for_the_next_pass(
    connect, tokens, server: RunningServer
) -> None:
    """A cluster's pairing reads each member's live matches on every node (an await), then pairs.
    A player who joined during that read was not counted: it must not be taken as free (it may be
    playing on another node), only paired at the next pass, which its join started. Here the
    cluster's count is this test's: beta plays a match elsewhere until the third read."""
    elsewhere = {"beta": 1}
    reads: list[tuple[list[str], int]] = []  # (names asked, live matches here) at each read
    first_read, release = asyncio.Event(), asyncio.Event()

    async def live_matches_of(names: list[str]) -> dict[str, int]:
        reads.append((names, len(server.hub.matches.live)))
        if len(reads) == 1:
            first_read.set()
            await release.wait()  # beta joins meanwhile
        if len(reads) == 3:
            elsewhere["beta"] = 0  # its other match is over
        return {name: elsewhere.get(name, 0) for name in names}

    server.hub.ladder.live_matches_of = live_matches_of
    alpha, beta = [await connect(token=tokens[name]) for name in ("alpha", "beta")]
    await join(alpha)
    await first_read.wait()
    await join(beta)
    release.set()
    start = await alpha.expect("match_start")
    assert {p["name"] for p in start["players"]} == {"alpha", "beta"}
    assert reads[0] == (["alpha"], 0)
    assert reads[1] == (["alpha", "beta"], 0)  # the first pass paired nobody: beta was not counted
    assert reads[2] == (["alpha", "beta"], 0)  # paired once beta was free
    await beta.expect("match_start")
    assert (await alpha.request("resign", match=start["match"]))["type"] == "ok"
