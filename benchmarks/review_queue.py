"""A live game's move latency with the analysis queue full, against the same with it empty.

    .venv/bin/python benchmarks/review_queue.py [--runs 5] [--moves 200]

A real server on loopback (memory store); two clients play a long m,n,k 26×26 game, timing each
move from its send to its ``moved``. In the loaded run an analysis worker (a plain client here:
what a worker costs the server is its frames) takes jobs and keeps them, so the queue stays at its
bound of 50 analysis-board requests, and a requester sends another request as each refusal
(``analysis_queue_full``) comes back, as fast as the server answers, while the game goes on.
Figures: median and 95th percentile of the move round trip, medians over ``--runs``, and the
loaded/empty ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from arbiter.server import ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore

SIDE = 26
ANSWER = False  # the worker takes its jobs and keeps them: the queue stays full, later requests are refused
HELD: list[tuple[int, int, int]] = []  # loaded runs: requests held before and after the game, results taken (none)
GAME = {"game": "mnk", "params": {"m": SIDE, "n": SIDE, "k": 20}}


async def client(url: str, **hello: Any) -> tuple[ClientConnection, dict[str, Any]]:
    ws = await connect(url, compression=None, max_size=2**24)
    await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "client": "bench/1", **hello}))
    welcome = msgpack.unpackb(await ws.recv())
    return ws, welcome


async def until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        message = msgpack.unpackb(await ws.recv())
        if message["type"] == kind:
            return message


async def worker(url: str, stop: asyncio.Event) -> None:
    ws, _ = await client(url, games=["mnk"], analysis=64)
    while not stop.is_set():
        message = msgpack.unpackb(await ws.recv())
        if message["type"] == "analysis_job" and ANSWER:
            evals = [{"ply": p, "win": 0.5, "best": [SIDE - 1, SIDE - 1], "pv": []} for p in message["plies"]]
            await ws.send(msgpack.packb({"type": "analysis_result", "job": message["job"], "evals": evals}))
    await ws.close()


async def requester(url: str, stop: asyncio.Event) -> None:
    """Sends 50 analysis-board requests, then another as each is answered or refused."""
    ws, _ = await client(url)
    for n in range(50):
        await ws.send(msgpack.packb({"type": "analyse", "id": n, **GAME, "moves": [[n % SIDE, n // SIDE]]}))
    n = 50
    while not stop.is_set():
        message = msgpack.unpackb(await ws.recv())
        if message.get("re") is not None:
            n += 1
            await ws.send(msgpack.packb({"type": "analyse", "id": n, **GAME, "moves": [[n % SIDE, n // SIDE % SIDE]]}))
    await ws.close()


async def game_latencies(url: str, moves: int) -> list[float]:
    (first, _), (second, b) = await client(url), await client(url)
    await first.send(msgpack.packb({"type": "challenge", "to": b["player"]["name"], **GAME, "color": "first",
                                    "clock": {"initial_ms": 3_600_000}}))  # fmt: skip
    offered = await until(second, "challenge_offered")
    await second.send(msgpack.packb({"type": "accept", "challenge": offered["challenge"]["id"]}))
    match = (await until(first, "match_start"))["match"]
    await until(second, "match_start")
    times = []
    for ply in range(moves):
        mover = (first, second)[ply % 2]
        started = time.perf_counter()
        await mover.send(msgpack.packb({"type": "move", "match": match, "ply": ply, "move": [ply // SIDE, ply % SIDE]}))
        await until(mover, "moved")
        times.append(time.perf_counter() - started)
        await until((second, first)[ply % 2], "moved")
    for ws in (first, second):
        await ws.close()
    return times


async def run(moves: int, loaded: bool) -> tuple[float, float]:
    config = ServerConfig(port=0, analyse_burst=10**6, analyse_per_s=10**6, review_budget_ms=1)
    async with run_server(config, MemoryStore()) as server:
        stop = asyncio.Event()
        load = (
            [asyncio.create_task(worker(server.url, stop)), asyncio.create_task(requester(server.url, stop))]
            if loaded
            else []
        )
        if loaded:
            await asyncio.sleep(0.5)
        held = len(server.hub.analysis.tasks)
        times = await game_latencies(server.url, moves)
        if loaded:
            HELD.append((held, len(server.hub.analysis.tasks), server.hub.analysis.answered))
        stop.set()
        for task in load:
            task.cancel()
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--moves", type=int, default=200)
    args = parser.parse_args()
    empty, full = [], []
    for _ in range(args.runs):
        empty.append(asyncio.run(run(args.moves, loaded=False)))
        full.append(asyncio.run(run(args.moves, loaded=True)))
    e50, e95 = (statistics.median(x[i] for x in empty) for i in (0, 1))
    f50, f95 = (statistics.median(x[i] for x in full) for i in (0, 1))
    print(f"live move round trip, mnk {SIDE}x{SIDE}, {args.moves} moves, medians of {args.runs} runs (ms)")
    print(f"  queue empty: median {e50:.3f}  p95 {e95:.3f}")
    print(f"  queue full (50 board requests held, the 51st refused in a loop): median {f50:.3f}  p95 {f95:.3f}")
    print(f"  loaded runs (requests held before, after, results taken): {HELD}")
    print(f"  ratio full/empty: median {f50 / e50:.2f}x  p95 {f95 / e95:.2f}x")


if __name__ == "__main__":
    main()
