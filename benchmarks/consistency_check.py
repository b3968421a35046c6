"""`arbiter check` on a large store: games checked per second against just reading them, and memory.

    python benchmarks/consistency_check.py [--games 100000] [--repeat 3]

Fills a fresh SQLite file with ``games`` rated tic-tac-toe games (random legal moves, eight players,
each end rated by the server's rule, as a server stores them), then, ``repeat`` times each and
alternating: the baseline, streaming every game with its moves (``Store.stream_games``, what any
check must read), and the whole check (``consistency.check_store``: every game replayed through
the engine, every rating recomputed). Prints the medians, the check's cost over the read, and the
process's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

from arbiter.engine import create_game
from arbiter.server.results.consistency import check_store
from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameStart, MoveRecord
from arbiter.server.store.sqlite import SqliteStore
from arbiter.server.warmup import warm_games

PLAYERS = [f"p{i}" for i in range(8)]
CLOCK = {"initial_ms": 60_000, "increment_ms": 1_000}


async def fill(store: SqliteStore, games: int, seed: int) -> int:
    """Store ``games`` random rated games; the number of moves."""
    rng = random.Random(seed)
    rules = create_game("tictactoe")
    for name in PLAYERS:
        await store.add_player(name, "bot")
    moves = 0
    for chunk in range(0, games, 500):
        ends = []
        for i in range(chunk, min(games, chunk + 500)):
            first, second = rng.sample(PLAYERS, 2)
            match = f"m{i}"
            await store.start_game(GameStart(match, "tictactoe", {}, (first, second), CLOCK, True, 1e9 + i))
            state = rules.new_state()
            ply = 0
            while not state.is_terminal:
                move = rng.choice(state.legal_moves())
                state.play(move)
                store.record_move(match, MoveRecord(ply, rules.encode_move(move), 100))
                ply += 1
            moves += ply
            outcome = state.outcome
            assert outcome is not None
            ends.append(store.finish_game(match, outcome.result, outcome.reason, 1e9 + i + 1, rate_result))
        await asyncio.gather(*ends)
    return moves


async def read_all(store: SqliteStore) -> int:
    count = 0
    async for _ in store.stream_games():
        count += 1
    return count


async def check_all(store: SqliteStore) -> int:
    differences: list[object] = []
    summary = await check_store(store, differences.append)
    assert not differences, differences[:3]
    return summary.games


async def main(games: int, repeat: int) -> None:
    warm_games()
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "check.db")
        await store.open()
        began = time.perf_counter()
        moves = await fill(store, games, seed=1)
        print(f"{games:,} rated tic-tac-toe games, {moves:,} moves, stored in {time.perf_counter() - began:.1f} s")
        reads, checks = [], []
        for _ in range(repeat):
            for runs, work in ((reads, read_all), (checks, check_all)):
                began = time.perf_counter()
                assert await work(store) == games
                runs.append(time.perf_counter() - began)
        await store.close()
    read, check = statistics.median(reads), statistics.median(checks)
    print(f"median of {repeat}")
    print(f"read every game     {read:6.2f} s   {games / read:>9,.0f} games/s")
    print(f"arbiter check       {check:6.2f} s   {games / check:>9,.0f} games/s   ({check / read:.2f}x the read)")
    print(f"peak RSS            {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:6.0f} MiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.games, args.repeat))
