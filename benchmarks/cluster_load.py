"""Load on a cluster of two nodes, against one node, in one run: what playing across nodes costs.

N concurrent matches of synthetic players who move the instant they get the turn (the client of
benchmarks/server_load.py), each move going through the whole server and store. Three layouts,
each on fresh server processes over one PostgreSQL and one Redis started here (as the tests start
them, arbiter.soak.services):

- ``one node``: a single node (no cluster), every player on it — the baseline;
- ``same node``: two nodes of a cluster, each match's two players on the same node (half the
  matches on each node);
- ``across``: two nodes, each match's players on different nodes, so every move is forwarded
  over Redis to the match's node and every ``moved`` comes back over Redis to one of the players.

Reported per layout: moves per second, latency from a move sent to the opponent receiving it
(p50/p99), and the CPU time per move of the Arbiter processes (the nodes; PostgreSQL and Redis
are reported apart), with the ratios the cluster issue sets targets for: across-node p99 against
same-node p99 (< 2×) and across-node CPU per move against one node's (< 2×).

    .venv/bin/python benchmarks/cluster_load.py                    # N = 1000
    .venv/bin/python benchmarks/cluster_load.py --matches 200 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from server_load import Conn, Run, cpu_seconds, moves_per_match, open_connections, pair_up, play

from arbiter.soak import services  # a throwaway PostgreSQL and Redis, as the tests start them

LAYOUTS = ("one node", "same node", "across")


class Node:
    """``arbiter serve`` in its own process, on a free port."""

    def __init__(self, db: str, cluster: str | None, name: str) -> None:
        # No connection caps: every client of the load comes from 127.0.0.1.
        argv = [sys.executable, "-m", "arbiter.cli", "serve", "--port", "0", "--db", db, "--no-warm",
                "--rate", "1000000", "--log-level", "warning",
                "--max-connections-per-ip", "0", "--max-connections", "0", "--max-guests-per-ip", "0"]  # fmt: skip
        if cluster is not None:
            argv += ["--cluster", cluster, "--node-id", name]
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        while not (line := self.process.stderr.readline()).startswith("listening on "):
            if not line:
                raise RuntimeError(f"node {name} did not start")
        self.url = line.split()[-1]
        threading.Thread(target=self.process.stderr.read, daemon=True).start()  # a full pipe would stop it

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _tree_cpu_seconds(pid: int) -> float:
    """A server and its live children (PostgreSQL's backends are the postmaster's children)."""
    total = cpu_seconds(pid)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:  # its parent
                total += cpu_seconds(int(stat.parent.name))
    return total


@dataclass
class ClusterRun(Run):
    """A run of ``server_load``'s, its ``cpu`` the nodes', with PostgreSQL's and Redis's CPU beside."""

    cpu_services: float = 0.0

    @property
    def services_us_per_move(self) -> float:
        return self.cpu_services / self.moves * 1e6


@contextlib.contextmanager
def nodes_for(layout: str, db: str, cluster: str) -> Iterator[list[Node]]:
    started: list[Node] = []
    try:
        if layout == "one node":
            started.append(Node(db, None, "solo"))
        else:
            for name in ("a", "b"):  # one after another: the first migrates the database
                started.append(Node(db, cluster, name))
        yield started
    finally:
        for node in started:
            node.stop()


async def load(layout: str, nodes: list[Node], matches: int, service_pids: list[int]) -> ClusterRun:
    first_node, second_node = nodes[0], nodes[-1]
    if layout == "one node":
        firsts = await open_connections(first_node.url, matches)
        seconds = await open_connections(first_node.url, matches)
    elif layout == "same node":
        half = matches // 2
        firsts = await open_connections(first_node.url, half) + await open_connections(second_node.url, matches - half)
        seconds = await open_connections(first_node.url, half) + await open_connections(second_node.url, matches - half)
    else:
        firsts = await open_connections(first_node.url, matches)
        seconds = await open_connections(second_node.url, matches)
    gate = asyncio.Semaphore(100)

    async def paired(first: Conn, second: Conn) -> str:
        async with gate:
            return await pair_up(first, second)

    ids = await asyncio.gather(*(paired(f, s) for f, s in zip(firsts, seconds, strict=True)))
    moves = moves_per_match(matches)
    latencies: list[float] = []
    nodes_before = sum(node.cpu_seconds() for node in nodes)
    services_before = sum(_tree_cpu_seconds(pid) for pid in service_pids)
    start = time.perf_counter()
    games = []
    for first, second, match in zip(firsts, seconds, ids, strict=True):
        sent = [0.0] * moves
        games.append(play(first, 0, match, moves, sent, latencies))
        games.append(play(second, 1, match, moves, sent, latencies))
    await asyncio.gather(*games)
    elapsed = time.perf_counter() - start
    cpu_nodes = sum(node.cpu_seconds() for node in nodes) - nodes_before
    cpu_services = sum(_tree_cpu_seconds(pid) for pid in service_pids) - services_before
    await asyncio.gather(*(c.ws.close() for c in firsts + seconds))
    return ClusterRun(layout, matches, moves * matches, elapsed, latencies, cpu_nodes, cpu_services)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="concurrent matches (N)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per layout (medians are reported)")
    args = parser.parse_args()
    print(f"cluster load: N = {args.matches} matches, mnk 26x26 in row-major order; fresh nodes per run; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    runs: dict[str, list[ClusterRun]] = {layout: [] for layout in LAYOUTS}
    with services.postgres(durable=True) as postgres, services.redis() as redis:
        service_pids = [p.pid for p in (postgres.process, redis.process) if p is not None]
        for number in range(args.repeat):
            for layout in LAYOUTS:  # alternate, so drifting machine load hits each alike
                db = postgres.create_database(f"load_{number}_{layout.replace(' ', '_')}")
                redis.flush()
                with nodes_for(layout, db, redis.url) as nodes:
                    runs[layout].append(asyncio.run(load(layout, nodes, args.matches, service_pids)))
    print(f"{'layout':>10} {'moves':>7} {'moves/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'cpu µs/move':>11}"
          f" {'pg+redis µs/move':>16}")  # fmt: skip
    medians: dict[str, dict[str, float]] = {}
    for layout, results in runs.items():
        m = medians[layout] = {
            "rate": statistics.median(r.rate for r in results),
            "p50": statistics.median(r.percentile(0.50) for r in results),
            "p99": statistics.median(r.percentile(0.99) for r in results),
            "cpu": statistics.median(r.cpu_us_per_move for r in results),
            "services": statistics.median(r.services_us_per_move for r in results),
        }
        print(f"{layout:>10} {results[0].moves:>7} {m['rate']:>9.0f} {m['p50']:>7.1f} {m['p99']:>7.1f}"
              f" {m['cpu']:>11.0f} {m['services']:>16.0f}")  # fmt: skip
    across, same, one = medians["across"], medians["same node"], medians["one node"]
    print(f"across / same node: p99 {across['p99'] / same['p99']:.2f}x (target < 2x), "
          f"moves/s {across['rate'] / same['rate']:.2f}x")  # fmt: skip
    print(f"across / one node: cpu per move {across['cpu'] / one['cpu']:.2f}x (target < 2x), "
          f"moves/s {across['rate'] / one['rate']:.2f}x; two nodes / one node, same node: "
          f"moves/s {same['rate'] / one['rate']:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
