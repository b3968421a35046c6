"""The BayesElo fit: the maximum of its likelihood, checked against an independent optimiser
(scipy) on a small pool, and its intervals against the likelihood's curvature measured apart."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.optimize import minimize

from arbiter.server.ranking.bayeselo import Game, fit, rated_games
from arbiter.server.store.base import GameRecord, GameStart


def f(x: float) -> float:
    return 1.0 / (1.0 + 10 ** (x / 400))


def negative_log_likelihood(theta: np.ndarray, names: list[str], games: list[Game], prior: float) -> float:
    """The model, written out game by game apart from the module's vectorised code."""
    rating = dict(zip(names, theta[: len(names)], strict=True)) | {"<average>": 0.0}
    advantage, draw = theta[len(names)], theta[len(names) + 1]
    virtual = [(name, "<average>", 0.5, prior / 2) for name in names] + [
        ("<average>", name, 0.5, prior / 2) for name in names
    ]
    total = 0.5 * (advantage / 200) ** 2 + 0.5 * ((draw - 97.3) / 200) ** 2  # the weak priors on both
    for first, second, score, weight in [(g.first, g.second, g.score, 1.0) for g in games] + virtual:
        win = f(rating[second] - rating[first] - advantage + draw)
        loss = f(rating[first] - rating[second] + advantage + draw)
        p = win if score == 1.0 else loss if score == 0.0 else 1 - win - loss
        total -= weight * math.log(max(p, 1e-300))
    return total


def pool() -> list[Game]:
    """Three players of about 0, 150 and 300 and a first-move advantage, 60 games a pair."""
    rng = random.Random(7)
    strength = {"ann": 300.0, "bob": 150.0, "cid": 0.0}
    games = []
    for a, b in [("ann", "bob"), ("bob", "cid"), ("ann", "cid")]:
        for i in range(60):
            first, second = (a, b) if i % 2 == 0 else (b, a)
            win = f(strength[second] - strength[first] - 40 + 80)
            loss = f(strength[first] - strength[second] + 40 + 80)
            roll = rng.random()
            games.append(Game(first, second, 1.0 if roll < win else 0.0 if roll < win + loss else 0.5))
    return games


def independent_optimum(games: list[Game]) -> tuple[list[str], np.ndarray]:
    names = sorted({g.first for g in games} | {g.second for g in games})
    start = np.array([0.0] * len(names) + [0.0, 100.0])
    found = minimize(negative_log_likelihood, start, args=(names, games, 2.0), method="BFGS", options={"gtol": 1e-8})
    return names, found.x


def test_the_fit_is_the_likelihoods_maximum_as_an_independent_optimiser_finds_it() -> None:
    games = pool()
    result = fit(games)
    names, optimum = independent_optimum(games)
    ratings = optimum[: len(names)] - np.mean(optimum[: len(names)])
    ours = {p.name: p.elo for p in result.players}
    for name, elo in zip(names, ratings, strict=True):
        assert ours[name] == pytest.approx(elo, abs=0.5)
    assert result.advantage == pytest.approx(optimum[3], abs=0.5)
    assert result.draw == pytest.approx(optimum[4], abs=0.5)
    assert [p.name for p in result.players] == ["ann", "bob", "cid"]
    assert 100 < ours["ann"] - ours["bob"] < 200 and 100 < ours["bob"] - ours["cid"] < 200  # drawn 150 apart


def test_intervals_are_the_curvature_of_the_likelihood_and_narrow_with_more_games() -> None:
    games = pool()
    result = fit(games)
    names, optimum = independent_optimum(games)
    size, step = len(optimum), 0.5
    hessian = np.empty((size, size))  # of the independent likelihood, by central differences
    for i in range(size):
        for j in range(size):
            corners = []
            for di, dj in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                theta = optimum.copy()
                theta[i] += di * step
                theta[j] += dj * step
                corners.append(negative_log_likelihood(theta, names, games, 2.0))
            hessian[i, j] = (corners[0] - corners[1] - corners[2] + corners[3]) / (4 * step**2)
    covariance = np.linalg.inv(hessian)[: len(names), : len(names)]
    centring = np.eye(len(names)) - 1 / len(names)
    spread = centring @ covariance @ centring.T
    for i, name in enumerate(names):
        player = next(p for p in result.players if p.name == name)
        assert (player.high - player.low) / 2 == pytest.approx(1.96 * math.sqrt(spread[i, i]), rel=0.02)
        assert player.low < player.elo < player.high
    doubled = fit(games + games)
    for before, after in zip(result.players, doubled.players, strict=True):
        assert (after.high - after.low) < (before.high - before.low)


def test_a_clean_sweep_stays_finite_and_the_prior_matters_less_with_more_games() -> None:
    sweep = [Game("strong", "weak", 1.0), Game("weak", "strong", 0.0)] * 2
    few = fit(sweep)
    assert math.isfinite(few.players[0].elo) and few.players[0].name == "strong"
    many = fit(sweep * 10)
    assert many.players[0].elo > few.players[0].elo


def test_only_rated_finished_games_are_fitted_and_an_empty_pool_is_empty() -> None:
    def record(first: str, second: str, result: str | None, rated: bool = True) -> GameRecord:
        return GameRecord(GameStart("m", "tictactoe", {}, (first, second), {}, rated, 0.0), [], result, None, None)

    records = [record("a", "b", "1-0"), record("b", "a", "1/2-1/2"), record("a", "b", None),
               record("b", "a", "0-1"), record("a", "b", "1-0", rated=False)]  # fmt: skip
    other_pool = GameRecord(GameStart("n", "tictactoe", {}, ("a", "b"), {"initial_ms": 600_000}, True, 0.0), [],
                            "1-0", None, None)  # fmt: skip
    games = rated_games([*records, other_pool], "tictactoe/bullet")
    assert [(g.first, g.score) for g in games] == [("a", 1.0), ("b", 0.5), ("b", 0.0)]  # unrated, unfinished: out
    assert fit([]).players == []
