"""The server's move path in one process, no sockets: CPU per move against a bare relay's handler.

    .venv/bin/python benchmarks/move_path.py [--runs 40] [--profile]

``server_load.py`` measures the whole server over real websockets, where the socket calls and
websockets' framing (shared with its relay) are most of the cost and a busy machine moves the
figure by 20% from run to run. This script isolates what the server adds: two sessions of a real
``Hub`` (memory store, the same ServerConfig as server_load.py) play m,n,k 26×26 in row-major
order, each move handed to ``Session.receive`` as the frame a client sends, with transports that
only count frames. The baseline, in the same run, is what server_load.py's relay does for a move:
decode the frame, build ``moved`` and encode it once for both players.

Times are the thread's CPU time (``time.thread_time``), so other jobs on the machine change them
little; each run plays a fresh match of 650 moves and the figures are medians over ``--runs``.
``--profile`` prints cProfile's top functions of one more run instead.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import time
from typing import Any

import msgpack

from arbiter.protocol.codec import encode
from arbiter.server.config import ServerConfig
from arbiter.server.hub import Hub
from arbiter.server.session import Session
from arbiter.server.store.memory import MemoryStore
from arbiter.server.warmup import warm_games

SIDE = 26
MOVES = SIDE * (SIDE - 1)  # no line of 26 can form before the last row: every move is legal and none ends the game
CHALLENGE = {"game": "mnk", "params": {"m": SIDE, "n": SIDE, "k": SIDE}, "clock": {"initial_ms": 3_600_000}}


class CountingTransport:
    """A transport that keeps the last frames it was given (to read replies) and otherwise only counts."""

    latency = 0.0

    def __init__(self) -> None:
        self.sent = 0
        self.last: list[bytes] = []

    def send(self, data: bytes) -> None:
        self.sent += 1
        if len(self.last) < 16:
            self.last.append(data)

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


async def arbiter_run(profile: cProfile.Profile | None = None) -> float:
    """CPU µs per move of the server's path for one match."""
    config = ServerConfig(port=0, rate_per_s=1e6, rate_burst=10**6, max_matches=10)
    hub = Hub(config, MemoryStore())
    first, second = Session(hub, CountingTransport()), Session(hub, CountingTransport())
    for name, session in (("a", first), ("b", second)):
        assert await session.handshake(encode({"type": "hello", "protocol": 1, "client": name}))
    assert second.player is not None
    created = await request(first, {"type": "challenge", "to": second.player.name, "color": "first", **CHALLENGE},
                            "challenge_created")  # fmt: skip
    started = await request(second, {"type": "accept", "challenge": created["challenge"]["id"]}, "match_start")
    frames = move_frames(started["match"])
    sessions = (first, second)
    if profile is not None:
        profile.enable()
    began = time.thread_time()
    for ply, frame in enumerate(frames):
        sessions[ply % 2].receive(frame)
    spent = time.thread_time() - began
    if profile is not None:
        profile.disable()
    (live,) = hub.matches.live.values()
    assert live.match.ply == MOVES, f"the match stopped at ply {live.match.ply}: a move was refused"
    return spent / MOVES * 1e6


def relay_run() -> float:
    """CPU µs per move of the relay's work: decode, build ``moved``, encode once, hand it to both players."""
    frames = move_frames("x1")
    players = (CountingTransport(), CountingTransport())
    began = time.thread_time()
    for ply, frame in enumerate(frames):
        msg = msgpack.unpackb(frame)
        moved = {"type": "moved", "match": msg["match"], "ply": msg["ply"], "move": msg["move"], "by": ply % 2,
                 "clocks": [0, 0], "elapsed_ms": 0}  # fmt: skip
        data = msgpack.packb(moved)
        for player in players:
            player.send(data)
    return (time.thread_time() - began) / MOVES * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="matches per figure (medians are printed)")
    parser.add_argument("--profile", action="store_true", help="print a profile of one more run")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    warm_games()
    server, relay = [], []
    for _ in range(args.runs):  # interleaved, so drifting load touches both alike
        server.append(asyncio.run(arbiter_run()))
        relay.append(relay_run())
    server_us, relay_us = statistics.median(server), statistics.median(relay)
    print(f"move path, mnk {SIDE}x{SIDE}, {MOVES} moves a run, median of {args.runs} runs (thread CPU time)")
    print(f"  arbiter  {server_us:6.2f} µs/move  (min {min(server):.2f})")
    print(f"  relay    {relay_us:6.2f} µs/move  (min {min(relay):.2f})")
    print(f"  the server adds {server_us - relay_us:.2f} µs a move to the relay's work ({server_us / relay_us:.1f}x)")
    if args.profile:
        profile = cProfile.Profile()
        asyncio.run(arbiter_run(profile))
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
