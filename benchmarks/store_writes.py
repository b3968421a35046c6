"""Store hot path: moves written through the batched store against one commit per move.

    python benchmarks/store_writes.py [--games 100] [--moves 60]

Plays ``games`` concurrent games of ``moves`` moves through ``SqliteStore`` (record_move queues,
the store's thread commits in batches, finish_game commits each end durably) and, in the same
run, the baseline a naive server would use: the same rows with one durable commit per move
(WAL, synchronous=FULL, like the store). Prints moves per second for both, the ratio, and the
cost of one record_move call on the event loop (the only per-move cost the game loop pays).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from arbiter.server.rating_updates import rate_result
from arbiter.server.store.base import GameStart, MoveRecord
from arbiter.server.store.sqlite import SqliteStore


async def batched(path: Path, games: int, moves: int) -> tuple[float, float]:
    """Moves per second through the store, and the median record_move call in microseconds."""
    store = SqliteStore(path)
    await store.open()
    ids = [f"m{i}" for i in range(games)]
    began = time.perf_counter()
    for match_id in ids:
        await store.start_game(GameStart(match_id, "gomoku", {}, ("a", "b"), {}, False, time.time()))
    calls = []
    for ply in range(moves):
        for match_id in ids:
            t = time.perf_counter_ns()
            store.record_move(match_id, MoveRecord(ply, [ply % 15, ply // 15], 10))
            calls.append(time.perf_counter_ns() - t)
        await asyncio.sleep(0)  # let the loop breathe between rounds, as a server would
    await asyncio.gather(*(store.finish_game(m, "1-0", "line", time.time(), rate_result) for m in ids))
    elapsed = time.perf_counter() - began
    await store.close()
    return games * moves / elapsed, statistics.median(calls) / 1000


def per_move_commits(path: Path, games: int, moves: int) -> float:
    """The baseline: the same schema and rows, one durable transaction per move."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE moves (game TEXT, ply INTEGER, move TEXT, elapsed_ms INTEGER, PRIMARY KEY (game, ply))")
    began = time.perf_counter()
    for ply in range(moves):
        for i in range(games):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO moves VALUES (?, ?, ?, ?)", (f"m{i}", ply, f"[{ply % 15},{ply // 15}]", 10))
            conn.execute("COMMIT")
    elapsed = time.perf_counter() - began
    conn.close()
    return games * moves / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--moves", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store_rate, call_us = asyncio.run(batched(Path(folder) / "store.db", args.games, args.moves))
        baseline_rate = per_move_commits(Path(folder) / "baseline.db", args.games, args.moves)
    print(f"{args.games} games x {args.moves} moves")
    print(f"batched store        {store_rate:>10,.0f} moves/s   (record_move median {call_us:.1f} us on the loop)")
    print(f"commit per move      {baseline_rate:>10,.0f} moves/s")
    print(f"ratio                {store_rate / baseline_rate:>10.1f}x")


if __name__ == "__main__":
    main()
