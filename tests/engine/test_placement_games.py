"""What the placement games (m,n,k, cube tic-tac-toe, vanishing tic-tac-toe) are held to alike, once for all of
them: perft counts against frozen tables, from the start and from the middle game, and the pure-Python
reference against the same tables; the kernels against the reference move by move; undo back to the exact
array. ``divide`` and ``game_outcomes`` on tic-tac-toe.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import create_game
from arbiter.engine.base import REASON, STATUS_ONGOING
from arbiter.engine.perft import divide, game_outcomes, perft
from arbiter.engine.reference import reference_state

TICTACTOE_PERFT = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
# 4x4, depth 8: no game ends before ply 7; at ply 7 the first player's four stones form one of the
# 10 lines in 10 * 4! * (12 * 11 * 10) = 316,800 sequences, so perft(8) = (16!/9! - 316,800) * 9.
TICTACTOE4_PERFT_8 = (57_657_600 - 316_800) * 9
# Vanishing from six stones, the first player to move, with ply_limit=20, repetition=2: three moves
# a ply; the first repetitions end games at ply 14 (depth 8), so from depth 9 the counts fall below
# those without the rule (11,043 at depth 9); every sequence ends at ply 20 (depth 14).
VANISHING_MID = [(1, 1), (0, 0), (2, 0), (0, 2), (0, 1), (2, 1)]

# (game, params, moves played first, the table, how deep the reference is checked: its counts are
# slow). Computed with the reference (minutes for the deepest) and frozen. Cube tic-tac-toe from the
# start cannot end before ply 2n - 1, so those count placements only; the mid-game tables reach the
# wins. Vanishing up to depth 7 is plain tic-tac-toe; from the 7th ply on three cells are always free.
TABLES: list[tuple[str, dict[str, Any], list[tuple[int, ...]], list[int], int]] = [
    ("tictactoe", {}, [], TICTACTOE_PERFT, 4),
    ("tictactoe4", {}, [], [16, 240, 3360, 43680, 524160], 3),
    ("gomoku10", {}, [], [100, 9900, 970200], 2),
    ("mnk", {"m": 4, "n": 3, "k": 3}, [], [12, 132, 1320, 11880, 95040, 622944, 3499200], 5),
    ("ttt3d", {"n": 3}, [], [27, 702, 17550, 421200], 2),
    ("qubic", {}, [], [64, 4032, 249984], 2),
    (
        "ttt3d",
        {"n": 3},
        [(1, 1, 1), (0, 0, 0), (2, 2, 2), (0, 0, 1), (1, 0, 0), (2, 1, 1)],
        [21, 400, 7239, 114012, 1755352],
        3,
    ),
    (
        "qubic",
        {},
        [(0, 0, 0), (1, 0, 0), (1, 1, 1), (2, 0, 0), (2, 2, 2), (0, 1, 0), (3, 0, 3), (1, 2, 0)],
        [56, 3025, 163350, 8494416],
        0,
    ),
    ("vanishing", {}, [], [9, 72, 504, 3024, 15120, 54720, 148176, 396576, 1059984, 2830752], 3),
    (
        "vanishing",
        {"ply_limit": 20, "repetition": 2},
        VANISHING_MID,
        [3, 9, 27, 81, 225, 585, 1563, 4125, 11025, 29928, 81702, 222456, 599040, 1590126, 0],
        9,
    ),
]
# Rules and sizes for whole random games (vanishing has its own, which seek its repetitions: test_vanishing.py).
GAMES = [
    ("tictactoe", {}),
    ("tictactoe4", {}),
    ("gomoku10", {}),
    ("gomoku", {}),
    ("gomoku", {"exact": True}),
    ("mnk", {"m": 5, "n": 4, "k": 3}),
    ("mnk", {"m": 6, "n": 6, "k": 4, "exact": True}),
    ("mnk", {"m": 7, "n": 3, "k": 3}),
    ("ttt3d", {"n": 3}),
    ("ttt3d", {"n": 4}),
    ("ttt3d", {"n": 5}),
    ("ttt3d", {"n": 7}),
]
CASES = [pytest.param(*case, id=f"{case[0]}{case[1] or ''}{'-mid' if case[2] else ''}") for case in TABLES]


def reference_perft(state: Any, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for action in state.legal_actions():
        child = copy.deepcopy(state)
        child.play(action)
        total += reference_perft(child, depth - 1)
    return total


@pytest.mark.parametrize(("name", "params", "moves", "table", "reference_depth"), CASES)
def test_perft_tables(name: str, params: dict, moves: list, table: list[int], reference_depth: int) -> None:
    state = create_game(name, params).new_state()
    for move in moves:
        state.play(move)
    assert [perft(state, d) for d in range(1, len(table) + 1)] == table


@pytest.mark.parametrize(("name", "params", "moves", "table", "reference_depth"), CASES)
def test_reference_agrees_with_frozen_tables(
    name: str, params: dict, moves: list, table: list[int], reference_depth: int
) -> None:
    game = create_game(name, params)
    reference = reference_state(game)
    for move in moves:
        reference.play(game.new_state()._move_to_actions(move)[0])
    assert [reference_perft(reference, d) for d in range(1, reference_depth + 1)] == table[:reference_depth]


@settings(max_examples=120, derandomize=True, deadline=None)
@given(case=st.sampled_from(GAMES[:-1]), seed=st.integers(0, 2**32 - 1))
def test_kernels_match_reference(case: tuple[str, dict], seed: int) -> None:
    game = create_game(*case)
    state, reference = game.new_state(), reference_state(game)
    rng = random.Random(seed)
    while True:
        assert list(state.legal_actions()) == reference.legal_actions()
        assert (state.to_move, state.status, int(state.s[REASON])) == (
            reference.to_move,
            reference.status,
            reference.reason,
        )
        if reference.status != STATUS_ONGOING:
            break
        action = rng.choice(reference.legal_actions())
        state.play(state._action_to_move(action))
        reference.play(action)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(case=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_undo_restores_exactly_and_keys_follow_positions(case: tuple[str, dict], seed: int) -> None:
    state = create_game(*case).new_state()
    rng = random.Random(seed)
    snapshots = [state.s.copy()]
    while not state.is_terminal:
        state.play(rng.choice(state.legal_moves()))
        snapshots.append(state.s.copy())
    for snapshot in reversed(snapshots[:-1]):
        state.undo()
        assert np.array_equal(state.s, snapshot)
    assert state.key() == 0


def test_tictactoe4_perft_where_the_first_wins_appear() -> None:
    assert perft(create_game("tictactoe4").new_state(), 8) == TICTACTOE4_PERFT_8


def test_divide_sums_to_perft() -> None:
    state = create_game("tictactoe").new_state()
    rows = divide(state, 4)
    assert len(rows) == 9
    assert sum(count for _, count in rows) == TICTACTOE_PERFT[3]


def test_tictactoe_complete_games() -> None:
    state = create_game("tictactoe").new_state()
    assert game_outcomes(state, 9) == (131184, 77904, 46080)
