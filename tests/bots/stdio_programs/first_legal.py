"""A small program of the stdio line protocol for the bridge's tests, with faults on demand.

    python first_legal.py [--crash-at N | --hang-at N | --illegal-at N | --garbage-at N | --slow-at N]
                          [--handshake TEXT] [--process match|game] [--games G1,G2]

It prints its handshake, then answers each turn with the first of its legal moves (cell games
only: the turn line lists them) and an info map. The faults come at the turn of ply N, so a
replay of that turn brings them back: it exits, hangs, answers the last move played (an occupied
cell), prints something that is not JSON, or answers after 0.3 s. ``--handshake`` replaces its first line. It writes
each end it is told of to standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    for fault in ("crash", "hang", "illegal", "garbage", "slow"):
        parser.add_argument(f"--{fault}-at", type=int, default=-1)
    parser.add_argument("--handshake")
    parser.add_argument("--process", default="match")
    parser.add_argument("--games")
    args = parser.parse_args()
    hello = {"stdio": 1, "name": "first-legal", "process": args.process}
    if args.games:
        hello["games"] = args.games.split(",")
    print(args.handshake or json.dumps(hello), flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "end":
            print(f"first-legal: match {message['match']} is over", file=sys.stderr, flush=True)
            continue
        ply = message["ply"]
        if ply == args.crash_at:
            sys.exit(3)
        if ply == args.hang_at:
            time.sleep(3600)
        if ply == args.slow_at:
            time.sleep(0.3)
        if ply == args.garbage_at:
            print("e4, obviously", flush=True)
            continue
        move = message["last"] if ply == args.illegal_at else message["legal"][0]
        print(json.dumps({"move": move, "info": {"depth": 1, "score": ply, "nodes": len(message["legal"])}}),
              flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
