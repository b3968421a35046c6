"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", http://www.glicko.net/glicko/glicko2.pdf).

The ladder treats every rated game as its own rating period: both players are updated right
after the game, each against the other's rating from before it. Lichess rates the same way;
it keeps ratings current for a bot that plays around the clock, and the volatility term (step 6
grows the deviation by sigma every period) stops the deviation of a busy player from collapsing.

Why our own code rather than the PyPI ``glicko2`` package (2.1.0): that module's volatility
function f(x) uses the player's squared *rating* where the paper has the squared *deviation*
(phi^2), a slip that hides in Glickman's worked example because there mu = 0; it is also
untyped, mutates player objects and has no release activity. The algorithm is 60 lines; here
it is, checked against the paper's example in tests/test_ratings.py.

>>> player = Glicko2Rating(1500, 200, 0.06)
>>> new = update(player, [(Glicko2Rating(1400, 30, 0.06), 1.0),
...                       (Glicko2Rating(1550, 100, 0.06), 0.0),
...                       (Glicko2Rating(1700, 300, 0.06), 0.0)])
>>> round(new.rating, 2), round(new.deviation, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # Glicko-2 rating points per unit of mu (400 / ln 10)
INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 350.0
INITIAL_VOLATILITY = 0.06
TAU = 0.5  # system constant: how fast volatility may change (Glickman suggests 0.3..1.2)
CONVERGENCE = 1e-6  # the paper's epsilon for the volatility iteration
PROVISIONAL_DEVIATION = 110.0  # above this the rating is marked provisional (lichess's threshold)


@dataclass(frozen=True)
class Glicko2Rating:
    """A rating on the Glicko scale: the estimate, its deviation (uncertainty) and volatility."""

    rating: float = INITIAL_RATING
    deviation: float = INITIAL_DEVIATION
    volatility: float = INITIAL_VOLATILITY

    @property
    def provisional(self) -> bool:
        """True while the deviation is so high that the rating is only a first guess."""
        return self.deviation > PROVISIONAL_DEVIATION


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the root of f by the Illinois variant of regula falsi, as the paper specifies."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Glicko2Rating, results: Sequence[tuple[Glicko2Rating, float]], *, tau: float = TAU) -> Glicko2Rating:
    """The player's rating after one rating period with ``results``: (opponent, score 1/0.5/0)."""
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi = player.deviation / SCALE
    if not results:
        raise ValueError("a rating period needs at least one result")
    opponents = [((o.rating - INITIAL_RATING) / SCALE, o.deviation / SCALE, score) for o, score in results]
    v_inverse = 0.0
    improvement = 0.0
    for mu_j, phi_j, score in opponents:
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        v_inverse += g * g * e * (1.0 - e)
        improvement += g * (score - e)
    v = 1.0 / v_inverse
    delta = v * improvement
    sigma = _new_volatility(phi, player.volatility, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Glicko2Rating(mu_new * SCALE + INITIAL_RATING, min(phi_new * SCALE, INITIAL_DEVIATION), sigma)


def rate_game(
    first: Glicko2Rating, second: Glicko2Rating, first_score: float, *, tau: float = TAU
) -> tuple[Glicko2Rating, Glicko2Rating]:
    """Both players' new ratings after one game (a rating period of its own); score 1, 0.5 or 0."""
    if first_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a game score is 0, 0.5 or 1, not {first_score!r}")
    return (
        update(first, [(second, first_score)], tau=tau),
        update(second, [(first, 1.0 - first_score)], tau=tau),
    )
