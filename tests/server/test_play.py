"""Full games over real sockets: every registered game played to its end with engine-chosen moves."""

from __future__ import annotations

import pytest

from arbiter.engine import describe_games
from tests.support.wsclient import play_out, start_match

GAMES = [g["name"] for g in describe_games()]
SMALL = {"mnk": {"m": 5, "n": 5, "k": 4}}  # the bare family's defaults are a 15x15 board; keep it quick


@pytest.mark.parametrize("name", GAMES)
async def test_full_game_of_each_game(connect, store, name):
    first, second = await connect(), await connect()
    params = SMALL.get(name)
    match = await start_match(first, second, name, params=params)
    end = await play_out((first, second), match, name, params, seed=GAMES.index(name))
    record = await store.get_game(match)
    assert record is not None and record.result == end["result"] and record.reason == end["reason"]
    assert len(record.moves) == end["ply"]
    assert record.start.players == (first.name, second.name)


async def test_match_start_carries_everything(connect):
    first, second = await connect(), await connect()
    created = await first.request(
        "challenge", to=second.name, game="gomoku", params={"exact": True},
        clock={"initial_ms": 5000, "increment_ms": 100, "move_limit_ms": 3000}, color="second",
    )  # fmt: skip
    accepted = await second.request("accept", challenge=created["challenge"]["id"])
    start = await first.expect("match_start")
    assert start["match"] == accepted["match"]
    assert start["game"] == "gomoku" and start["params"] == {"m": 15, "n": 15, "k": 5, "exact": True, "opening": "none"}
    assert start["color"] == 1 and start["to_move"] == 0
    assert [p["name"] for p in start["players"]] == [second.name, first.name]
    assert start["clock"] == {"initial_ms": 5000, "increment_ms": 100, "move_limit_ms": 3000}
    assert start["clocks"] == [5000, 5000] and start["rated"] is False
    assert (await first.expect("challenge_closed"))["reason"] == "accepted"
