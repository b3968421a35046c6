"""Gomoku search speed: nodes per second and depth reached in 1 s and 5 s from middle-game positions.

    python benchmarks/gomoku_search.py [--seconds 1 5] [--positions N]

Each position (15×15 freestyle, 19 to 28 stones, from games of the bot's shallow levels, none
decided by a forced win the search sees within 7 plies) is searched from a fresh table at full
strength for each time limit, deepening until the clock stops an iteration (so "depth" is the
last iteration that finished in time). Nodes are negamax nodes; the root threat search's nodes,
the VCF probes' nodes at the leaves and the VCT probes' nodes at shallow nodes are counted apart.
Rates are per second of wall clock and per second of this process's CPU time: on a shared machine
the CPU figure is the one-core rate.

Baselines measured in the same run, on the same positions:

- the evaluation without the incremental tracks: every window rescanned at each leaf (same
  value, checked), against make + incremental evaluation + unmake;
- the source's level-1 evaluator: G+Q of every candidate move, moves scored per second;
- the VCF's placement (make_windows + unmake_windows: the stones, windows and hash only) against
  make + unmake, over every candidate.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from arbiter.bots.gomoku.board import (
    S_BOARD,
    S_CAND,
    S_CAND_N,
    Board,
    evaluate,
    make,
    make_windows,
    unmake,
    unmake_windows,
)
from arbiter.bots.gomoku.brain import LEAF_VCF_NODES, SHALLOW_VCT_NODES, THREE_EXTENSION_PLIES
from arbiter.bots.gomoku.evaluation import FITTED
from arbiter.bots.gomoku.geometry import G_EXACT, G_K, G_WCELLS, G_WEIGHTS, G_WENDS, G_WINDOWS
from arbiter.bots.gomoku.intuitive import score_digits
from arbiter.bots.gomoku.patterns import EVAL_MOVER, EVAL_WAITER
from arbiter.bots.gomoku.searcher import SearchConfig, Searcher

POSITIONS = [
    [111, 125, 84, 95, 80, 81, 109, 110, 140, 126, 124, 94, 142, 96, 97, 92, 93, 78, 62],
    [114, 127, 140, 111, 159, 129, 128, 142, 112, 95, 79, 96, 126, 98, 97, 154, 144, 160, 116],
    [
        128,
        142,
        98,
        143,
        144,
        112,
        127,
        129,
        115,
        113,
        97,
        110,
        111,
        126,
        94,
        140,
        139,
        125,
        95,
        96,
        124,
        154,
        168,
        155,
        170,
        79,
    ],
    [112, 127, 96, 128, 126, 129, 98, 84, 111, 141, 99, 97, 113, 114, 83, 109, 131, 115, 110, 68],
    [
        112,
        97,
        126,
        98,
        96,
        99,
        128,
        144,
        111,
        81,
        129,
        127,
        113,
        114,
        143,
        110,
        101,
        115,
        140,
        141,
        157,
        158,
        155,
        185,
        156,
        154,
        172,
    ],
    [
        112,
        113,
        126,
        98,
        128,
        83,
        96,
        80,
        127,
        129,
        81,
        111,
        97,
        82,
        95,
        157,
        53,
        67,
        142,
        94,
        114,
        156,
        158,
        174,
        144,
        160,
        130,
        172,
    ],
    [
        112,
        97,
        128,
        96,
        98,
        95,
        126,
        140,
        113,
        83,
        125,
        127,
        111,
        110,
        141,
        115,
        93,
        109,
        114,
        156,
        82,
        130,
        100,
        86,
        84,
        70,
        68,
        116,
    ],
    [112, 97, 126, 98, 96, 99, 128, 144, 111, 81, 129, 127, 113, 114, 143, 110, 101, 115, 140, 141, 157, 158],
]
FULL_STRENGTH = dict(
    width=20,
    root_vcf=100_000,
    leaf_vcf=LEAF_VCF_NODES,
    shallow_vct=SHALLOW_VCT_NODES,
    soft_time_share=1.0,
    three_extension=THREE_EXTENSION_PLIES,
)


@njit(cache=True)
def rescan_evaluate(g, s, p):
    """board.evaluate computed from the stones alone: every window, every time."""
    k = g[G_K]
    weights = g[G_WEIGHTS]
    board = s[S_BOARD]
    totals = np.zeros((2, 2), dtype=np.int64)
    for w in range(g[G_WINDOWS]):
        counts = np.zeros(3, dtype=np.int64)
        for j in range(k):
            counts[s[board + g[g[G_WCELLS] + w * k + j]]] += 1
        for q in range(2):
            if counts[2 - q] > 0 or counts[1 + q] == 0:
                continue
            if g[G_EXACT]:
                e0 = g[g[G_WENDS] + 2 * w]
                e1 = g[g[G_WENDS] + 2 * w + 1]
                if (e0 >= 0 and s[board + e0] == q + 1) or (e1 >= 0 and s[board + e1] == q + 1):
                    continue
            for table in range(2):
                totals[table, q] += g[weights + table * (k + 1) + counts[1 + q]]
    return totals[EVAL_MOVER, p] - totals[EVAL_WAITER, 1 - p]


@njit(cache=True)
def leaf_rate(g, s, p, rescan, reps):
    """make + evaluate + unmake over every candidate, ``reps`` times; returns a checksum."""
    total = 0
    moves = s[s[S_CAND] : s[S_CAND] + s[S_CAND_N]].copy()
    for _ in range(reps):
        for c in moves:
            make(g, s, c, p)
            total += rescan_evaluate(g, s, 1 - p) if rescan else evaluate(s, 1 - p)
            unmake(g, s)
    return total


@njit(cache=True)
def placement_rate(g, s, p, windows_only, reps):
    """Place and lift a stone on every candidate, ``reps`` times: with make_windows (the VCF's) or make."""
    moves = s[s[S_CAND] : s[S_CAND] + s[S_CAND_N]].copy()
    for _ in range(reps):
        for c in moves:
            if windows_only:
                make_windows(g, s, c, p)
                unmake_windows(g, s)
            else:
                make(g, s, c, p)
                unmake(g, s)
    return len(moves)


@njit(cache=True)
def intuitive_rate(g, s, p, reps):
    """G+Q of every candidate, ``reps`` times (the source's one-ply evaluator)."""
    digits = np.zeros(2 * g[G_K], dtype=np.int64)
    total = 0
    for _ in range(reps):
        for i in range(s[S_CAND_N]):
            score_digits(g, s, s[s[S_CAND] + i], p, digits)
            total += digits[-1]
    return total


def timed(function, *args) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    function(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def evaluation_rates(boards: list[Board], reps: int) -> dict[str, float]:
    """Leaves per CPU second with and without the incremental tracks, and G+Q moves per CPU second."""
    for board in boards:  # compile, and check that both evaluations agree
        g, s, p = board.g, board.s, board.to_move
        assert leaf_rate(g, s, p, False, 1) == leaf_rate(g, s, p, True, 1)
        intuitive_rate(g, s, p, 1)
        placement_rate(g, s, p, True, 1)
        placement_rate(g, s, p, False, 1)
    rates = {}
    rescan_reps, gq_reps = max(1, reps // 20), max(1, reps // 4)
    for name, per, run in (
        ("incremental", reps, lambda b: leaf_rate(b.g, b.s, b.to_move, False, reps)),
        ("rescan", rescan_reps, lambda b: leaf_rate(b.g, b.s, b.to_move, True, rescan_reps)),
        ("g+q", gq_reps, lambda b: intuitive_rate(b.g, b.s, b.to_move, gq_reps)),
        ("make", reps, lambda b: placement_rate(b.g, b.s, b.to_move, False, reps)),
        ("windows", reps, lambda b: placement_rate(b.g, b.s, b.to_move, True, reps)),
    ):
        count = cpu = 0.0
        for board in boards:
            count += per * int(board.s[S_CAND_N])
            cpu += timed(run, board)[1]
        rates[name] = count / cpu
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, nargs="+", default=[1.0, 5.0])
    parser.add_argument("--positions", type=int, default=len(POSITIONS))
    parser.add_argument("--reps", type=int, default=400, help="repetitions of the evaluation baselines")
    args = parser.parse_args()
    positions = POSITIONS[: args.positions]

    warm = Searcher(15, 15, 5, False)
    warm.set_position(POSITIONS[0])
    warm.think(SearchConfig(max_depth=3, **FULL_STRENGTH))  # compile outside the clock
    print(
        f"{'limit':>6} {'pos':>4} {'depth':>5} {'sel':>4} {'nodes':>10} {'vcf nodes':>10} {'leaf vcf':>10} "
        f"{'vct probes':>10} {'wall s':>7} {'cpu s':>6} {'nps wall':>10} {'nps cpu':>10}"
    )
    summary = {}
    for seconds in args.seconds:
        depths, wall_rates, cpu_rates = [], [], []
        for i, moves in enumerate(positions):
            searcher = Searcher(15, 15, 5, False, evaluation=FITTED)  # full strength's evaluation
            searcher.set_position(moves)
            wall, cpu = time.perf_counter(), time.process_time()
            result = searcher.think(SearchConfig(time_limit=seconds, **FULL_STRENGTH))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            depths.append(result.depth)
            wall_rates.append(result.nodes / wall)
            cpu_rates.append(result.nodes / max(cpu, 1e-9))
            print(
                f"{seconds:>6.1f} {i:>4} {result.depth:>5} {result.seldepth:>4} {result.nodes:>10,} "
                f"{result.vcf_nodes:>10,} {result.leaf_vcf_nodes:>10,} {result.shallow_vct_nodes:>10,} "
                f"{wall:>7.2f} {cpu:>6.2f} {wall_rates[-1]:>10,.0f} {cpu_rates[-1]:>10,.0f}"
            )
        summary[seconds] = (
            statistics.median(depths),
            min(depths),
            statistics.median(wall_rates),
            statistics.median(cpu_rates),
        )

    boards = [Board.from_moves(15, 15, 5, False, moves) for moves in positions]
    rates = evaluation_rates(boards, args.reps)
    print()
    for seconds, (depth, lowest, wall_nps, cpu_nps) in summary.items():
        print(
            f"{seconds:.0f} s: depth median {depth:.0f} (lowest {lowest}), nodes/s median {wall_nps:,.0f} wall, "
            f"{cpu_nps:,.0f} per CPU second"
        )
    print(
        f"leaves (make + evaluate + unmake) per CPU second: incremental {rates['incremental']:,.0f}, "
        f"rescanning every window {rates['rescan']:,.0f}: {rates['incremental'] / rates['rescan']:.1f}x"
    )
    print(
        f"placements (place + lift) per CPU second: make {rates['make']:,.0f}, the VCF's make_windows "
        f"{rates['windows']:,.0f}: {rates['windows'] / rates['make']:.2f}x"
    )
    print(
        f"source's G+Q evaluator: {rates['g+q']:,.0f} moves scored per CPU second; "
        f"search nodes per CPU second / G+Q moves per CPU second: "
        f"{summary[max(summary)][3] / rates['g+q']:.2f}"
    )


if __name__ == "__main__":
    main()
