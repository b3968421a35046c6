"""The source's player (document 004): its heuristic's numbers, and its choices against a literal minimax."""

from __future__ import annotations

import pytest
from soccer_reference import random_position, source_value

from arbiter.bots.soccer.evaluation import source_heuristic
from arbiter.bots.soccer.source import source_turn
from arbiter.engine import create_game


def test_the_heuristic_counts_rows_steps_and_the_kept_move() -> None:
    game = create_game("paper_soccer")  # 8 x 10: the centre line is y = 5
    state = game.new_state()
    state.play_action(0)  # one row north, onto an untouched point: the move passes
    p, s = game.param_array, state.s
    assert source_heuristic(p, s, 0, 1, 0) == 3 * 1 - 1  # the document's "1 * 3 - 1 = 2"
    assert source_heuristic(p, s, 1, 1, 0) == -3 * 1 - 1 + 1  # player 1 has the move now
    assert source_heuristic(p, s, 0, 1, 1) == 3  # weakened: rows only
    state.play_action(0)  # two rows north of the centre now, and the first player to move again
    assert state.ball == (4, 3) and state.to_move == 0
    assert source_heuristic(p, state.s, 0, 5, 0) == 2 * 3 - 5 + 1  # the document's "2 * 3 - 5 = 1", plus the move
    assert source_heuristic(p, state.s, 1, 5, 0) == -2 * 3 - 5


def test_depth_zero_goes_straight_ahead_for_both_players() -> None:
    state = create_game("paper_soccer").new_state()
    assert source_turn(state, 0).steps == [0]  # north, towards the goal the first player attacks
    state.play((2,))  # east, onto an untouched point
    assert source_turn(state, 0).steps == [4]  # south for the second player (SW and SE gain as much)


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize(
    ("params", "weakened"),
    [({"width": 6, "length": 8}, False), ({"width": 4, "length": 6, "stuck": "draw"}, False), ({}, True)],
    ids=["6x8-normal", "4x6-draw-normal", "8x10-weakened"],
)
def test_every_step_is_the_literal_minimax_choice(params: dict, weakened: bool, depth: int) -> None:
    for seed in range(6):
        state = random_position(params, 2 + 3 * seed, seed)
        if state.is_terminal:
            continue
        turn = source_turn(state, depth, weakened=weakened)
        steps = turn.steps
        assert turn.steps_searched > 0 and turn.depth == depth
        trial = state.copy()
        mover = trial.to_move
        for step in steps:
            assert source_value(trial, depth, 0, weakened)[1] == step
            trial.play_action(step)
        assert trial.is_terminal or trial.to_move != mover  # a whole turn, and nothing after it


def test_the_clock_keeps_the_deepest_choice_it_completed() -> None:
    state = random_position({}, 14, 3)
    timed = source_turn(state, 6, seconds=1e-4)
    assert 0 <= timed.depth < 6
    child = state.copy()
    child.play(tuple(timed.steps))  # a whole legal turn all the same


def test_the_depth_is_checked() -> None:
    state = create_game("paper_soccer").new_state()
    with pytest.raises(ValueError, match=r"0\.\.6"):
        source_turn(state, 7)
