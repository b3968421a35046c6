"""Renju and caro over a real server: both are offered, and black's forbidden point is refused with
``illegal_move`` and a message naming the rule it breaks, the match going on unchanged."""

from __future__ import annotations

from tests.server.conftest import Connect
from tests.support.wsclient import play_move, start_match

# Black's (5, 7), (6, 7), (7, 5), (7, 6) against white's corners: (7, 7) would make two open threes.
DOUBLE_THREE = [[5, 7], [0, 0], [6, 7], [14, 0], [7, 5], [0, 14], [7, 6], [14, 14]]


async def test_renju_and_caro_are_offered(connect: Connect) -> None:
    games = {game["name"]: game for game in (await connect()).welcome["games"]}
    assert games["renju"]["family"] == games["caro"]["family"] == "five"
    assert games["caro"]["fixed"] == {"m": 15, "n": 15, "rule": "caro"}
    assert [p["name"] for p in games["caro"]["params"]] == ["exact", "opening"]


async def test_black_s_forbidden_point_is_refused_with_its_reason(connect: Connect) -> None:
    black, white = await connect(), await connect()
    match = await start_match(black, white, "renju")
    for ply, move in enumerate(DOUBLE_THREE):
        assert (await play_move(black if ply % 2 == 0 else white, match, ply, move))["type"] == "moved"
    refused = await play_move(black, match, len(DOUBLE_THREE), [7, 7])
    assert refused["type"] == "error" and refused["code"] == "illegal_move", refused
    assert refused["message"] == "h8 is forbidden for black (double-three)"
    assert (await play_move(black, match, len(DOUBLE_THREE), [8, 8]))["type"] == "moved"
