"""MCTS simulations per second, with one worker process and with two, against random playouts.

Usage: python benchmarks/mcts_search.py [--games tictactoe,gomoku,paper_soccer] [--seconds 1]
       [--repeats 5] [--solver]

For each game, in the same run and interleaved so that a busy machine slows every figure alike:
- ``random playouts/s``: uniform playouts from the start position (``ops.playouts``), the baseline;
- ``mcts/s``: MCTS simulations from the start position (light playouts, a fresh tree each time)
  in one process, and its ratio to the baseline;
- ``2 workers``: the simulations of two processes searching at the same time (root parallelism
  runs one search per worker), summed, and their ratio to one worker.
Each figure is the median of ``--repeats`` measurements of ``--seconds`` each. The solver is off
by default: once it has proved part of the tree, simulations through proven nodes cost almost
nothing and would flatter the rate.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from typing import Any

import numpy as np

from arbiter.bots.mcts.brain import Settings
from arbiter.bots.mcts.tree import POLICY_LIGHT, Tree, seed_random
from arbiter.engine import create_game
from arbiter.engine.ops import playouts


def random_playouts_per_second(name: str, seconds: float) -> float:
    game = create_game(name)
    start = game.new_state().s
    state_buffer = np.empty_like(start)
    action_buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    done, batch = 0, 256
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        playouts(game.gid, game.param_array, start, batch, state_buffer, action_buffer, done + 1)
        done += batch
    return done / elapsed


def mcts_per_second(name: str, seconds: float, solver: bool, seed: int = 1) -> float:
    """Simulations per second of one search from the start position, grown for ``seconds``."""
    seed_random(seed)
    tree = Tree(create_game(name).new_state(), max_nodes=8_000_000)
    done, batch = 0, 256
    began = time.perf_counter()
    while (elapsed := time.perf_counter() - began) < seconds:
        ran, _ = tree.search(batch, exploration=Settings().exploration, solver=solver, policy=POLICY_LIGHT)
        done += ran
        if ran < batch:  # the solver proved the root
            break
    return done / elapsed


def _worker(name: str, seconds: float, solver: bool, seed: int, barrier: Any, results: Any) -> None:
    barrier.wait()
    results.put(mcts_per_second(name, seconds, solver, seed))


def two_workers_per_second(name: str, seconds: float, solver: bool) -> float:
    """Summed simulations per second of two forked processes searching at once."""
    context = multiprocessing.get_context("fork")  # the children inherit the compiled kernels
    barrier = context.Barrier(2)
    results = context.Queue()
    workers = [
        context.Process(target=_worker, args=(name, seconds, solver, seed, barrier, results)) for seed in (11, 12)
    ]
    for worker in workers:
        worker.start()
    rates = [results.get() for _ in workers]
    for worker in workers:
        worker.join()
    return sum(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="tictactoe,gomoku,paper_soccer")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--solver", action="store_true", help="search with the solver on")
    args = parser.parse_args()
    names = [name.strip() for name in args.games.split(",") if name.strip()]
    for name in names:  # compile and warm before any clock
        random_playouts_per_second(name, 0.05)
        mcts_per_second(name, 0.05, args.solver)

    print(f"cores: {multiprocessing.cpu_count()}, {args.repeats} x {args.seconds} s per figure, solver {args.solver}")
    header = f"{'game':<14}{'random playouts/s':>20}{'mcts/s':>14}{'mcts/random':>13}{'2 workers/s':>14}{'2w/1w':>8}"
    print(header)
    print("-" * len(header))
    for name in names:
        baseline, single, double = [], [], []
        for _ in range(args.repeats):
            baseline.append(random_playouts_per_second(name, args.seconds))
            single.append(mcts_per_second(name, args.seconds, args.solver))
            double.append(two_workers_per_second(name, args.seconds, args.solver))
        b, s, d = (statistics.median(values) for values in (baseline, single, double))
        print(f"{name:<14}{b:>20,.0f}{s:>14,.0f}{s / b:>13.2f}{d:>14,.0f}{d / s:>8.2f}")
        spread = ", ".join(
            f"{label} {min(values):,.0f}..{max(values):,.0f}"
            for label, values in (("random", baseline), ("mcts", single), ("2 workers", double))
        )
        print(f"{'':<14}range: {spread}")


if __name__ == "__main__":
    main()
