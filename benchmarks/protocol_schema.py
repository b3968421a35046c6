"""The protocol's schema code against a msgspec trial, per message, in the same run.

Client side of the server (what every move costs it): ``codec.decode`` + ``messages.parse`` of a
``move`` frame, the baseline, against one msgspec decoder of tagged Structs for the same message.
Server side of a client (what a bot pays for every ``moved`` it reads): ``codec.decode`` alone,
then ``server_messages.read`` on top of it (msgspec.convert into the typed Struct).

    python benchmarks/protocol_schema.py [--messages 100000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from arbiter.protocol.codec import decode, encode
from arbiter.protocol.messages import parse
from arbiter.protocol.server_messages import read

MOVE = encode({"type": "move", "id": 7, "match": "m-7f3a9c2e", "ply": 17, "move": [3, 4]})
MOVED = encode({"type": "moved", "match": "m-7f3a9c2e", "ply": 17, "move": [3, 4], "by": 1,
                "clocks": [59_000, 58_200], "elapsed_ms": 40})  # fmt: skip


class TrialMove(msgspec.Struct, tag="move", tag_field="type", forbid_unknown_fields=True, frozen=True):
    """The ``move`` request as msgspec would type it (ranges as ``Meta`` constraints)."""

    match: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    ply: Annotated[int, msgspec.Meta(ge=0, le=2**31 - 1)]
    move: list[Any]
    id: int | str | None = None
    info: dict[str, Any] | None = None


def per_message_us(work: Callable[[], Any], messages: int, repeat: int) -> float:
    """The median over ``repeat`` runs of ``messages`` calls, in microseconds per call."""
    runs = []
    for _ in range(repeat):
        began = time.perf_counter()
        for _ in range(messages):
            work()
        runs.append((time.perf_counter() - began) / messages * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    trial = msgspec.msgpack.Decoder(TrialMove)
    rows = {
        "move: codec.decode + parse (baseline)": lambda: parse(decode(MOVE)),
        "move: msgspec Struct decoder (trial)": lambda: trial.decode(MOVE),
        "moved: codec.decode (baseline)": lambda: decode(MOVED, max_bytes=1 << 22),
        "moved: codec.decode + read (typed)": lambda: read(decode(MOVED, max_bytes=1 << 22)),
    }
    figures = {name: per_message_us(work, args.messages, args.repeat) for name, work in rows.items()}
    print(f"{'per message':<40} {'µs (median)':>12} {'ratio':>7}")
    names = list(figures)
    for index, name in enumerate(names):
        baseline = figures[names[index - index % 2]]
        print(f"{name:<40} {figures[name]:>12.2f} {figures[name] / baseline:>6.2f}×")


if __name__ == "__main__":
    main()
