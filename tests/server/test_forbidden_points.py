"""Renju's forbidden points over sockets: `moved` and `match_state` carry black's forbidden points
(with why) to the players and the spectators when black is to move, and a forbidden move sent
anyway is refused and changes nothing."""

from __future__ import annotations

from tests.support.wsclient import play_move, start_match

# Black h8, g8, i9, i10 against white far away: i8 makes two open threes (a row, a column).
OPENING = [[7, 7], [0, 0], [6, 7], [0, 2], [8, 8], [0, 4], [8, 9], [14, 14]]
DOUBLE_THREE = {"move": [8, 7], "kind": "double-three"}


async def test_black_s_forbidden_points_come_with_the_move_before_its_turn(connect):
    black, white, watcher = await connect(), await connect(), await connect()
    match = await start_match(black, white, "renju")
    await watcher.request("spectate", match=match)
    for ply, move in enumerate(OPENING):
        moved = await play_move(black if ply % 2 == 0 else white, match, ply, move)
        assert ("forbidden" in moved) == (ply == len(OPENING) - 1), moved  # none before the double-three
    assert moved["forbidden"] == [DOUBLE_THREE]  # white's own echo
    for client in (black, watcher):
        assert (await client.expect("moved", match=match, ply=len(OPENING) - 1))["forbidden"] == [DOUBLE_THREE]
    assert (await black.request("sync", match=match))["forbidden"] == [DOUBLE_THREE]
    assert (await watcher.request("sync", match=match))["forbidden"] == [DOUBLE_THREE]

    refused = await black.request("move", match=match, ply=len(OPENING), move=[8, 7])
    assert refused["code"] == "illegal_move" and "forbidden for black (double-three)" in refused["message"]
    assert (await black.request("sync", match=match))["ply"] == len(OPENING)
    moved = await play_move(black, match, len(OPENING), [7, 9])
    assert "forbidden" not in moved  # white is to move: white has none
    assert "forbidden" not in await white.request("sync", match=match)


async def test_caro_and_gomoku_never_carry_forbidden_points(connect):
    for game in ("caro", "gomoku"):
        first, second = await connect(), await connect()
        match = await start_match(first, second, game)
        for ply, move in enumerate(OPENING):
            assert "forbidden" not in await play_move(first if ply % 2 == 0 else second, match, ply, move)
        assert "forbidden" not in await first.request("sync", match=match)
