"""Cube tic-tac-toe: wins along all 13 directions, the full-cube draw, the text notation, bad parameters
(perft, the kernels against the reference and undo: test_placement_games.py)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from arbiter.engine import IllegalMove, MoveFormatError, ParamError, create_game
from arbiter.engine.base import (
    REASON,
    REASON_BOARD_FULL,
    REASON_LINE,
    STATUS_DRAW,
    STATUS_ONGOING,
    STATUS_WIN0,
    STATUS_WIN1,
)
from arbiter.engine.ops import playouts
from arbiter.engine.reference import reference_state
from arbiter.engine.reference.ttt3d import cube_lines

DIRECTIONS = [d for d in itertools.product((-1, 0, 1), repeat=3) if d > (0, 0, 0)]


def play_moves(state, moves) -> None:
    for move in moves:
        state.play(move)


def full_line(n: int, direction: tuple[int, int, int], fixed: int) -> list[tuple[int, int, int]]:
    """The line along ``direction`` across the whole cube; axes the direction does not move along
    sit at ``fixed``."""
    start = [0 if d == 1 else n - 1 if d == -1 else fixed for d in direction]
    return [tuple(c + i * d for c, d in zip(start, direction, strict=True)) for i in range(n)]


@pytest.mark.parametrize("n", [3, 4, 7])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_a_full_line_wins_in_each_of_the_13_directions(n: int, direction: tuple[int, int, int]) -> None:
    game = create_game("ttt3d", {"n": n})
    line = full_line(n, direction, fixed=n // 2)
    state = game.new_state()
    assert frozenset(state._move_to_actions(cell)[0] for cell in line) in cube_lines(n)
    fillers = (cell for cell in itertools.product(range(n), repeat=3) if cell not in line)
    for cell in line[:-1]:
        state.play(cell)
        state.play(next(fillers))
    assert state.status == STATUS_ONGOING
    state.play(line[-1])
    assert (state.status, int(state.s[REASON])) == (STATUS_WIN0, REASON_LINE)


def test_space_diagonals_of_qubic_win() -> None:
    for line, other in (
        ([(i, i, i) for i in range(4)], [(1, 0, 0), (2, 0, 0), (3, 0, 0)]),
        ([(3 - i, i, i) for i in range(4)], [(0, 0, 0), (1, 0, 0), (2, 0, 0)]),
    ):
        state = create_game("qubic").new_state()
        for cell, reply in zip(line, other, strict=False):
            state.play(cell)
            state.play(reply)
        assert state.status == STATUS_ONGOING
        state.play(line[-1])
        assert state.status == STATUS_WIN0


def test_a_run_that_does_not_cross_the_cube_does_not_win() -> None:
    state = create_game("qubic").new_state()
    # The first player's diagonal b1:1 c2:2 d3:3 is three long; the second completes a pillar.
    play_moves(state, [(1, 0, 0), (0, 3, 0), (2, 1, 1), (0, 3, 1), (3, 2, 2), (0, 3, 2), (0, 0, 3), (0, 3, 3)])
    assert (state.status, int(state.s[REASON])) == (STATUS_WIN1, REASON_LINE)
    state.undo()
    assert state.status == STATUS_ONGOING


def test_a_full_cube_without_a_line_is_a_draw() -> None:
    """Random games on 7×7×7 end in a draw about one time in sixteen: take the first seed that does
    and check that the reference agrees move by move."""
    game = create_game("ttt3d", {"n": 7})
    for seed in range(200):
        rng = random.Random(seed)
        state = game.new_state()
        while not state.is_terminal:
            state.play_action(int(rng.choice(state.legal_actions())))
        if state.status == STATUS_DRAW:
            break
    assert (state.status, int(state.s[REASON]), state.ply) == (STATUS_DRAW, REASON_BOARD_FULL, 343)
    reference = reference_state(game)
    for move in state.moves():
        assert reference.status == STATUS_ONGOING
        reference.play(state._move_to_actions(move)[0])
    assert (reference.status, reference.reason) == (STATUS_DRAW, REASON_BOARD_FULL)


def test_illegal_moves_leave_the_state_unchanged() -> None:
    state = create_game("ttt3d").new_state()
    state.play((1, 1, 1))
    before = state.s.copy()
    with pytest.raises(IllegalMove):
        state.play((1, 1, 1))
    with pytest.raises(MoveFormatError):
        state.play((1, 1, 3))
    with pytest.raises(MoveFormatError):
        state.play((1, 1))
    assert np.array_equal(state.s, before)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("ttt3d", {"n": 1}, "at least 3"),
        ("ttt3d", {"n": 2}, "at least 3"),
        ("ttt3d", {"n": 8}, "at most 7"),
        ("ttt3d", {"n": 100}, "at most 7"),
        ("ttt3d", {"n": "four"}, "integer"),
        ("ttt3d", {"m": 3}, "unknown parameter"),
        ("qubic", {"n": 3}, "fixes n=4"),
    ],
)
def test_bad_parameters_are_refused(name: str, params: dict, message: str) -> None:
    with pytest.raises(ParamError, match=message):
        create_game(name, params)


def test_moves_actions_wire_and_text() -> None:
    game = create_game("qubic")
    state = game.new_state()
    assert state._move_to_actions((1, 2, 3)) == [3 * 16 + 2 * 4 + 1]
    assert state._action_to_move(3 * 16 + 2 * 4 + 1) == (1, 2, 3)
    assert game.move_to_text((1, 2, 3)) == "b3:4"
    assert game.move_from_text(" B3:4 ") == (1, 2, 3)
    assert game.decode_move([3, 3, 3]) == (3, 3, 3)
    for bad in ("b3", "b3:", "b3:0", "b3:5", "e1:1", "3b:1", "b3:x", ":1"):
        with pytest.raises(MoveFormatError):
            game.move_from_text(bad)
    for bad in ([4, 0, 0], [0, 0], [0, 0, 0, 0], [0, 0, -1]):
        with pytest.raises(MoveFormatError):
            game.decode_move(bad)


def test_diagram_shows_the_layers_side_by_side() -> None:
    state = create_game("ttt3d").new_state()
    play_moves(state, [(1, 1, 1), (0, 0, 2)])
    assert state.diagram().splitlines() == [
        " layer 1     layer 2     layer 3",
        "    a b c       a b c       a b c",
        "  1 . . .     1 . . .     1 O . .",
        "  2 . . .     2 . X .     2 . . .",
        "  3 . . .     3 . . .     3 . . .",
    ]


def test_kernel_playouts_follow_the_reference_distribution() -> None:
    """The shuffled-cells playout must pick moves as uniformly as a fresh random choice each ply."""
    game = create_game("ttt3d")
    start = game.new_state().s
    tally = playouts(game.gid, game.param_array, start, 4000, np.empty_like(start), np.empty(27, np.int64), 5)
    assert not start.any() and tally[2] == 0  # 3×3×3 cannot be drawn
    rng = random.Random(5)
    wins = 0
    for _ in range(1500):
        reference = reference_state(game)
        while reference.status == STATUS_ONGOING:
            reference.play(rng.choice(reference.legal_actions()))
        wins += reference.status == STATUS_WIN0
    assert abs(tally[0] / 4000 - wins / 1500) < 0.05  # about four standard errors
