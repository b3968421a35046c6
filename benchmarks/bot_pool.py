"""Bot runtime hot paths: how the warm pool scales, and how fast a bot process reaches its first move.

    python benchmarks/bot_pool.py [--searches 80] [--playouts 3000] [--runs 5]

Scaling: a "search" is a fixed numba workload (``--playouts`` random playouts of 15×15 gomoku, an
MCTS-like load), sent through the pool as a ThinkRequest, many at once. Reported: searches per
second in this process without a pool (the baseline), through a pool of 1 worker and of 2
workers, and the 2-worker/1-worker ratio (target ≥ 1.8 on 2 free cores).

Start: a new bot process that starts a pool of ``perfect`` (2 workers), asks for its first move
and exits — cold (an empty numba cache folder: everything compiles) and warm (the cache filled),
median of ``--runs``, against a bare interpreter that imports numpy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.pool import BrainPool
from arbiter.engine import Game, create_game
from arbiter.engine.ops import playouts

GAME = create_game("gomoku")


class PlayoutBrain(Brain):
    """A fixed amount of numba work per request: the unit the pool's throughput is measured in."""

    name = "playout-bench"

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def think(self, request: ThinkRequest) -> ThinkResult:
        return ThinkResult(None, {"tally": run_playouts(request.options["playouts"], request.seed).tolist()})

    def warm_up(self) -> None:
        run_playouts(2, 0)


def run_playouts(count: int, seed: int) -> np.ndarray:
    state = GAME.new_state()
    buffer = np.empty(max(GAME.max_actions, GAME.state_size), dtype=np.int64)
    return playouts(GAME.gid, GAME.param_array, state.s, count, np.empty_like(state.s), buffer, seed)


def requests(count: int, playouts_each: int) -> list[ThinkRequest]:
    return [
        ThinkRequest(f"m{i}", "gomoku", {}, [], 10.0, seed=i, options={"playouts": playouts_each}) for i in range(count)
    ]


def in_process_rate(count: int, playouts_each: int) -> float:
    brain = PlayoutBrain()
    brain.warm_up()
    began = time.perf_counter()
    for request in requests(count, playouts_each):
        brain.think(request)
    return count / (time.perf_counter() - began)


async def pool_rate(workers: int, count: int, playouts_each: int) -> float:
    async with BrainPool(PlayoutBrain, workers=workers) as pool:
        await asyncio.gather(*(pool.think(r) for r in requests(workers, 2)))  # every worker answered once
        began = time.perf_counter()
        await asyncio.gather(*(pool.think(r) for r in requests(count, playouts_each)))
        return count / (time.perf_counter() - began)


FIRST_MOVE = """
import asyncio, time
began = time.perf_counter()
from arbiter.bots.brain import ThinkRequest
from arbiter.bots.pool import BrainPool
from arbiter.bots.registry import brain_class

async def main():
    async with BrainPool(brain_class("perfect"), workers=2) as pool:
        await pool.think(ThinkRequest("m", "tictactoe", {}, [[1, 1]], 1.0))
asyncio.run(main())
"""


def median_seconds(code: str, runs: int, env: dict[str, Any] | None = None, fresh_cache: bool = False) -> float:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            run_env = dict(env or os.environ)
            if fresh_cache:
                run_env["NUMBA_CACHE_DIR"] = cache
            began = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=run_env)
            times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=80)
    parser.add_argument("--playouts", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    base = in_process_rate(args.searches, args.playouts)
    one = asyncio.run(pool_rate(1, args.searches, args.playouts))
    two = asyncio.run(pool_rate(2, args.searches, args.playouts))
    print(f"searches/s ({args.playouts} gomoku playouts each, {args.searches} searches):")
    print(f"  in process, no pool : {base:8.2f}")
    print(f"  pool, 1 worker      : {one:8.2f}  ({one / base:.2f}x the in-process baseline)")
    print(f"  pool, 2 workers     : {two:8.2f}  ({two / one:.2f}x one worker; target >= 1.8x)")

    subprocess.run([sys.executable, "-c", FIRST_MOVE], check=True)  # fill the configured cache
    cold = median_seconds(FIRST_MOVE, max(1, args.runs // 2), fresh_cache=True)
    warm = median_seconds(FIRST_MOVE, args.runs)
    bare = median_seconds("import numpy", args.runs)
    print("bot process start to first move (perfect, 2 workers):")
    print(f"  cold (empty numba cache): {cold:.3f} s")
    print(
        f"  warm (cache filled)     : {warm:.3f} s  (target < 1 s; bare python + numpy {bare:.3f} s, "
        f"ratio {warm / bare:.2f}x)"
    )


if __name__ == "__main__":
    main()
