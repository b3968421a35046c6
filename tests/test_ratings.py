"""Glicko-2 against Glickman's worked example, and the properties any correct Glicko-2 has."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server.basics.ratings import INITIAL_DEVIATION, Glicko2Rating, rate_game, update

ratings = st.floats(min_value=800, max_value=2600)
deviations = st.floats(min_value=30, max_value=350)
volatilities = st.floats(min_value=0.03, max_value=0.1)
players = st.builds(Glicko2Rating, ratings, deviations, volatilities)
scores = st.sampled_from([0.0, 0.5, 1.0])


def test_glickmans_worked_example() -> None:
    # glicko2.pdf: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300.
    # The paper prints r' = 1464.06, RD' = 151.52, sigma' = 0.05999 from rounded intermediates;
    # unrounded arithmetic gives 1464.0507.
    new = update(
        Glicko2Rating(1500, 200, 0.06),
        [(Glicko2Rating(1400, 30), 1.0), (Glicko2Rating(1550, 100), 0.0), (Glicko2Rating(1700, 300), 0.0)],
    )
    assert new.rating == pytest.approx(1464.06, abs=0.02)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


@settings(derandomize=True, max_examples=200)
@given(players, st.lists(st.tuples(players, scores), min_size=1, max_size=5), st.floats(-500, 500))
def test_translation_invariance(player: Glicko2Rating, results: list, shift: float) -> None:
    # Only rating differences matter: moving everyone by the same amount moves the result by it
    # and leaves deviation and volatility alone. (A volatility step that reads mu where the paper
    # has phi, as in the PyPI glicko2 2.1.0 module, fails this.)
    base = update(player, results)
    moved = update(
        Glicko2Rating(player.rating + shift, player.deviation, player.volatility),
        [(Glicko2Rating(o.rating + shift, o.deviation, o.volatility), s) for o, s in results],
    )
    assert moved.rating - shift == pytest.approx(base.rating, abs=1e-6)
    assert moved.deviation == pytest.approx(base.deviation, rel=1e-9)
    assert moved.volatility == pytest.approx(base.volatility, rel=1e-9)


@settings(derandomize=True, max_examples=200)
@given(players, players)
def test_win_raises_loss_lowers_and_deviation_shrinks(a: Glicko2Rating, b: Glicko2Rating) -> None:
    won, lost = rate_game(a, b, 1.0)
    assert won.rating > a.rating and lost.rating < b.rating
    assert won.deviation <= INITIAL_DEVIATION and lost.deviation <= INITIAL_DEVIATION
    assert math.isfinite(won.volatility) and won.volatility > 0


def test_equal_players_zero_sum_and_draw_changes_nothing() -> None:
    first, second = rate_game(Glicko2Rating(), Glicko2Rating(), 1.0)
    assert first.rating - 1500 == pytest.approx(1500 - second.rating)
    assert first.deviation < 350 and first.provisional
    drew_a, drew_b = rate_game(Glicko2Rating(1600, 80), Glicko2Rating(1600, 80), 0.5)
    assert drew_a.rating == pytest.approx(1600) and drew_b.rating == pytest.approx(1600)
    assert not drew_a.provisional


def test_many_games_make_the_rating_established() -> None:
    player, opponent = Glicko2Rating(), Glicko2Rating(1700, 60)
    for i in range(30):
        player, _ = rate_game(player, opponent, 1.0 if i % 2 else 0.0)
    assert not player.provisional
    assert 1550 < player.rating < 1850


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="score"):
        rate_game(Glicko2Rating(), Glicko2Rating(), 0.3)
    with pytest.raises(ValueError, match="at least one"):
        update(Glicko2Rating(), [])
