"""Bot runtime hot paths: how the warm pool scales, and how fast a bot process reaches its first move.

    python benchmarks/bot_pool.py [--searches 80] [--playouts 3000] [--runs 5]

Scaling: a "search" is a fixed numba workload (``--playouts`` random playouts of 15×15 gomoku, an
MCTS-like load), sent through the pool as a ThinkRequest, many at once. Reported: searches per
second in this process without a pool (the baseline), through a pool of 1 worker and of 2
workers, and the 2-worker/1-worker ratio (target ≥ 1.8 on 2 free cores).

Start: ``arbiter bot perfect --workers 2`` launched against a server running in this process and
challenged the moment it appears in the lobby; the time from launch until its first move reaches
the server — cold (an empty numba cache folder: everything compiles) and warm (the cache filled),
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
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
from websockets.asyncio.client import connect

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.pool import BrainPool
from arbiter.engine import Game, create_game
from arbiter.engine.ops import playouts
from arbiter.server import ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore

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


async def pool_rate(workers: int, count: int, playouts_each: int) -> tuple[float, float]:
    """(searches per second, worker CPU seconds per search) through a pool of ``workers``.

    The CPU figure (read once the workers are reaped) shows whether a shortfall in scaling is the
    pool's or the machine's: on a busy machine the workers wait for a core, not for each other.
    """
    cpu_before = _children_cpu()
    async with BrainPool(PlayoutBrain, workers=workers) as pool:
        await asyncio.gather(*(pool.think(r) for r in requests(workers, 2)))  # every worker answered once
        began = time.perf_counter()
        await asyncio.gather(*(pool.think(r) for r in requests(count, playouts_each)))
        rate = count / (time.perf_counter() - began)
    return rate, (_children_cpu() - cpu_before) / count


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


async def first_move_seconds(env: dict[str, str]) -> tuple[float, float]:
    """Launch the bot against a server in this process; (wall, CPU) seconds until its first move arrives.

    It is challenged (moving first) the moment it shows up in the lobby, so the figure covers the
    interpreter start, imports, the pool's warm-up and forks, the handshake and the first search.
    The CPU figure is the bot's main process alone (its workers warm up beside it): on a busy
    machine it is what the wall time would be on an idle one.
    """
    async with run_server(ServerConfig(port=0), MemoryStore()) as server:
        token = await server.hub.store.add_player("bench-bot", "bot")
        opponent_token = await server.hub.store.add_player("bench-opponent", "human")
        async with connect(server.url, compression=None) as ws:

            async def send(**message: Any) -> None:
                await ws.send(msgpack.packb(message))

            async def until(check: Any) -> dict[str, Any]:
                while True:
                    message = msgpack.unpackb(await ws.recv(), raw=False)
                    if check(message):
                        return message

            await send(type="hello", id=1, protocol=1, client="bench/1", token=opponent_token)
            await until(lambda m: m["type"] == "welcome")
            await send(type="subscribe", id=2)
            await until(lambda m: m["type"] == "lobby_state")
            command = [sys.executable, "-m", "arbiter.cli", "bot", "perfect", "--server", server.url,
                       "--workers", "2", "--games", "tictactoe", "--log-level", "error"]  # fmt: skip
            began = time.perf_counter()
            bot = subprocess.Popen(command, env={**env, "ARBITER_TOKEN": token})
            try:
                await until(lambda m: m["type"] == "presence" and m["player"]["name"] == "bench-bot")
                clock = {"initial_ms": 60_000, "increment_ms": 0}
                await send(type="challenge", id=3, to="bench-bot", game="tictactoe", clock=clock, color="second")
                await until(lambda m: m["type"] == "moved")
                return time.perf_counter() - began, _process_cpu(bot.pid)
            finally:
                bot.terminate()
                bot.wait()


def _process_cpu(pid: int) -> float:
    """User + system CPU seconds of a live process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def median_first_move(runs: int, *, fresh_cache: bool) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ)
            if fresh_cache:
                env["NUMBA_CACHE_DIR"] = cache
            wall, cpu = asyncio.run(first_move_seconds(env))
            walls.append(wall)
            cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def median_bare_start(runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import numpy"], check=True)
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
    one, one_cpu = asyncio.run(pool_rate(1, args.searches, args.playouts))
    two, two_cpu = asyncio.run(pool_rate(2, args.searches, args.playouts))
    print(f"searches/s ({args.playouts} gomoku playouts each, {args.searches} searches):")
    print(f"  in process, no pool : {base:8.2f}")
    print(f"  pool, 1 worker      : {one:8.2f}  ({one / base:.2f}x the in-process baseline; "
          f"{1000 * one_cpu:.1f} ms CPU per search)")  # fmt: skip
    print(f"  pool, 2 workers     : {two:8.2f}  ({two / one:.2f}x one worker, target >= 1.8x; "
          f"{1000 * two_cpu:.1f} ms CPU per search)")  # fmt: skip
    print(f"  load average after  : {os.getloadavg()[0]:.2f}")

    median_first_move(1, fresh_cache=False)  # fill the configured cache
    cold, cold_cpu = median_first_move(max(1, args.runs // 2), fresh_cache=True)
    warm, warm_cpu = median_first_move(args.runs, fresh_cache=False)
    bare = median_bare_start(args.runs)
    print("bot process launch to its first move on a server (perfect, 2 workers), wall and main-process CPU:")
    print(f"  cold (empty numba cache): {cold:.3f} s  ({cold_cpu:.2f} s CPU)")
    print(f"  warm (cache filled)     : {warm:.3f} s  ({warm_cpu:.2f} s CPU; target < 1 s; "
          f"bare python + numpy {bare:.3f} s, ratio {warm / bare:.2f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
