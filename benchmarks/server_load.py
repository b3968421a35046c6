"""Load on the match server, against a bare websockets relay with the same fan-out, in one run.

For N = 1, 100 and 1000 concurrent matches, synthetic players move the instant they get the
turn. Each move goes through the whole server (decode, schema, engine validation, clocks, flag
timer, store, encode, send to both players); the baseline is a bare websockets relay that does the
same handshake and fan-out (each move re-encoded as ``moved`` and sent to both players) with no
validation, clocks or storage. Both run in their own process on the same websockets settings and
are driven by the same client code from this process.

Reported per N and server: moves per second, latency from a move sent to the opponent receiving
it (p50/p99), the server process's CPU time per move, and the ratios to the relay. Then the
memory per idle connection: the server's RSS growth over K greeted, idle connections.

    .venv/bin/python benchmarks/server_load.py                 # N = 1, 100, 1000
    .venv/bin/python benchmarks/server_load.py --matches 100 --repeat 3

The game is m,n,k on 26x26 with k = 26, moves in row-major order: no line can form before the
last row, so every match plays its full quota of moves with legal moves only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

from arbiter.server.event_loop import LOOPS, default_loop
from arbiter.server.event_loop import run as event_loop_run
from arbiter.server.net.connection import SessionConnection

SIDE = 26
GAME = {"game": "mnk", "params": {"m": SIDE, "n": SIDE, "k": SIDE}, "clock": {"initial_ms": 3_600_000}}
MAX_FRAME = 16 * 1024
CLK_TCK = os.sysconf("SC_CLK_TCK")
SERVERS = ("relay", "relay-direct", "arbiter")


# --- the two servers (each runs in its own process: `server_load.py --serve arbiter|relay`) ---------
async def serve_arbiter() -> None:
    from arbiter.server import ServerConfig, run_server

    # The rate limit stays on (its cost is part of the figure) but high enough for moves at full speed.
    config = ServerConfig(port=0, rate_per_s=1e6, rate_burst=10**6, max_matches=10)
    async with run_server(config) as server:
        await announce_and_wait(server.port)


async def serve_relay(direct: bool = False) -> None:
    """Hello, challenge, accept and move, routed without any check; each move fanned out to both players.

    With ``direct``, messages reach the relay by call from the connection, as they reach the arbiter's
    sessions (arbiter/server/net/connection.py), instead of through websockets' reader, and go out as the
    arbiter's do, one frame straight to the transport: the relay with the server's ways in and out, to
    show what the server's own work costs beside it.
    """
    names = (f"p{i}" for i in itertools.count())
    ids = (f"x{i}" for i in itertools.count())
    connections: dict[str, ServerConnection] = {}
    challenges: dict[str, tuple[str, str]] = {}
    matches: dict[str, tuple[ServerConnection, ServerConnection]] = {}
    pack, unpack = msgpack.packb, msgpack.unpackb

    def fan_out(connections: tuple[ServerConnection, ...], data: bytes) -> None:
        if direct:
            for ws in connections:
                ws.send_binary(data)  # type: ignore[attr-defined]  # a SessionConnection
        else:
            broadcast(connections, data)

    def send(ws: ServerConnection, message: dict) -> None:
        fan_out((ws,), pack(message))

    def on_message(ws: ServerConnection, name: str, frame: bytes | str) -> None:
        msg = unpack(frame)
        kind = msg["type"]
        if kind == "move":
            pair = matches[msg["match"]]
            moved = {"type": "moved", "match": msg["match"], "ply": msg["ply"], "move": msg["move"],
                     "by": 0 if ws is pair[0] else 1, "clocks": [0, 0], "elapsed_ms": 0}  # fmt: skip
            fan_out(pair, pack(moved))
        elif kind == "hello":
            send(ws, {"type": "welcome", "re": msg.get("id"), "player": {"name": name}})
        elif kind == "challenge":
            cid = next(ids)
            challenges[cid] = (name, msg["to"])
            send(ws, {"type": "challenge_created", "re": msg.get("id"), "challenge": {"id": cid}})
            send(connections[msg["to"]], {"type": "challenge_offered", "challenge": {"id": cid}})
        elif kind == "accept":
            first, second = challenges.pop(msg["challenge"])
            mid = next(ids)
            pair = matches[mid] = (connections[first], connections[second])
            for color, conn in enumerate(pair):
                send(conn, {"type": "match_start", "match": mid, "color": color})
            send(ws, {"type": "ok", "re": msg.get("id"), "match": mid})

    async def handler(ws: ServerConnection) -> None:
        name = next(names)
        connections[name] = ws
        try:
            if isinstance(ws, SessionConnection):
                if (first := await ws.first_message()) is not None:
                    on_message(ws, name, first)
                    ws.attach(lambda frame: on_message(ws, name, frame))
                    await ws.wait_closed()
            else:
                async for frame in ws:
                    on_message(ws, name, frame)
        finally:
            del connections[name]

    factory = SessionConnection if direct else None
    async with serve(
        handler, "127.0.0.1", 0, compression=None, max_size=MAX_FRAME, create_connection=factory
    ) as server:
        await announce_and_wait(server.sockets[0].getsockname()[1])


async def announce_and_wait(port: int) -> None:
    print(f"PORT {port}", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the parent closes our stdin


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class ServerProcess:
    def __init__(self, kind: str, loop: str = "asyncio") -> None:
        self.kind = kind
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", kind, "--loop", loop],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the {kind} server did not start: {line!r}")
        self.url = f"ws://127.0.0.1:{int(line.split()[1])}/"

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid)

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --- the load clients -----------------------------------------------------------------------------
class Conn:
    """One client connection: request/reply during set-up."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.name = ""
        self.backlog: list[dict] = []

    async def request(self, message: dict) -> dict:
        await self.ws.send(msgpack.packb(message))
        return await self.expect(lambda m: m.get("re") == message["id"])

    async def expect(self, predicate) -> dict:
        """The first message (kept ones included) that ``predicate`` accepts; others are kept."""
        for i, message in enumerate(self.backlog):
            if predicate(message):
                return self.backlog.pop(i)
        while True:
            message = msgpack.unpackb(await self.ws.recv())
            if message["type"] == "error":
                raise RuntimeError(f"server error: {message}")
            if predicate(message):
                return message
            self.backlog.append(message)


