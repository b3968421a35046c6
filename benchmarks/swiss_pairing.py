"""What pairing a Swiss round costs: the Dutch-style pairing of tournaments/swiss.py, per round.

    .venv/bin/python benchmarks/swiss_pairing.py [--players 1000] [--repeat 3]

A Swiss of ``--players`` over its derived number of rounds (``swiss.rounds_for``), random results
(fixed seed), each round paired by ``swiss.pair_round`` from the outcomes so far (its whole work:
the histories, the brackets, the colours). The baseline, on the same outcomes in the same run, is
the naive pairing: sort by points and pair each player with the next one it has not met, no
colours, no floaters. Wall time, the median of ``--repeat`` runs of each round; the issue's target
is under a second a round for 1,000 players.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from arbiter.server.tournaments import swiss
from arbiter.server.tournaments.model import Entrant, Outcome


def naive(entrants: list[Entrant], outcomes: list[Outcome]) -> list[tuple[str, str]]:
    points = {e.name: 0.0 for e in entrants}
    met: set[frozenset[str]] = set()
    for o in outcomes:
        if o.pairing.white is not None and o.score is not None:
            points[o.pairing.black] += o.score
            points[o.pairing.white] += 1 - o.score
            met.add(frozenset(o.pairing.players))
    order = sorted(points, key=lambda name: -points[name])
    pairs, free = [], order
    while len(free) > 1:
        first = free[0]
        partner = next((other for other in free[1:] if frozenset((first, other)) not in met), free[1])
        pairs.append((first, partner))
        free = [name for name in free if name not in (first, partner)]
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    entrants = [Entrant(f"p{i}", i) for i in range(1, args.players + 1)]
    rng = random.Random(1)
    outcomes: list[Outcome] = []
    ours, baseline = [], []
    for r in range(1, swiss.rounds_for(args.players) + 1):
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            pairings = swiss.pair_round(entrants, outcomes, r, seed=7)
            times.append(time.perf_counter() - start)
        naive_times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            naive(entrants, outcomes)
            naive_times.append(time.perf_counter() - start)
        ours.append(statistics.median(times))
        baseline.append(statistics.median(naive_times))
        outcomes += [Outcome(p, None if p.white is None else rng.choice([1.0, 0.5, 0.0])) for p in pairings]
    worst = max(range(len(ours)), key=ours.__getitem__)
    print(f"a Swiss of {args.players} players, {len(ours)} rounds, random results")
    print(
        f"pair_round: median {statistics.median(ours) * 1000:.0f} ms a round, worst {ours[worst] * 1000:.0f} ms"
        f" (round {worst + 1}); naive pairing: median {statistics.median(baseline) * 1000:.0f} ms"
        f" ({statistics.median(ours) / statistics.median(baseline):.2f}x)"
    )


if __name__ == "__main__":
    main()
