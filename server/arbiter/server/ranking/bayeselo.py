"""BayesElo beside Glicko-2: one maximum-likelihood fit over every rated game of a pool.

Glicko-2 updates each rating game by game, so the order of the games matters and an early
estimate never revisits old results. What CGOS and Gomocup publish is instead a fit of all the
games at once: the Bradley–Terry model as Rémi Coulom's BayesElo extends it, with an advantage
for moving first and a draw margin. With ``f(Δ) = 1 / (1 + 10^(Δ/400))``:

    P(first wins)  = f(r_second − r_first − advantage + draw)
    P(second wins) = f(r_first − r_second + advantage + draw)
    P(draw)        = 1 − P(first wins) − P(second wins)

The ratings, ``advantage`` and ``draw`` are those that make the games most likely. As in
BayesElo a prior keeps the fit finite and sane on few games: each player is given ``prior``
virtual draws (half moving first) against an average player, so a bot that won all of its three
games gets a high rating, not an infinite one. ``advantage`` and ``draw`` are estimated too (what
BayesElo's ``mm 1 1`` does) under weak Gaussian priors, ``advantage`` about 0 and ``draw`` about
BayesElo's default 97.3, each with a deviation of 200: without them a pool of decisive games
would drive the draw margin, and every rating with it, to infinity. Ratings are reported relative to the pool's average
(0), each with a 95% interval from the curvature of the likelihood (the observed information).

Newton's method on the log-likelihood, with the analytic gradient and a finite-difference Hessian
of it: a pool has tens of players, so the matrices are small.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from arbiter.server.store.base import GameRecord

K = math.log(10) / 400  # f(x) = 1 / (1 + 10^(x/400)) = sigmoid(-K·x)
ADVANTAGE_PRIOR = (0.0, 200.0)  # mean, deviation
DRAW_PRIOR = (97.3, 200.0)
Z95 = 1.959963984540054
DEFAULT_PRIOR = 2.0


@dataclass(frozen=True)
class Game:
    first: str
    second: str
    score: float  # for the first player: 1, 0.5 or 0


@dataclass(frozen=True)
class PlayerFit:
    name: str
    elo: float  # relative to the pool's average, 0
    low: float  # its 95% interval
    high: float
    games: int
    score: float  # points scored, a draw counting half


@dataclass(frozen=True)
class PoolFit:
    players: list[PlayerFit]  # best first
    advantage: float  # Elo points moving first is worth
    draw: float  # the draw margin: the wider, the more draws


def _f(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(K * x))


class _Likelihood:
    """The log-likelihood of the games (and the prior's virtual ones) as a function of
    θ = (r_0 … r_{n-1}, advantage, draw); the average player of the prior is index n."""

    def __init__(self, n: int, firsts: np.ndarray, seconds: np.ndarray, outcomes: np.ndarray, weights: np.ndarray):
        self.n = n
        self.firsts, self.seconds, self.outcomes, self.weights = firsts, seconds, outcomes, weights

    def _parts(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        ratings = np.append(theta[: self.n], 0.0)  # the prior's average player is fixed at 0
        advantage, draw = theta[self.n], theta[self.n + 1]
        gap = ratings[self.seconds] - ratings[self.firsts]
        x_win = gap - advantage + draw
        x_loss = -gap + advantage + draw
        p_win, p_loss = _f(x_win), _f(x_loss)
        return p_win, p_loss, np.maximum(1.0 - p_win - p_loss, 1e-300), ratings

    def value(self, theta: np.ndarray) -> float:
        p_win, p_loss, p_draw, _ = self._parts(theta)
        chosen = np.where(self.outcomes == 1.0, p_win, np.where(self.outcomes == 0.0, p_loss, p_draw))
        (a0, a_dev), (d0, d_dev) = ADVANTAGE_PRIOR, DRAW_PRIOR
        priors = -0.5 * ((theta[self.n] - a0) / a_dev) ** 2 - 0.5 * ((theta[self.n + 1] - d0) / d_dev) ** 2
        return float(np.sum(self.weights * np.log(np.maximum(chosen, 1e-300)))) + priors

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        p_win, p_loss, p_draw, _ = self._parts(theta)
        # d log P / d x_win and d log P / d x_loss for each game, by its outcome
        won, lost, drawn = self.outcomes == 1.0, self.outcomes == 0.0, self.outcomes == 0.5
        d_win = np.where(won, -K * (1 - p_win), 0.0) + np.where(drawn, K * p_win * (1 - p_win) / p_draw, 0.0)
        d_loss = np.where(lost, -K * (1 - p_loss), 0.0) + np.where(drawn, K * p_loss * (1 - p_loss) / p_draw, 0.0)
        d_win, d_loss = d_win * self.weights, d_loss * self.weights
        # x_win = r_s − r_f − a + d ; x_loss = r_f − r_s + a + d
        grad_ratings = np.zeros(self.n + 1)
        np.add.at(grad_ratings, self.seconds, d_win - d_loss)
        np.add.at(grad_ratings, self.firsts, d_loss - d_win)
        (a0, a_dev), (d0, d_dev) = ADVANTAGE_PRIOR, DRAW_PRIOR
        grad_advantage = np.sum(d_loss - d_win) - (theta[self.n] - a0) / a_dev**2
        grad_draw = np.sum(d_win + d_loss) - (theta[self.n + 1] - d0) / d_dev**2
        return np.concatenate([grad_ratings[: self.n], [grad_advantage, grad_draw]])

    def hessian(self, theta: np.ndarray, step: float = 1e-3) -> np.ndarray:
        size = len(theta)
        out = np.empty((size, size))
        for i in range(size):
            delta = np.zeros(size)
            delta[i] = step
            out[i] = (self.gradient(theta + delta) - self.gradient(theta - delta)) / (2 * step)
        return (out + out.T) / 2


def fit(games: Iterable[Game], *, prior: float = DEFAULT_PRIOR, iterations: int = 100) -> PoolFit:
    """The maximum-likelihood ratings of the players of ``games``, with 95% intervals."""
    games = list(games)
    names = sorted({g.first for g in games} | {g.second for g in games})
    if not names:
        return PoolFit([], 0.0, 0.0)
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    firsts = [index[g.first] for g in games]
    seconds = [index[g.second] for g in games]
    outcomes = [g.score for g in games]
    weights = [1.0] * len(games)
    if prior > 0:  # each player's virtual draws with the average player (index n), half moving first
        for i in range(n):
            firsts += [i, n]
            seconds += [n, i]
            outcomes += [0.5, 0.5]
            weights += [prior / 2, prior / 2]
    likelihood = _Likelihood(n, np.array(firsts), np.array(seconds), np.array(outcomes), np.array(weights))
    theta = np.zeros(n + 2)
    theta[n + 1] = 100.0  # a draw margin to start from; the first moves find the real one
    for _ in range(iterations):
        gradient = likelihood.gradient(theta)
        hessian = likelihood.hessian(theta)
        try:
            step = np.linalg.solve(hessian, -gradient)
        except np.linalg.LinAlgError:
            step = gradient * 10.0  # a singular curvature: a plain ascent step instead
        before = likelihood.value(theta)
        scale = 1.0
        while scale > 1e-6 and (
            theta[n + 1] + scale * step[n + 1] <= 0 or likelihood.value(theta + scale * step) < before - 1e-12
        ):
            scale /= 2  # damped: never downhill, and the draw margin stays positive
        theta = theta + scale * step
        if np.max(np.abs(scale * step)) < 1e-7:
            break
    covariance = _covariance(likelihood.hessian(theta))
    ratings = theta[:n]
    average = float(np.mean(ratings))
    centring = np.eye(n) - np.full((n, n), 1.0 / n)  # r_i − mean(r)
    spread = centring @ covariance[:n, :n] @ centring.T
    players = []
    for name, i in index.items():
        elo = float(ratings[i]) - average
        half = Z95 * math.sqrt(max(float(spread[i, i]), 0.0))
        played = [g for g in games if name in (g.first, g.second)]
        score = sum(g.score if g.first == name else 1.0 - g.score for g in played)
        players.append(PlayerFit(name, elo, elo - half, elo + half, len(played), score))
    players.sort(key=lambda p: (-p.elo, p.name))
    return PoolFit(players, float(theta[n]), float(theta[n + 1]))


def _covariance(hessian: np.ndarray) -> np.ndarray:
    """The inverse of the observed information (−Hessian); a pseudo-inverse if it is singular."""
    try:
        return np.linalg.inv(-hessian)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(-hessian)


SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def rated_games(records: Iterable[GameRecord], pool: str) -> list[Game]:
    """The rated games of ``pool`` with a result among stored ``records``, between rated identities
    (``name`` or ``name@level``): what the pool's fit is made of."""
    return [
        Game(*r.start.identities, SCORES[r.result])
        for r in records
        if r.start.pool == pool and r.start.rated and r.result is not None and r.result in SCORES
    ]
