"""The server's move path in one process, no sockets: CPU per move against a bare relay's handler.

    .venv/bin/python benchmarks/move_path.py [--runs 20] [--matches 1 100 1000] [--profile]

``server_load.py`` measures the whole server over real websockets, where the socket calls and
websockets' framing (shared with its relay) are most of the cost and a busy machine moves the
figure by 20% from run to run. This script isolates what the server adds: sessions of a real
``Hub`` (memory store, the same ServerConfig as server_load.py) play N matches of m,n,k 26×26 in
row-major order at once, a move of each in turn, each move handed to ``Session.receive`` as the
frame a client sends, with transports that only count frames; the garbage collector is set as
``run_server`` sets it. The baseline, in the same run, is what server_load.py's relay does for a
move: find the match, decode the frame, build ``moved`` and encode it once for both players.

Times are the thread's CPU time (``time.thread_time``), so other jobs on the machine change them
little; each run plays fresh matches, as many moves as server_load.py plays for the same N, and
the figures are medians over ``--runs``. ``--profile`` prints cProfile's top functions of one more
run (of the first N) instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import pstats
import statistics
import time
from collections.abc import Iterator
from typing import Any

import msgpack

from arbiter.protocol.codec import encode
from arbiter.server.app import GC_YOUNG_THRESHOLD
from arbiter.server.config import ServerConfig
from arbiter.server.hub import Hub
from arbiter.server.play.session import Session
from arbiter.server.store.memory import MemoryStore
from arbiter.server.warmup import warm_games

SIDE = 26
MOVES = SIDE * (SIDE - 1)  # no line of 26 can form before the last row: every move is legal and none ends the game
TOTAL_MOVES = 60_000  # a run's moves over all its matches, as in server_load.py
CHALLENGE = {"game": "mnk", "params": {"m": SIDE, "n": SIDE, "k": SIDE}, "clock": {"initial_ms": 3_600_000}}


class CountingTransport:
    """A transport that keeps the last frames it was given (to read replies) and otherwise only counts."""

    latency = 0.0
    closed_by_client = False

    def __init__(self) -> None:
        self.sent = 0
        self.last: list[bytes] = []

    def send(self, data: bytes) -> None:
        self.sent += 1
        if len(self.last) < 16:
            self.last.append(data)

    def confirm(self, on_confirmed) -> None:
        on_confirmed()  # in-process: every frame is read at once

    def close(self, code: int, reason: str) -> None:
        raise AssertionError(f"the benchmark's session was closed: {code} {reason}")


def move_frames(match: str) -> list[bytes]:
    return [msgpack.packb({"type": "move", "match": match, "ply": ply, "move": [ply % SIDE, ply // SIDE]})
            for ply in range(MOVES)]  # fmt: skip


async def request(session: Session, message: dict[str, Any], reply: str) -> dict[str, Any]:
    """Send ``message`` through ``session`` and return the first frame of type ``reply`` it was sent."""
    transport = session.transport
    assert isinstance(transport, CountingTransport)
    transport.last.clear()
    pending = session.receive(encode(message))
    if pending is not None:
        await pending
    for frame in transport.last:
        decoded = msgpack.unpackb(frame)
        if decoded["type"] == reply:
            return decoded
    raise AssertionError(f"no {reply} after {message['type']}")


def moves_per_match(matches: int) -> int:
    return min(MOVES, max(40, TOTAL_MOVES // matches))


async def arbiter_run(matches: int = 1, profile: cProfile.Profile | None = None) -> float:
    """CPU µs per move of the server's path for ``matches`` matches played at once."""
    config = ServerConfig(port=0, rate_per_s=1e6, rate_burst=10**6, max_matches=10)
    hub = Hub(config, MemoryStore())
    moves = moves_per_match(matches)
    games = []
    for i in range(matches):
        first, second = Session(hub, CountingTransport()), Session(hub, CountingTransport())
        for name, session in ((f"a{i}", first), (f"b{i}", second)):
            assert await session.handshake(encode({"type": "hello", "protocol": 1, "client": name}))
        assert second.player is not None
        created = await request(first, {"type": "challenge", "to": second.player.name, "color": "first", **CHALLENGE},
                                "challenge_created")  # fmt: skip
        started = await request(second, {"type": "accept", "challenge": created["challenge"]["id"]}, "match_start")
        games.append(((first, second), move_frames(started["match"])[:moves]))
    with server_gc():
        if profile is not None:
            profile.enable()
        began = time.thread_time()
        for ply in range(moves):
            for sessions, frames in games:
                sessions[ply % 2].receive(frames[ply])
        spent = time.thread_time() - began
        if profile is not None:
            profile.disable()
    for live in hub.matches.live.values():
        assert live.match.ply == moves, f"a match stopped at ply {live.match.ply}: a move was refused"
    return spent / (moves * matches) * 1e6


def relay_run(matches: int = 1) -> float:
    """CPU µs per move of the relay's work: find the match, decode, build ``moved``, encode once, send to both."""
    moves = moves_per_match(matches)
    pairs = {f"x{i}": (CountingTransport(), CountingTransport()) for i in range(matches)}
    games = [move_frames(match)[:moves] for match in pairs]
    with server_gc():
        began = time.thread_time()
        for ply in range(moves):
            for frames in games:
                msg = msgpack.unpackb(frames[ply])
                players = pairs[msg["match"]]
                moved = {"type": "moved", "match": msg["match"], "ply": msg["ply"], "move": msg["move"],
                         "by": ply % 2, "clocks": [0, 0], "elapsed_ms": 0}  # fmt: skip
                data = msgpack.packb(moved)
                for player in players:
                    player.send(data)
        spent = time.thread_time() - began
    return spent / (moves * matches) * 1e6


@contextlib.contextmanager
def server_gc() -> Iterator[None]:
    """The collector as ``run_server`` leaves it (all there is so far frozen, young collections less
    often) inside the block, and as it was after it (a test process runs this too)."""
    threshold = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs per figure (medians are printed)")
    parser.add_argument("--matches", type=int, nargs="+", default=[1], help="values of N, matches played at once")
    parser.add_argument("--profile", action="store_true", help="print a profile of one more run")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if min(args.matches) < 1:
        parser.error("--matches must be at least 1")
    warm_games()
    print(f"move path, mnk {SIDE}x{SIDE}, medians of {args.runs} runs (thread CPU time µs per move)")
    print(f"{'N':>5} {'moves':>6} {'arbiter':>8} {'relay':>6} {'adds':>6} {'ratio':>6}")
    for matches in args.matches:
        server, relay = [], []
        for _ in range(args.runs):  # interleaved, so drifting load touches both alike
            server.append(asyncio.run(arbiter_run(matches)))
            relay.append(relay_run(matches))
        server_us, relay_us = statistics.median(server), statistics.median(relay)
        print(f"{matches:>5} {moves_per_match(matches) * matches:>6} {server_us:>8.2f} {relay_us:>6.2f} "
              f"{server_us - relay_us:>6.2f} {server_us / relay_us:>5.1f}x")  # fmt: skip
    if args.profile:
        profile = cProfile.Profile()
        asyncio.run(arbiter_run(args.matches[0], profile))
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
