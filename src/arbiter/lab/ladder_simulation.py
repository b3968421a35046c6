"""A ladder of bots of known strengths, simulated through the real pairing rule and Glicko-2.

Games last 30 to 90 s; each ends by the Elo formula of the true strengths (with draws); both players
are rated at once and back in the queue; waiting players are looked at again every second, as the
server does. ``simulate`` returns what a scheduler is judged by: how evenly the pairs met, and
whether the ratings found the true order.
"""

from __future__ import annotations

import heapq
import random
import statistics
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from arbiter.server.basics.ratings import Glicko2Rating, rate_game
from arbiter.server.ranking.pairing import LadderQueue

STRENGTHS = {f"bot{i}": 1300.0 + 150 * i for i in range(8)}  # 8 bots, 100 Elo apart
DRAW_SHARE = 0.1


@dataclass(frozen=True)
class Outcome:
    fewest_over_mean: float  # the fewest games of any pair, over the mean games per pair
    order_matches: bool  # the final ratings rank the bots as their true strengths do
    games: Counter[frozenset[str]]
    ratings: dict[str, Glicko2Rating]


def simulate(
    seed: int, *, pairings: int = 500, novelty: float | None = None, uncertainty: float | None = None
) -> Outcome:
    rng = random.Random(seed)
    knobs = {k: v for k, v in (("novelty", novelty), ("uncertainty", uncertainty)) if v is not None}
    queue = LadderQueue("sim", rng=random.Random(seed), **knobs)
    ratings = {name: Glicko2Rating(1500.0, 350.0, 0.06) for name in STRENGTHS}
    for name in STRENGTHS:
        queue.join(name, 1500.0, 0.0, deviation=350.0)
    ends: list[tuple[float, str, str]] = []
    games: Counter[frozenset[str]] = Counter()
    now, made = 0.0, 0
    while made < pairings:
        for first, second in queue.pair(now):
            heapq.heappush(ends, (now + rng.uniform(30, 90), first, second))
            games[frozenset((first, second))] += 1
            made += 1
        if not ends:
            now += 1.0  # everyone waits: looked at again in a second
            continue
        now, first, second = heapq.heappop(ends)
        expected = 1 / (1 + 10 ** ((STRENGTHS[second] - STRENGTHS[first]) / 400))
        roll = rng.random()
        score = 0.5 if roll < DRAW_SHARE else 1.0 if roll < DRAW_SHARE + (1 - DRAW_SHARE) * expected else 0.0
        ratings[first], ratings[second] = rate_game(ratings[first], ratings[second], score)
        for name in (first, second):
            queue.set_rating(name, ratings[name].rating, ratings[name].deviation)
        queue.match_over(first, second, now)
    counts = [games[frozenset(pair)] for pair in combinations(STRENGTHS, 2)]
    by_rating = sorted(STRENGTHS, key=lambda name: ratings[name].rating)
    return Outcome(min(counts) / statistics.mean(counts), by_rating == sorted(STRENGTHS, key=STRENGTHS.__getitem__),
                   games, ratings)  # fmt: skip
