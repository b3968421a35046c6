"""`/healthz` while a client hammers `/export` and `/leaderboard` on a large store, against idle.

    python benchmarks/heavy_reads.py [--games 100000] [--clients 1] [--rounds 3] [--seconds 10] [--limit 0]
                                     [--db FILE]

Fills a fresh SQLite file (or ``--db FILE``, filled only if it does not exist yet) with ``games``
rated tic-tac-toe games through the store API (the fill of consistency_check.py), starts ``arbiter
serve`` on it in its own process, and measures the latency of ``GET /healthz`` (a new connection
each, ten a second) in ``rounds`` pairs of phases: idle (the baseline), then while ``clients``
threads, each from its own loopback address, ask for ``/export?limit=1000`` and ``/leaderboard``
back to back. ``--limit`` is the server's ``--heavy-reads-per-minute`` (0, the default here: no
cap, so every request is served and the server does all the work; ``arbiter serve``'s own default
answers most of the hammering with 429). Prints p50/p99 of each kind of phase over all its rounds,
the ratios to the baseline, and the heavy requests answered.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from consistency_check import fill  # the same store: rated tic-tac-toe games among eight players

from arbiter.server.store.sqlite import SqliteStore

HEAVY = ["/export?limit=1000", "/leaderboard?game=tictactoe&pool=tictactoe/bullet"]
PROBE_INTERVAL_S = 0.1


def get(port: int, path: str, source: str = "127.0.0.1") -> int:
    """One GET on a new connection, the whole body read; its status."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def probe(port: int, seconds: float) -> list[float]:
    """``/healthz`` latencies in milliseconds, one request every PROBE_INTERVAL_S for ``seconds``."""
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.perf_counter()
        assert get(port, "/healthz") == 200
        latencies.append((time.perf_counter() - began) * 1000)
        time.sleep(max(0.0, PROBE_INTERVAL_S - (time.perf_counter() - began)))
    return latencies


def hammer(port: int, source: str, stop: threading.Event, served: dict[int, int]) -> None:
    """Heavy requests back to back from ``source`` until ``stop``; counts by status in ``served``."""
    i = 0
    while not stop.is_set():
        status = get(port, HEAVY[i % len(HEAVY)], source)
        served[status] = served.get(status, 0) + 1
        i += 1


def percentiles(latencies: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(latencies, n=100)
    return statistics.median(latencies), cuts[98]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=1, help="hammering threads, each from its own address")
    parser.add_argument("--rounds", type=int, default=3, help="pairs of phases, idle then hammered")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--limit", type=int, default=0, help="the server's --heavy-reads-per-minute (0: no cap)")
    parser.add_argument("--db", type=Path, help="the store to use, filled first if it does not exist")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or Path(folder) / "arbiter.db"
        if not db.exists():
            began = time.perf_counter()
            asyncio.run(_filled(SqliteStore(db), args.games))
            print(f"{args.games:,} rated tic-tac-toe games stored in {time.perf_counter() - began:.1f} s")
        command = [sys.executable, "-m", "arbiter.cli", "serve", "--db", str(db), "--port", "0",
                   "--heavy-reads-per-minute", str(args.limit), "--log-level", "warning"]  # fmt: skip
        server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
        idle: list[float] = []
        loaded: list[float] = []
        served: dict[int, int] = {}
        try:
            assert server.stderr is not None
            line = server.stderr.readline()
            found = re.search(r"listening on ws://[^:]+:(\d+)/", line)
            if found is None:
                raise SystemExit(f"the server did not start: {line}{server.stderr.read()}")
            port = int(found.group(1))
            get(port, HEAVY[1])  # the pool's first fit is made before the measurement
            for _ in range(args.rounds):
                idle += probe(port, args.seconds)
                stop = threading.Event()
                threads = [
                    threading.Thread(target=hammer, args=(port, f"127.0.0.{2 + i}", stop, served), daemon=True)
                    for i in range(args.clients)
                ]
                for thread in threads:
                    thread.start()
                loaded += probe(port, args.seconds)
                stop.set()
                for thread in threads:
                    thread.join()
        finally:
            server.terminate()
            server.wait(timeout=60)
    (idle50, idle99), (load50, load99) = percentiles(idle), percentiles(loaded)
    print(f"/healthz, {len(idle)} requests in each kind of phase ({args.rounds} rounds of {args.seconds:g} s)")
    print(f"hammering: {args.clients} client(s), --heavy-reads-per-minute {args.limit}, on {', '.join(HEAVY)}")
    print(f"idle (baseline)  p50 {idle50:6.2f} ms   p99 {idle99:6.2f} ms")
    print(f"hammered         p50 {load50:6.2f} ms   p99 {load99:6.2f} ms   ({load50 / idle50:.2f}x, "
          f"{load99 / idle99:.2f}x the baseline)")  # fmt: skip
    statuses = ", ".join(f"{count} × {status}" for status, count in sorted(served.items()))
    print(f"heavy requests answered: {statuses} in {args.rounds * args.seconds:g} s")


async def _filled(store: SqliteStore, games: int) -> None:
    await store.open()
    await fill(store, games, seed=1)
    await store.close()


if __name__ == "__main__":
    main()
