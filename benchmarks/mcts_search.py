"""MCTS simulations per second, with one worker process and with two, against random playouts.

Usage: python benchmarks/mcts_search.py [--games tictactoe,gomoku,paper_soccer] [--seconds 1]
       [--repeats 5] [--solver] [--policy light|random]

For each game, in the same run and interleaved so that a busy machine slows every figure alike:
- ``random playouts/s``: uniform playouts from the start position (``ops.playouts``), the baseline;
- ``mcts/s``: MCTS simulations from the start position (the bot's light playouts unless
  ``--policy random``; a fresh tree each time)
  in one process, and its ratio to the baseline;
- ``2 workers``: the simulations of two processes searching at the same time (root parallelism
  runs one search per worker), summed, and their ratio to one worker.
Each figure is the median of ``--repeats`` measurements of ``--seconds`` each. The ``per CPU s``
columns divide by the CPU time the measuring thread actually got instead of the wall time: on a
machine shared with other work they estimate what one core does when it is not shared (the
two-worker ratio needs two free cores and is only meaningful on a quiet machine; the load average
is printed for that reason). The solver is off by default: once it has proved part of the tree,
simulations through proven nodes cost almost nothing and would flatter the rate.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from typing import Any

import numpy as np

from arbiter.bots.mcts.brain import POLICIES, Settings
from arbiter.bots.mcts.tree import Tree, seed_random
from arbiter.engine import create_game
from arbiter.engine.ops import playouts


def random_playouts_per_second(name: str, seconds: float) -> tuple[float, float]:
    """(playouts per wall second, per CPU second) from the start position."""
    game = create_game(name)
    start = game.new_state().s
    state_buffer = np.empty_like(start)
    action_buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    done, batch = 0, 256
    began, cpu = time.perf_counter(), time.thread_time()
    while (elapsed := time.perf_counter() - began) < seconds:
        playouts(game.gid, game.param_array, start, batch, state_buffer, action_buffer, done + 1)
        done += batch
    return done / elapsed, done / (time.thread_time() - cpu)


def mcts_per_second(name: str, seconds: float, solver: bool, policy: int, seed: int = 1) -> tuple[float, float]:
    """(simulations per wall second, per CPU second) of one search from the start position."""
    seed_random(seed)
    tree = Tree(create_game(name).new_state(), max_nodes=8_000_000)
    done, batch = 0, 256
    began, cpu = time.perf_counter(), time.thread_time()
    while (elapsed := time.perf_counter() - began) < seconds:
        ran, _ = tree.search(batch, exploration=Settings().exploration, solver=solver, policy=policy)
        done += ran
        if ran < batch:  # the solver proved the root
            break
    return done / elapsed, done / (time.thread_time() - cpu)


def _worker(name: str, seconds: float, solver: bool, policy: int, seed: int, barrier: Any, results: Any) -> None:
    barrier.wait()
    results.put(mcts_per_second(name, seconds, solver, policy, seed)[0])


def two_workers_per_second(name: str, seconds: float, solver: bool, policy: int) -> float:
    """Summed simulations per second of two forked processes searching at once."""
    context = multiprocessing.get_context("fork")  # the children inherit the compiled kernels
    barrier = context.Barrier(2)
    results = context.Queue()
    workers = [
        context.Process(target=_worker, args=(name, seconds, solver, policy, seed, barrier, results))
        for seed in (11, 12)
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
    parser.add_argument("--policy", choices=sorted(POLICIES), default="light", help="playout policy (the bot's: light)")
    args = parser.parse_args()
    policy = POLICIES[args.policy]
    names = [name.strip() for name in args.games.split(",") if name.strip()]
    for name in names:  # compile and warm before any clock
        random_playouts_per_second(name, 0.05)
        mcts_per_second(name, 0.05, args.solver, policy)

    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"cores: {multiprocessing.cpu_count()}, load average {load}; {args.repeats} x {args.seconds} s per figure; "
        f"{args.policy} playouts, solver {'on' if args.solver else 'off'}"
    )
    header = (
        f"{'game':<14}{'random/s':>11}{'mcts/s':>11}{'ratio':>7}"
        f"{'random/CPU s':>14}{'mcts/CPU s':>12}{'ratio':>7}{'2 workers/s':>13}{'2w/1w':>7}"
    )
    print(header)
    print("-" * len(header))
    for name in names:
        baseline, single, double = [], [], []
        for _ in range(args.repeats):
            baseline.append(random_playouts_per_second(name, args.seconds))
            single.append(mcts_per_second(name, args.seconds, args.solver, policy))
            double.append(two_workers_per_second(name, args.seconds, args.solver, policy))
        b, bc = (statistics.median(v[i] for v in baseline) for i in (0, 1))
        s, sc = (statistics.median(v[i] for v in single) for i in (0, 1))
        d = statistics.median(double)
        print(
            f"{name:<14}{b:>11,.0f}{s:>11,.0f}{s / b:>7.2f}"
            f"{bc:>14,.0f}{sc:>12,.0f}{sc / bc:>7.2f}{d:>13,.0f}{d / s:>7.2f}"
        )
        print(
            f"{'':<14}ranges: random {min(v[0] for v in baseline):,.0f}..{max(v[0] for v in baseline):,.0f}, "
            f"mcts {min(v[0] for v in single):,.0f}..{max(v[0] for v in single):,.0f}, "
            f"mcts/CPU s {min(v[1] for v in single):,.0f}..{max(v[1] for v in single):,.0f}, "
            f"2 workers {min(double):,.0f}..{max(double):,.0f}"
        )


if __name__ == "__main__":
    main()
