"""What "≥ 99 % against random" can mean on 3×3: the best possible score, computed exactly.

docs/STRENGTH.md quotes these ceilings next to mcts's series against ``random``: on 3×3 no player
reaches 99 % over both colours, because a uniform random player stumbles into draws (and, for a
player who tries to win, into wins) often enough. The oracle (random_ceiling.py) is checked here
against a second, plainer expectimax that shares nothing with it but the rules.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest
from random_ceiling import Ceiling
from tictactoe_oracle import completes_a_line, tictactoe_value


@functools.cache
def plain_expectimax(board: tuple[int, ...], to_move: int, me: int, sound: bool) -> Fraction:
    """Expected score of ``me`` (1 or 2) playing its best against a uniform player, no symmetry;
    ``sound``: only moves that keep the exact value."""
    results = []
    for cell in (c for c in range(9) if board[c] == 0):
        after = (*board[:cell], to_move, *board[cell + 1 :])
        won = completes_a_line(after, to_move)
        if sound and to_move == me:
            kept = 1 if won else (-tictactoe_value(after, 3 - to_move) if 0 in after else 0)
            if kept != tictactoe_value(board, to_move):
                continue
        if won:
            results.append(Fraction(1) if to_move == me else Fraction(0))
        elif 0 not in after:
            results.append(Fraction(1, 2))
        else:
            results.append(plain_expectimax(after, 3 - to_move, me, sound))
    return max(results) if to_move == me else sum(results) / len(results)


@pytest.mark.parametrize("sound", [False, True])
def test_the_oracle_agrees_with_a_plain_expectimax(sound: bool) -> None:
    ceiling = Ceiling(3, 3, exact=True)
    empty = (0,) * 9
    assert ceiling.value(0, sound=sound) == plain_expectimax(empty, 1, 1, sound)
    assert ceiling.value(1, sound=sound) == plain_expectimax(empty, 1, 2, sound)


def test_no_player_scores_99_percent_against_random_on_3x3() -> None:
    ceiling = Ceiling(3, 3, exact=True)
    first, second = ceiling.value(0), ceiling.value(1)
    assert (first, second) == (Fraction(383, 384), Fraction(1819, 1890))
    assert (first + second) / 2 == Fraction(237061, 241920)  # 97.99 %
    assert (first + second) / 2 < Fraction(99, 100)


def test_never_risking_a_loss_costs_a_little_more() -> None:
    """The sound ceiling: what a bot that must not lose to anyone can hope for against random."""
    ceiling = Ceiling(3, 3, exact=True)
    first, second = ceiling.value(0, sound=True), ceiling.value(1, sound=True)
    assert (first, second) == (Fraction(383, 384), Fraction(1811, 1890))
    assert (first + second) / 2 == Fraction(236549, 241920)  # 97.78 %


def test_a_board_with_no_draws_has_a_ceiling_of_one() -> None:
    """Two in a row on 2×2: the first player always wins, whatever the second does."""
    assert Ceiling(2, 2, exact=True).value(0) == 1
