"""Full games over real sockets: every registered game played to its end with engine-chosen moves."""

from __future__ import annotations

import random

import pytest
from wsclient import Client, play_move, start_match

from arbiter.engine import State, create_game, describe_games

GAMES = [g["name"] for g in describe_games()]
SMALL = {"mnk": {"m": 5, "n": 5, "k": 4}}  # the bare family's defaults are a 15x15 board; keep it quick


def random_move(state: State, rng: random.Random) -> list:
    """A random legal whole move as its wire value, built action by action (a paper-soccer turn is
    several steps: keep stepping until the turn passes or the game ends)."""
    probe = state.copy()
    mover = probe.to_move
    plies = len(probe.moves())
    while True:
        probe.play_action(int(rng.choice(list(probe.legal_actions()))))
        if probe.is_terminal or probe.to_move != mover:
            break
    (move,) = probe.moves()[plies:]
    return state.game.encode_move(move)


async def play_out(players: tuple[Client, Client], match: str, name: str, params: dict | None, seed: int) -> dict:
    """Both clients play random legal moves until the end; returns the end message both received."""
    game = create_game(name, params)
    state = game.new_state()
    rng = random.Random(seed)
    ply = 0
    while not state.is_terminal:
        mover = players[state.to_move]
        wire = random_move(state, rng)
        moved = await play_move(mover, match, ply, wire)
        assert moved["type"] == "moved", moved
        assert moved["by"] == state.to_move and moved["move"] == wire and len(moved["clocks"]) == 2
        other = players[1 - state.to_move]
        assert (await other.expect("moved", match=match, ply=ply))["move"] == wire
        state.play(game.decode_move(wire))
        ply += 1
    ends = [await c.expect("end", match=match) for c in players]
    assert ends[0] == ends[1]
    outcome = state.outcome
    assert ends[0]["winner"] == outcome.winner and ends[0]["reason"] == outcome.reason
    assert ends[0]["result"] == outcome.result and ends[0]["ply"] == ply
    return ends[0]


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
    assert start["game"] == "gomoku" and start["params"] == {"m": 15, "n": 15, "k": 5, "exact": True}
    assert start["color"] == 1 and start["to_move"] == 0
    assert [p["name"] for p in start["players"]] == [second.name, first.name]
    assert start["clock"] == {"initial_ms": 5000, "increment_ms": 100, "move_limit_ms": 3000}
    assert start["clocks"] == [5000, 5000] and start["rated"] is False
    assert (await first.expect("challenge_closed"))["reason"] == "accepted"
