"""The ladder's scheduler: how evenly 500 pairings of 8 bots of known strengths spread over the 28
pairs, and whether Glicko-2 then ranks the bots in their true order, for the rule that learns
(novelty and uncertainty preferences, arbiter/server/ranking/pairing.py) against drawing by rating alone,
both over the same seeds in the same run (src/arbiter/lab/ladder_simulation.py is the simulation).

    python -m arbiter.lab.ladder_schedule [--seeds 10]
"""

from __future__ import annotations

import argparse
import statistics

from arbiter.lab.ladder_simulation import STRENGTHS, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    print(f"8 bots {min(STRENGTHS.values()):.0f}..{max(STRENGTHS.values()):.0f} Elo, 500 pairings, {args.seeds} seeds")
    print(f"{'rule':<16} {'fewest/mean median':>18} {'min':>6} {'true order':>11}")
    rows = {}
    for rule, knobs in (("by rating alone", {"novelty": 0, "uncertainty": 0}), ("learning", {})):
        outcomes = [simulate(seed, **knobs) for seed in range(args.seeds)]
        evenness = [o.fewest_over_mean for o in outcomes]
        rows[rule] = statistics.median(evenness)
        ordered = sum(o.order_matches for o in outcomes)
        print(f"{rule:<16} {rows[rule]:>18.2f} {min(evenness):>6.2f} {ordered:>5}/{args.seeds}")
    baseline, learning = rows["by rating alone"], rows["learning"]
    print(f"the rarest pair meets {learning:.0%} as often as the average pair, against {baseline:.0%} by rating alone")


if __name__ == "__main__":
    main()