async def open_connections(url: str, count: int) -> list[Conn]:
    gate = asyncio.Semaphore(100)

    async def one() -> Conn:
        async with gate:
            conn = Conn(await connect(url, compression=None, max_size=2**22, open_timeout=60))
            welcome = await conn.request({"type": "hello", "id": 0, "protocol": 1, "client": "load/1"})
            conn.name = welcome["player"]["name"]
            return conn

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def pair_up(first: Conn, second: Conn) -> str:
    created = await first.request({"type": "challenge", "id": 1, "to": second.name, "color": "first", **GAME})
    await second.expect(lambda m: m["type"] == "challenge_offered")
    reply = await second.request({"type": "accept", "id": 2, "challenge": created["challenge"]["id"]})
    await first.expect(lambda m: m["type"] == "match_start")
    await second.expect(lambda m: m["type"] == "match_start")
    return reply["match"]


def move_message(match: str, ply: int) -> bytes:
    return msgpack.packb({"type": "move", "match": match, "ply": ply, "move": [ply % SIDE, ply // SIDE]})


async def play(conn: Conn, color: int, match: str, moves: int, sent: list[float], latencies: list[float]) -> None:
    """Move whenever the opponent's move arrives; stop after the match's last move."""
    ws = conn.ws
    unpack, clock = msgpack.unpackb, time.perf_counter
    if color == 0:
        sent[0] = clock()
        await ws.send(move_message(match, 0))
    async for frame in ws:
        message = unpack(frame)
        if message["type"] != "moved":
            if message["type"] in ("error", "end"):
                raise RuntimeError(f"unexpected during play: {message}")
            continue
        ply = message["ply"]
        if message["by"] != color:
            latencies.append(clock() - sent[ply])
            if ply + 1 < moves:
                sent[ply + 1] = clock()
                await ws.send(move_message(match, ply + 1))
        if ply == moves - 1:
            return


@dataclass
class Run:
    server: str
    matches: int
    moves: int
    seconds: float
    latencies: list[float]
    cpu: float

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    @property
    def cpu_us_per_move(self) -> float:
        return self.cpu / self.moves * 1e6


def moves_per_match(matches: int) -> int:
    return min(SIDE * (SIDE - 1), max(40, 60_000 // matches))


async def load(server: ServerProcess, matches: int) -> Run:
    conns = await open_connections(server.url, 2 * matches)
    gate = asyncio.Semaphore(100)

    async def paired(i: int) -> str:
        async with gate:
            return await pair_up(conns[2 * i], conns[2 * i + 1])

    ids = await asyncio.gather(*(paired(i) for i in range(matches)))
    moves = moves_per_match(matches)
    latencies: list[float] = []
    cpu_before, start = server.cpu_seconds(), time.perf_counter()
    games = []
    for i, match in enumerate(ids):
        sent = [0.0] * moves
        games.append(play(conns[2 * i], 0, match, moves, sent, latencies))
        games.append(play(conns[2 * i + 1], 1, match, moves, sent, latencies))
    await asyncio.gather(*games)
    seconds, cpu = time.perf_counter() - start, server.cpu_seconds() - cpu_before
    await asyncio.gather(*(c.ws.close() for c in conns))
    return Run(server.kind, matches, moves * matches, seconds, latencies, cpu)


async def idle_memory(server: ServerProcess, count: int) -> float:
    """KiB of server RSS per greeted, idle connection (measured after a small warm-up)."""
    warm = await open_connections(server.url, 50)
    await asyncio.sleep(0.5)
    before = server.rss_kib()
    conns = await open_connections(server.url, count)
    await asyncio.sleep(1.0)
    after = server.rss_kib()
    await asyncio.gather(*(c.ws.close() for c in conns + warm))
    return (after - before) / count


# --- the report -------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=SERVERS, help=argparse.SUPPRESS)
    parser.add_argument("--matches", type=int, nargs="+", default=[1, 100, 1000], help="values of N")
    parser.add_argument("--repeat", type=int, default=1, help="runs per N and server (medians are reported)")
    parser.add_argument("--idle", type=int, default=1000, help="idle connections for the memory figure (0: skip)")
    parser.add_argument(
        "--loop",
        choices=["both", *LOOPS],
        default="both" if default_loop() == "uvloop" else "asyncio",
        help="the servers' event loop (both: each figure on asyncio, then on uvloop)",
    )
    parser.add_argument(
        "--direct-relay",
        action="store_true",
        help="also run the relay with the server's ways in and out (connection.py) and give the ratio to it",
    )
    args = parser.parse_args()
    if args.serve:
        serving = serve_arbiter() if args.serve == "arbiter" else serve_relay(direct=args.serve == "relay-direct")
        event_loop_run(serving, args.loop)
        return
    kinds = SERVERS if args.direct_relay else ("relay", "arbiter")
    loops = ["asyncio", "uvloop"] if args.loop == "both" else [args.loop]

    print(f"server load: mnk {SIDE}x{SIDE}, moves in row-major order; a fresh server process per run; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{'N':>5} {'loop':>7} {'server':>12} {'moves':>7} {'moves/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'cpu µs/move':>11}")  # fmt: skip
    for matches in args.matches:
        for loop in loops:
            runs: dict[str, list[Run]] = {kind: [] for kind in kinds}
            for _ in range(args.repeat):
                for kind in kinds:  # in turn, so drifting machine load hits each alike
                    server = ServerProcess(kind, loop)
                    try:
                        runs[kind].append(asyncio.run(load(server, matches)))
                    finally:
                        server.stop()
            medians = {}
            for kind, results in runs.items():
                rate = statistics.median(r.rate for r in results)
                p50 = statistics.median(r.percentile(0.50) for r in results)
                p99 = statistics.median(r.percentile(0.99) for r in results)
                cpu = statistics.median(r.cpu_us_per_move for r in results)
                medians[kind] = (rate, p50, p99, cpu)
                print(f"{matches:>5} {loop:>7} {kind:>12} {results[0].moves:>7} {rate:>9.0f} {p50:>7.2f} {p99:>7.2f} "
                      f"{cpu:>11.1f}")  # fmt: skip
            (relay_rate, *_, relay_cpu), (rate, _, p99, cpu) = medians["relay"], medians["arbiter"]
            # Each arbiter run came right after a relay run: their ratio shares the machine's load of the moment.
            paired = zip(runs["relay"], runs["arbiter"], strict=True)
            pairs = sorted(a.cpu_us_per_move / r.cpu_us_per_move for r, a in paired)
            print(f"{matches:>5} {loop:>7} {'ratio':>12}  throughput arbiter/relay {rate / relay_rate:.2f}x "
                  f"(target >= 0.7 at N >= 100); server CPU per move {cpu / relay_cpu:.2f}x the relay's "
                  f"(target <= 1.2; run by run {', '.join(f'{x:.2f}' for x in pairs)}); p99 {p99:.1f} ms")  # fmt: skip
            if args.direct_relay:
                direct = medians["relay-direct"][3]
                paired = zip(runs["relay-direct"], runs["arbiter"], strict=True)
                pairs = sorted(a.cpu_us_per_move / r.cpu_us_per_move for r, a in paired)
                print(f"{matches:>5} {loop:>7} {'ratio':>12}  server CPU per move {cpu / direct:.2f}x the relay's "
                      f"with the same ways in and out (run by run {', '.join(f'{x:.2f}' for x in pairs)})")  # fmt: skip
    if args.idle:
        for kind in ("relay", "arbiter"):
            server = ServerProcess(kind)
            try:
                per = asyncio.run(idle_memory(server, args.idle))
            finally:
                server.stop()
            print(f"memory per idle connection ({kind}, {args.idle} connections): {per:.1f} KiB"
                  + (" (target < 30 KiB)" if kind == "arbiter" else ""))  # fmt: skip


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
