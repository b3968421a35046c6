"""Store hot path: moves written through the batched stores against one commit per move.

    python benchmarks/store_writes.py [--games 100] [--moves 60] [--repeat 3] [--no-postgresql]

Plays ``games`` concurrent games of ``moves`` moves through ``SqliteStore`` and ``PostgresStore``
(record_move queues, the store commits in batches, finish_game commits each end durably) and,
in the same run, the baseline a naive server would use: the same rows with one durable commit
per move (WAL, synchronous=FULL, like the store). PostgreSQL is a throwaway server this script
starts on a free port, as the tests do (arbiter.soak.services), with its durable defaults (fsync on).
Prints the median moves per second of each over ``repeat`` runs, the ratios, and the cost of
one record_move call on the event loop (the only per-move cost the game loop pays).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameStart, MoveRecord, Store
from arbiter.server.store.postgresql import PostgresStore
from arbiter.server.store.sqlite import SqliteStore
from arbiter.soak import services  # a throwaway PostgreSQL, as the tests start it


async def batched(store: Store, games: int, moves: int) -> tuple[float, float]:
    """Moves per second through the store, and the median record_move call in microseconds."""
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
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; medians are printed")
    parser.add_argument("--no-postgresql", action="store_true", help="SQLite only (no PostgreSQL on this machine)")
    args = parser.parse_args()
    sqlite_runs, postgres_runs, baseline_runs, calls = [], [], [], []
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        server = None if args.no_postgresql else stack.enter_context(services.postgres(durable=True))
        for run in range(args.repeat):
            rate, call_us = asyncio.run(batched(SqliteStore(Path(folder) / f"store{run}.db"), args.games, args.moves))
            sqlite_runs.append(rate)
            calls.append(call_us)
            if server is not None:
                store = PostgresStore(server.create_database(f"run{run}"))
                postgres_runs.append(asyncio.run(batched(store, args.games, args.moves))[0])
            baseline_runs.append(per_move_commits(Path(folder) / f"baseline{run}.db", args.games, args.moves))
    sqlite_rate, baseline_rate = statistics.median(sqlite_runs), statistics.median(baseline_runs)
    print(f"{args.games} games x {args.moves} moves, median of {args.repeat} runs")
    call_us = statistics.median(calls)
    print(f"SQLite store         {sqlite_rate:>10,.0f} moves/s   (record_move median {call_us:.1f} us)")
    if postgres_runs:
        postgres_rate = statistics.median(postgres_runs)
        print(f"PostgreSQL store     {postgres_rate:>10,.0f} moves/s   ({postgres_rate / sqlite_rate:.2f}x SQLite's)")
    print(f"commit per move      {baseline_rate:>10,.0f} moves/s")
    print(f"SQLite / per move    {sqlite_rate / baseline_rate:>10.1f}x")


if __name__ == "__main__":
    main()
