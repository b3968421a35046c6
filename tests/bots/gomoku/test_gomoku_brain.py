"""The Brain contract: which games, levels and options, legal moves only, the clock, reproducibility."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.brain import LEVELS, GomokuBrain, GomokuOptionError
from arbiter.bots.registry import brain_class
from arbiter.engine import create_game

MIDGAME = [[7, 7], [8, 8], [7, 8], [7, 9], [6, 9], [8, 7], [9, 6], [6, 7], [8, 9], [9, 9], [5, 8], [9, 10]]


def request(
    moves: list, *, game: str = "gomoku", params: dict | None = None, budget: float = 1.0, **kw
) -> ThinkRequest:
    return ThinkRequest("match", game, params or {}, moves, budget=budget, **kw)


def test_registered_under_its_name() -> None:
    assert brain_class("gomoku") is GomokuBrain


@pytest.mark.parametrize(
    ("name", "params", "plays"),
    [
        ("gomoku", {}, True),
        ("gomoku", {"exact": True}, True),
        ("gomoku10", {}, True),
        ("tictactoe4", {}, True),
        ("mnk", {"m": 9, "n": 6, "k": 4}, True),
        ("mnk", {"m": 19, "n": 19, "k": 6, "exact": True}, True),
        ("tictactoe", {}, False),
        ("mnk", {"m": 8, "n": 8, "k": 3}, False),
    ],
)
def test_plays_five_in_a_row_families_with_k_at_least_four(name: str, params: dict, plays: bool) -> None:
    assert GomokuBrain.plays(create_game(name, params)) is plays


@pytest.mark.parametrize(
    ("level", "options"),
    [
        (0, {}),
        (len(LEVELS) + 1, {}),
        (True, {}),
        (len(LEVELS), {"width": 3}),
        (len(LEVELS), {"depth": 0}),
        (len(LEVELS), {"depth": 61}),
        (len(LEVELS), {"depth": "4"}),
        (len(LEVELS), {"depth": True}),
        (len(LEVELS), {"nodes": 0}),
        (len(LEVELS), {"nodes": 2.5}),
        (len(LEVELS), {"time": 0}),
        (len(LEVELS), {"time": -1.0}),
        (len(LEVELS), {"time": "1"}),
    ],
)
def test_bad_levels_and_options_are_refused(level, options: dict) -> None:
    with pytest.raises(GomokuOptionError, match="gomoku: "):
        GomokuBrain(level, **options)


def test_a_bad_option_in_a_request_is_refused_too() -> None:
    with pytest.raises(GomokuOptionError, match="depth"):
        GomokuBrain().think(request(MIDGAME, options={"depth": -2}))


def test_refuses_games_it_does_not_play_and_finished_games() -> None:
    with pytest.raises(ValueError, match="does not play"):
        GomokuBrain().think(request([[1, 1]], game="tictactoe"))
    five = [[x, 0] if i % 2 == 0 else [x, 5] for i, x in enumerate([0, 0, 1, 1, 2, 2, 3, 3, 4])]
    with pytest.raises(ValueError, match="over"):
        GomokuBrain().think(request(five))


def legal(name: str, params: dict, moves: list, move: list) -> bool:
    state = create_game(name, params).new_state()
    for m in moves:
        state.play(tuple(m))
    return tuple(move) in state.legal_moves()


BOARDS = [("gomoku", {}), ("gomoku", {"exact": True}), ("gomoku10", {}), ("mnk", {"m": 7, "n": 6, "k": 4})]


@settings(derandomize=True, max_examples=30, deadline=None)
@given(board=st.sampled_from(BOARDS), level=st.sampled_from(sorted(LEVELS)), data=st.data())
def test_every_move_is_legal(board: tuple[str, dict], level: int, data) -> None:
    name, params = board
    game = create_game(name, params)
    state = game.new_state()
    for _ in range(data.draw(st.integers(0, 30), label="plies")):
        moves = state.legal_moves()
        if not moves:
            break
        state.play(data.draw(st.sampled_from(moves), label="move"))
        if state.is_terminal:
            state.undo()
            break
    wire = [game.encode_move(m) for m in state.moves()]
    result = GomokuBrain(level, nodes=3000).think(request(wire, game=name, params=params, budget=0.3))
    assert legal(name, params, wire, result.move)


def test_a_full_board_but_one_cell_gets_that_cell() -> None:
    pattern = ["XOX.", "XOXO", "OXOX", "OXOX"]  # no four in a row anywhere; O to fill d1
    xs = [[x, y] for y, row in enumerate(pattern) for x, v in enumerate(row) if v == "X"]
    os = [[x, y] for y, row in enumerate(pattern) for x, v in enumerate(row) if v == "O"]
    moves = [m for pair in zip(xs, os, strict=False) for m in pair] + xs[len(os) :]
    result = GomokuBrain().think(request(moves, game="tictactoe4", budget=0.5))
    assert result.move == [3, 0]


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_same_request_same_move(level: int) -> None:
    options = {} if level == 1 else {"nodes": 20_000}
    first = GomokuBrain(level, **options).think(request(MIDGAME, seed=7))
    again = GomokuBrain(level, **options).think(request(MIDGAME, seed=7))
    assert first.move == again.move
    assert {k: v for k, v in first.info.items() if k not in ("seconds", "nps")} == {
        k: v for k, v in again.info.items() if k not in ("seconds", "nps")
    }


def test_the_seed_varies_the_choice_among_equals() -> None:
    moves = {tuple(GomokuBrain(1).think(request([[7, 7]], seed=seed)).move) for seed in range(12)}
    assert len(moves) > 1


@pytest.mark.parametrize("budget", [0.05, 0.3])
def test_full_strength_answers_within_its_budget(budget: float) -> None:
    """CPU time, not wall time: a busy machine may pause the search, but never makes it search longer."""
    brain = GomokuBrain()
    brain.think(request(MIDGAME[:-2], budget=0.05))  # first use loads the kernels and builds the tables
    began = time.process_time()
    result = brain.think(request(MIDGAME, budget=budget))
    assert time.process_time() - began < budget
    assert result.info["depth"] >= 2
    assert {"depth", "seldepth", "nodes", "score", "nps", "pv", "reason"} <= set(result.info)


def test_explicit_depth_nodes_and_time_bound_the_search() -> None:
    assert GomokuBrain(depth=3).think(request(MIDGAME)).info["depth"] == 3
    nodes = GomokuBrain(nodes=5_000).think(request(MIDGAME)).info["nodes"]
    assert nodes <= 5_000 + 1024  # the kernel looks at its limits every 1024 nodes
    began = time.process_time()
    GomokuBrain(time=0.1).think(request(MIDGAME, budget=10.0))
    assert time.process_time() - began < 0.15  # CPU time: the limit, and one look at the clock past it


def test_warm_up_compiles_without_a_request() -> None:
    GomokuBrain().warm_up()
