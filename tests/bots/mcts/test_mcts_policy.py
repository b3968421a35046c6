"""The light playout policy: it wins at once, it blocks, and each game's fast kernel plays exactly
the policy of the generic ops-only kernel (same outcome frequencies from the same positions)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from numba import njit

from arbiter.bots.mcts.policy import generic_light_playout, light_playout, scratch_size
from arbiter.engine import State, create_game
from arbiter.engine.base import PLY, REASON, REASON_GOAL, STATUS_WIN0, TO_MOVE
from arbiter.engine.ops import playout


@njit(cache=True)
def tally(gid, p, s, count, generic, scratch, seed):
    """[first player wins, second player wins, draws] over ``count`` light playouts from ``s``."""
    np.random.seed(seed)
    out = np.zeros(3, dtype=np.int64)
    for _ in range(count):
        work = s.copy()
        status = generic_light_playout(gid, p, work, scratch) if generic else light_playout(gid, p, work, scratch)
        out[status - 1] += 1
    return out


@njit(cache=True)
def random_tally(gid, p, s, count, buffer, seed):
    np.random.seed(seed)
    out = np.zeros(3, dtype=np.int64)
    for _ in range(count):
        out[playout(gid, p, s.copy(), buffer) - 1] += 1
    return out


def outcomes(state: State, count: int, *, generic: bool = False, seed: int = 1) -> np.ndarray:
    game = state.game
    scratch = np.empty(scratch_size(game), dtype=np.int64)
    return tally(game.gid, game.param_array, state.s, count, generic, scratch, seed)


def winning_actions(state: State, player: int) -> list[int]:
    """Cells where ``player`` would win at once if it were their turn (placement games)."""
    wins = []
    for action in state.legal_actions().tolist():
        trial = state.copy()
        trial.s[TO_MOVE] = player
        trial.play_action(action)
        if trial.outcome is not None and trial.outcome.winner == player:
            wins.append(action)
    return wins


def positions(name: str, count: int, seed: int, want) -> list[State]:
    """``count`` positions from random games that satisfy ``want(state)``."""
    rng = random.Random(seed)
    found = []
    game = create_game(name)
    for _ in range(20_000):
        state = game.new_state()
        while not state.is_terminal and len(found) < count:
            if want(state):
                found.append(state.copy())
                break
            state.play_action(rng.choice(state.legal_actions().tolist()))
        if len(found) == count:
            return found
    raise AssertionError(f"not enough positions for {name}")


LINE_GAMES = [
    ("tictactoe", {}),
    ("tictactoe4", {}),
    ("gomoku10", {}),
    ("gomoku", {"exact": True}),
    ("mnk", {"m": 6, "n": 5, "k": 4, "exact": True}),
    ("mnk", {"m": 8, "n": 4, "k": 3}),  # rectangular boards: the diagonals' line indices
    ("mnk", {"m": 4, "n": 9, "k": 4, "exact": True}),
    ("ttt3d", {}),
    ("qubic", {}),
]


@pytest.mark.parametrize(("name", "params"), LINE_GAMES)
def test_a_win_at_once_is_always_taken(name: str, params: dict) -> None:
    game = create_game(name, params)

    def mover_can_win(state: State) -> bool:
        return state.ply >= 4 and bool(winning_actions(state, state.to_move))

    rng = random.Random(3)
    for _ in range(3):
        state = game.new_state()
        while not mover_can_win(state):
            state.play_action(rng.choice(state.legal_actions().tolist()))
            if state.is_terminal:
                state = game.new_state()
        counts = outcomes(state, 300)
        assert counts[state.to_move] == 300, (state.diagram(), counts)


def test_vanishing_takes_a_win_at_once() -> None:
    for state in positions("vanishing", 5, seed=4, want=lambda s: s.ply >= 6 and _has_winning_move(s)):
        counts = outcomes(state, 300)
        assert counts[state.to_move] == 300, state.diagram()


def _has_winning_move(state: State) -> bool:
    for action in state.legal_actions().tolist():
        trial = state.copy()
        trial.play_action(action)
        if trial.outcome is not None and trial.outcome.winner == state.to_move:
            return True
    return False


@pytest.mark.parametrize("generic", [False, True])
def test_the_only_threat_is_blocked(generic: bool) -> None:
    # x: a1 c1 a2, o: b1 b2 a3; x to move, no win; o wins on b3 unless x blocks it, after which
    # every continuation is a draw. Uniform playouts lose a third of the time.
    state = create_game("tictactoe").new_state()
    for action in (0, 1, 2, 4, 3, 6):
        state.play_action(action)
    assert winning_actions(state, 1) == [7] and winning_actions(state, 0) == []
    assert list(outcomes(state, 500, generic=generic)) == [0, 0, 500]
    buffer = np.empty(64, dtype=np.int64)
    assert random_tally(0, state.game.param_array, state.s, 500, buffer, 1)[1] > 100


@pytest.mark.parametrize(("name", "params"), LINE_GAMES)
def test_fast_kernels_play_the_generic_policy(name: str, params: dict) -> None:
    """Same positions, same policy, two implementations: the outcome frequencies must agree."""
    game = create_game(name, params)
    rng = random.Random(len(name))
    count = 3000 if game.max_actions <= 64 else 1500
    for depth in (2, game.max_actions // 3):
        state = game.new_state()
        for _ in range(depth):
            state.play_action(rng.choice(state.legal_actions().tolist()))
            if state.is_terminal:
                state.undo_action()
                break
        fast = outcomes(state, count, seed=5) / count
        generic = outcomes(state, count, generic=True, seed=6) / count
        assert np.abs(fast - generic).max() < 0.05, (state.diagram(), fast, generic)


def test_exact_k_never_takes_an_overline_for_a_win() -> None:
    # gomoku with exact five, x to move: a1 b1 _ d1 e1 f1 — c1 makes six, not five, and g1 makes
    # only four (d1..g1): x has no win at once, so playouts must not all be x wins at once; the
    # fast kernel must agree with the generic one, which plays the real rules.
    game = create_game("gomoku", {"exact": True})
    state = game.new_state()
    m = game.params["m"]
    o_cells = [7 * m + 7, 9 * m + 3, 12 * m + 11, 4 * m + 13, 10 * m + 9]
    for x_cell, o_cell in zip([0, 1, 3, 4, 5], o_cells, strict=True):
        state.play_action(x_cell)
        state.play_action(o_cell)
    assert state.to_move == 0 and winning_actions(state, 0) == []
    fast = outcomes(state, 2000, seed=5) / 2000
    generic = outcomes(state, 2000, generic=True, seed=6) / 2000
    assert fast[0] < 0.95 and np.abs(fast - generic).max() < 0.05, (fast, generic)


@pytest.mark.parametrize(
    ("name", "params"), [("gomoku", {}), ("gomoku", {"exact": True}), ("mnk", {"m": 9, "n": 6, "k": 4})]
)
def test_the_opponents_win_is_blocked_as_the_generic_kernel_blocks_it(name: str, params: dict) -> None:
    """Positions where the side to move cannot win but the opponent can: the fast kernel must
    block, as the generic one does (same outcome frequencies)."""
    game = create_game(name, params)
    rng = random.Random(11)
    found = 0
    while found < 3:
        state = game.new_state()
        while not state.is_terminal:
            mover = state.to_move
            if state.ply >= 6 and winning_actions(state, 1 - mover) and not winning_actions(state, mover):
                _compare_with_generic(state)
                found += 1
                break
            state.play_action(rng.choice(state.legal_actions().tolist()))


def _compare_with_generic(state: State) -> None:
    count = 1500
    fast = outcomes(state, count, seed=5) / count
    generic = outcomes(state, count, generic=True, seed=6) / count
    assert np.abs(fast - generic).max() < 0.05, (state.diagram(), fast, generic)


# --- paper soccer -------------------------------------------------------------------------------
def soccer_goal_steps(state: State, player: int) -> list[int]:
    steps = []
    for action in state.legal_actions().tolist():
        trial = state.copy()
        trial.play_action(action)
        if trial.outcome is not None and trial.outcome.winner == player and trial.outcome.reason == "goal":
            steps.append(action)
    return steps


@pytest.mark.parametrize("params", [{}, {"width": 4, "length": 4}, {"stuck": "draw"}])
def test_soccer_scores_when_a_goal_is_one_step_away(params: dict) -> None:
    name = "paper_soccer"
    game = create_game(name, params)
    rng = random.Random(8)
    found = 0
    while found < 4:
        state = game.new_state()
        while not state.is_terminal:
            if soccer_goal_steps(state, state.to_move):
                counts = outcomes(state, 200)
                assert counts[state.to_move] == 200, state.diagram()
                found += 1
                break
            state.play_action(rng.choice(state.legal_actions().tolist()))


@njit(cache=True)
def soccer_endings(p, s, count, light, scratch, buffer, seed):
    """[steps played, goals, own goals] summed over ``count`` playouts from ``s``."""
    np.random.seed(seed)
    out = np.zeros(3, dtype=np.int64)
    for _ in range(count):
        work = s.copy()
        status = light_playout(3, p, work, scratch) if light else playout(3, p, work, buffer)
        out[0] += work[PLY] - s[PLY]
        if work[REASON] == REASON_GOAL:
            out[1] += 1
            out[2] += status - STATUS_WIN0 != work[TO_MOVE]  # after a goal, TO_MOVE is the kicker
    return out


def test_soccer_playouts_end_in_goals_and_avoid_own_goals() -> None:
    """Uniform steps end most games by getting stuck, and half their goals are own goals."""
    game = create_game("paper_soccer")
    state = game.new_state()
    scratch = np.empty(scratch_size(game), dtype=np.int64)
    buffer = np.empty(8, dtype=np.int64)
    light = soccer_endings(game.param_array, state.s, 2000, True, scratch, buffer, 1)
    uniform = soccer_endings(game.param_array, state.s, 2000, False, scratch, buffer, 1)
    assert light[1] > 1600 and uniform[1] < 1000  # goals
    assert light[2] < 20  # an own goal only when every other step loses too
    assert uniform[2] > 200


@pytest.mark.parametrize("name", ["tictactoe", "gomoku", "vanishing", "ttt3d", "qubic", "paper_soccer"])
def test_playouts_from_the_start_end_in_a_final_status(name: str) -> None:
    state = create_game(name).new_state()
    assert outcomes(state, 200).sum() == 200
