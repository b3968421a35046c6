"""The ladder's scheduler learns the most: over 500 simulated pairings of 8 bots of known strengths
(src/arbiter/lab/ladder_simulation.py), every pair meets at least 70% as often as the average pair, and the
ratings end in the true order. Drawing by rating alone (novelty = uncertainty = 0), the pairs far
apart in strength almost never meet (docs/STORE.md has both figures; src/arbiter/lab/ladder_schedule.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arbiter.lab.ladder_simulation import simulate
from arbiter.server.ranking.pairing import LadderQueue


@pytest.mark.parametrize("seed", range(5))
def test_every_pair_meets_and_the_ratings_find_the_true_order(seed: int) -> None:
    outcome = simulate(seed)
    assert outcome.fewest_over_mean >= 0.7
    assert outcome.order_matches


def test_by_rating_alone_the_distant_pairs_hardly_meet() -> None:
    """The baseline the scheduler is measured against: the rule before it learned."""
    assert max(simulate(seed, novelty=0, uncertainty=0).fewest_over_mean for seed in range(5)) < 0.3


def test_the_pair_that_met_least_is_preferred() -> None:
    picks: Counter[str] = Counter()
    for seed in range(200):
        ladder = LadderQueue("gomoku", rng=random.Random(seed), rematch_after_s=0)
        ladder.join("me", 1500, now=0)
        ladder.join("often", 1500, now=0)
        for t in range(6):  # "me" and "often" meet six times before "fresh" comes
            [(first, second)] = ladder.pair(now=t)
            ladder.match_over(first, second, now=t + 0.5)
        assert ladder.games_between("me", "often") == 6
        ladder.join("fresh", 1500, now=10)
        [pair] = ladder.pair(now=10)
        picks["fresh" if "fresh" in pair else "often"] += 1
    assert picks["fresh"] > 5 * picks["often"]


def test_the_least_certain_partner_is_preferred() -> None:
    picks: Counter[str] = Counter()
    for seed in range(400):
        ladder = LadderQueue("gomoku", rng=random.Random(seed))
        ladder.join("me", 1500, now=0)
        ladder.join("known", 1500, now=1, deviation=50)
        ladder.join("newcomer", 1500, now=1, deviation=350)
        [pair] = ladder.pair(now=1)
        picks[(set(pair) - {"me"}).pop()] += 1
    assert picks["newcomer"] > 3 * picks["known"] > 0
