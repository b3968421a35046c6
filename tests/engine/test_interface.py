"""Every registered game honours the one shared interface, whatever its rules."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import msgpack
import numpy as np
import pytest

from arbiter.engine import (
    EngineError,
    IllegalMove,
    MoveFormatError,
    create_game,
    decode_state,
    describe_games,
    game_names,
)
from arbiter.engine.base import STATUS_ONGOING
from arbiter.engine.ops import playouts

ALL_GAMES = game_names()


def random_game(name: str, seed: int):
    """Play a random game to its end through the move-level interface; return the state."""
    game = create_game(name)
    state = game.new_state()
    rng = random.Random(seed)
    while not state.is_terminal and state.ply < 400:
        start = state.copy()
        while True:  # build one whole move from random actions (several for paper soccer)
            start.play_action(int(rng.choice(list(start.legal_actions()))))
            if start.is_terminal or start.to_move != state.to_move:
                break
        state.play(start.moves()[-1])
    return state


@pytest.mark.parametrize("name", ALL_GAMES)
def test_random_games_end_with_an_outcome_and_round_trip(name: str) -> None:
    state = random_game(name, seed=7)
    assert state.is_terminal
    outcome = state.outcome
    assert outcome is not None and outcome.result in ("1-0", "0-1", "1/2-1/2")
    wire = msgpack.unpackb(msgpack.packb(state.encode()), raw=False)
    replayed = decode_state(wire)
    assert np.array_equal(replayed.s, state.s)
    assert replayed.key() == state.key()


@pytest.mark.parametrize("name", ALL_GAMES)
def test_moves_survive_wire_and_text(name: str) -> None:
    game = create_game(name)
    state = random_game(name, seed=3)
    for move in state.moves():
        assert game.decode_move(msgpack.unpackb(msgpack.packb(game.encode_move(move)))) == move
        assert game.move_from_text(game.move_to_text(move)) == move


@pytest.mark.parametrize("name", ALL_GAMES)
def test_undo_of_whole_moves_restores_the_start(name: str) -> None:
    state = random_game(name, seed=11)
    start = create_game(name).new_state()
    for _ in range(len(state.moves())):
        state.undo()
    assert np.array_equal(state.s, start.s)
    with pytest.raises(IllegalMove):
        state.undo()


@pytest.mark.parametrize("name", ALL_GAMES)
@pytest.mark.parametrize("garbage", [None, "e4", 3, [], [99], [1.5, 2], [True, 0], {"x": 1}, [-1, 0], [10**9, 0]])
def test_malformed_moves_are_refused_without_change(name: str, garbage: object) -> None:
    game = create_game(name)
    state = game.new_state()
    before = state.s.copy()
    with pytest.raises(EngineError):
        state.play(game.decode_move(garbage))
    assert np.array_equal(state.s, before)


@pytest.mark.parametrize("name", ALL_GAMES)
def test_a_finished_game_takes_no_more_moves(name: str) -> None:
    state = random_game(name, seed=5)
    before = state.s.copy()
    with pytest.raises(IllegalMove):
        state.play(state.moves()[0])
    assert len(state.legal_actions()) == 0
    assert np.array_equal(state.s, before)


@pytest.mark.parametrize("name", ALL_GAMES)
def test_kernel_playouts_from_the_start_end_the_game(name: str) -> None:
    game = create_game(name)
    start = game.new_state().s
    buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    tally = playouts(game.gid, game.param_array, start, 50, np.empty_like(start), buffer, 42)
    assert tally.sum() == 50
    assert start[2] == STATUS_ONGOING  # the start position itself is untouched


def test_describe_games_lists_every_game_with_defaults() -> None:
    described = {g["name"]: g for g in describe_games()}
    assert set(described) == set(game_names())
    assert {"renju", "caro", "five"} <= set(described)
    assert described["renju"]["fixed"] == {"m": 15, "n": 15, "rule": "renju", "exact": False}
    gomoku = described["gomoku"]
    assert gomoku["fixed"] == {"m": 15, "n": 15, "k": 5}
    assert [p["name"] for p in gomoku["params"]] == ["exact", "opening"]
    msgpack.packb(describe_games())  # plain values only


def test_move_format_errors_name_the_problem() -> None:
    with pytest.raises(MoveFormatError, match="off the 3x3 board"):
        create_game("tictactoe").decode_move([3, 0])


@pytest.mark.parametrize(
    "args",
    [
        ["perft", "checkers", "2"],
        ["perft", "mnk", "2", "-p", "k=99"],
        ["perft", "mnk", "2", "-p", "k"],
        ["perft", "tictactoe", "-1"],
        ["bench", "nope"],
    ],
)
def test_cli_rejects_bad_input_with_exit_code_2(args: list[str]) -> None:
    result = subprocess.run([sys.executable, "-m", "arbiter.cli", *args], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip(), "an error message is printed"


def test_cli_perft_prints_the_count_last() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "perft", "tictactoe", "9"], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "127872"


def test_cli_options_read_their_environment_variable() -> None:
    env = {**os.environ, "ARBITER_PERFT_PARAMS": "m=3 n=3 k=3"}
    result = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "perft", "mnk", "1"], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0 and result.stdout.strip() == "9"
    flag_wins = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "perft", "mnk", "1", "-p", "m=4", "-p", "n=4", "-p", "k=4"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert flag_wins.stdout.strip() == "16"
    bad = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "perft", "mnk", "1"],
        capture_output=True,
        text=True,
        env={**env, "ARBITER_PERFT_PARAMS": "k=99"},
    )
    assert bad.returncode == 2 and "'k'" in bad.stderr
