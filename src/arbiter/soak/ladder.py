"""The ladder soak: ``arbiter up`` with the three default bots for a while on this machine, then what
the server recorded. The figures a ladder is trusted by: moves played, fallback moves by cause and
their share of all moves (the target: at most 0.5%), random moves (0), losses on time (0), and every
game stored once, with an end.

    python -m arbiter.soak.ladder [--minutes 10]

tests/run/test_soak.py runs the same for two minutes in the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from arbiter.server.store.sqlite import SqliteStore
from arbiter.soak.services import free_port

BOTS = 3
FALLBACK = re.compile(r'^arbiter_fallback_moves_total\{cause="(\w+)",player="([^"]+)"\} ([0-9.e+]+)$', re.M)
MOVES = re.compile(r"^arbiter_moves_total ([0-9.e+]+)$", re.M)


@dataclass
class SoakReport:
    seconds: float
    moves: int
    fallbacks: Counter[str] = field(default_factory=Counter)  # by cause, all bots
    games: int = 0  # stored with an end
    reasons: Counter[str] = field(default_factory=Counter)
    unended: int = 0  # stored without an end after the stop: none expected
    duplicates: int = 0

    @property
    def fallback_share(self) -> float:
        return sum(self.fallbacks.values()) / max(1, self.moves)


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode()


def run_soak(minutes: float, data: Path) -> SoakReport:
    """``arbiter up`` on ``data`` for ``minutes`` once all bots are online; stopped as Ctrl-C would."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arbiter.cli", "up", "--port", str(port), "--data", str(data), "--drain-timeout", "30"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:  # the server, then every bot warm and online
            try:
                if json.loads(get(f"{base}/healthz"))["players"] >= BOTS:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the stack did not come up")
            time.sleep(0.5)
        began = time.monotonic()
        time.sleep(minutes * 60)
        page = get(f"{base}/metrics")
        seconds = time.monotonic() - began
    finally:
        os.killpg(process.pid, signal.SIGINT)  # as Ctrl-C in a terminal: every process drains
        try:
            process.wait(120)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    moves = MOVES.search(page)
    report = SoakReport(seconds, int(float(moves[1])) if moves else 0)
    for cause, _player, count in FALLBACK.findall(page):
        report.fallbacks[cause] += int(float(count))
    records = asyncio.run(_stored(data / "arbiter.db"))
    ids = [r.start.match_id for r in records]
    report.duplicates = len(ids) - len(set(ids))
    for record in records:
        if record.ended is None:
            report.unended += 1
        else:
            report.games += 1
            report.reasons[record.reason or "?"] += 1
    return report


async def _stored(path: Path) -> list:
    store = SqliteStore(path)
    await store.open()
    try:
        return await store.list_games(limit=None)
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        report = run_soak(args.minutes, Path(folder) / "data")
    print(f"soak: {report.seconds / 60:.1f} min of arbiter up with its {BOTS} bots, {os.cpu_count()} cores")
    print(f"moves {report.moves}; fallback moves {sum(report.fallbacks.values())} ({report.fallback_share:.2%}; "
          f"target <= 0.5%), by cause {dict(report.fallbacks)}; random {report.fallbacks['random']}")  # fmt: skip
    print(f"games stored {report.games} (by reason {dict(report.reasons)}); losses on time "
          f"{report.reasons['timeout']}; unended {report.unended}; stored twice {report.duplicates}")  # fmt: skip


if __name__ == "__main__":
    main()
