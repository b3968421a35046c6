"""Every brain's fallback move (for a deadline that cannot be met) is legal, quick and not random."""

from __future__ import annotations

import time

import pytest

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.registry import brain_class
from arbiter.engine import create_game

CASES = [  # bot, game, a position in it
    ("gomoku", "gomoku", [[7, 7], [8, 8], [7, 8], [8, 7], [7, 9]]),  # the first player threatens an open four
    ("mcts", "tictactoe4", [[0, 0], [1, 1]]),
    ("soccer", "paper_soccer", []),
    ("perfect", "tictactoe", [[0, 0], [1, 1], [0, 1]]),
    ("random", "vanishing", []),
]


@pytest.mark.parametrize(("bot", "game", "moves"), CASES)
def test_fallback_moves_are_legal_and_quick(bot: str, game: str, moves: list) -> None:
    brain = brain_class(bot)()
    brain.warm_up()
    request = ThinkRequest("m", game, {}, moves, 5.0, deadline=time.monotonic())
    began = time.process_time()
    result = brain.fallback_move(request)
    assert time.process_time() - began < 0.25  # level 1 on a 20 ms budget, plus its set-up
    state = request.position()
    state.play(create_game(game).decode_move(result.move))  # legal, or this raises


def test_a_fallback_takes_a_five_and_blocks_one() -> None:
    """Sound, not random: gomoku's level 1 completes its own five and stops the opponent's."""
    brain = brain_class("gomoku")()
    brain.warm_up()
    four = [[7, 7], [0, 0], [7, 8], [0, 14], [7, 9], [14, 0], [7, 10], [14, 14]]  # the first player's open four
    assert brain.fallback_move(ThinkRequest("m", "gomoku", {}, four, 5.0)).move in ([7, 6], [7, 11])
    closed_four = [[7, 7], [7, 6], [7, 8], [0, 0], [7, 9], [0, 14], [7, 10]]  # the second player must block
    assert brain.fallback_move(ThinkRequest("m", "gomoku", {}, closed_four, 5.0)).move == [7, 11]
