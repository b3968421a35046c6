"""The public-server soak: many concurrent matches for minutes, under the trouble a public server
meets, then what the server recorded.

    python -m arbiter.soak.public [--matches 1000] [--minutes 10]

An ``arbiter serve`` process on a fresh SQLite file. This process runs ``2 × matches`` players
(the bot client, ``BotClient``, with a pool that plays a random legal move after a random pause),
paired to play one casual match after another: tic-tac-toe 4×4 and 10×10 five-in-a-row, 120+2.
The trouble, all through the run:
- players' connections dropped at random, each about once in two minutes; the bot client connects
  again and resyncs its match;
- two real bot processes (``arbiter bot random``) that some players challenge, killed with SIGKILL
  and started again every 45–75 s;
- flooders: connections that send bad frames (garbage, wrong types, oversized frames, unknown
  matches, bursts past the rate limit), are closed, and come back.
At the end the server is drained with SIGTERM and must exit 0.

The verdict:
- the server logged no error and counted no internal error;
- every match a player saw end is stored once, with an end, and no stored game is left without
  one;
- ``arbiter check`` finds the store consistent;
- the server's memory is flat after the first minute: growth from the first minute to the end of
  at most 10%.

tests/run/test_public_soak.py runs a short one in the suite. docs/PERFORMANCE.md has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from arbiter.bots.brain import ThinkRequest, ThinkResult
from arbiter.bots.client.connection import BotClient, ChallengeRefused
from arbiter.bots.client.settings import BotSettings
from arbiter.bots.registry import brain_class
from arbiter.engine import State, create_game
from arbiter.server.store.sqlite import SqliteStore
from arbiter.soak.services import free_port

GAMES: tuple[tuple[str, dict[str, Any]], ...] = (("tictactoe4", {}), ("gomoku10", {}))
CLOCK = {"initial_ms": 120_000, "increment_ms": 2_000}
REAL_BOTS = 2
FLOODERS = 8
PACE_S = (0.2, 1.6)  # a player's pause before each move
DROP_EVERY_S = 120.0  # each player's connection drops about this often
KILL_EVERY_S = (45.0, 75.0)  # a real bot process is killed after this long
MEMORY_GROWTH_LIMIT = 0.10
ARBITER = str(Path(sys.executable).with_name("arbiter"))


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class PacedRandomPool:
    """Moves for a soak player: a random legal move after a random pause. Positions are kept per
    match and only new moves applied, so a move costs the same at ply 5 and at ply 80."""

    brain_class = brain_class("random")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._states: dict[str, tuple[State, int]] = {}

    async def think(self, request: ThinkRequest) -> ThinkResult:
        await asyncio.sleep(self.rng.uniform(*PACE_S))
        return self.fallback(request)

    def fallback(self, request: ThinkRequest) -> ThinkResult:
        state, applied = self._states.get(request.match_id) or (
            create_game(request.game, request.params).new_state(),
            0,
        )
        for move in request.moves[applied:]:
            state.play(state.game.decode_move(move))
        move = self.rng.choice(state.legal_moves())
        state.play(move)
        self._states[request.match_id] = (state, len(request.moves) + 1)
        return ThinkResult(state.game.encode_move(move))

    def forget(self, match_id: str) -> None:
        self._states.pop(match_id, None)


class SoakPlayer(BotClient):
    """A bot client that tells the soak about each match it saw end."""

    def __init__(self, *args: Any, ended: dict[str, str | None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ended = ended
        self.match_over = asyncio.Event()

    def on_match_over(self, match_id: str, record: dict[str, Any] | None) -> None:
        if record is not None:
            self.ended[match_id] = record.get("result")
        self.match_over.set()


class CountWarnings(logging.Handler):
    """The players' own log records, counted by message (and error code) instead of printed."""

    def __init__(self, counts: Counter[str]) -> None:
        super().__init__(logging.WARNING)
        self.counts = counts

    def emit(self, record: logging.LogRecord) -> None:
        code = getattr(record, "code", None)
        self.counts[record.getMessage() + (f" ({code})" if code else "")] += 1


@dataclass
class SoakReport:
    matches: int
    minutes: float
    moves: int = 0
    seen_ended: int = 0
    stored: int = 0
    stored_ended: int = 0
    unended: int = 0
    missing: int = 0  # seen to end by a player, not stored with an end
    mismatched: int = 0  # stored with another result than the players saw
    reasons: Counter[str] = field(default_factory=Counter)
    drops: int = 0
    kills: int = 0
    bad_frames: int = 0
    flood_closes: int = 0
    server_errors: int = 0  # log records at error level or above
    internal_errors: int = 0  # the server's own count of internal errors
    server_exit: int | None = None
    check_exit: int | None = None
    check_output: str = ""
    rss_first_minute: int = 0
    rss_end: int = 0
    rss_samples: list[tuple[float, int]] = field(default_factory=list)
    client_warnings: Counter[str] = field(default_factory=Counter)  # the players' log, by message

    @property
    def memory_growth(self) -> float:
        return self.rss_end / max(1, self.rss_first_minute) - 1

    def failures(self) -> list[str]:
        """What breaks the verdict; empty when the soak passed."""
        found = []
        if self.server_errors or self.internal_errors:
            found.append(f"{self.server_errors} error log records, {self.internal_errors} internal errors")
        if self.missing or self.mismatched or self.unended:
            found.append(f"{self.missing} ended matches not stored, {self.mismatched} with another result, "
                         f"{self.unended} stored without an end")  # fmt: skip
        if self.server_exit != 0:
            found.append(f"the server exited with {self.server_exit}")
        if self.check_exit != 0:
            found.append(f"arbiter check exited with {self.check_exit}: {self.check_output.strip()[-300:]}")
        if self.memory_growth > MEMORY_GROWTH_LIMIT:
            found.append(f"memory grew {100 * self.memory_growth:.0f}% after the first minute")
        return found


async def pair_loop(first: SoakPlayer, second: str, game: tuple[str, dict[str, Any]], stop: asyncio.Event) -> None:
    """``first`` challenges ``second`` again and again, one match at a time, until ``stop``."""
    rng = random.Random(hash((first.name, second)))
    while not stop.is_set():
        try:
            await first.connected.wait()
            first.match_over.clear()
            await first.challenge(second, game[0], CLOCK, params=game[1], color="random")
        except (ChallengeRefused, ConnectionError, TimeoutError):
            await asyncio.sleep(rng.uniform(0.5, 2.0))  # the other side was away, or its match still ending
            continue
        stopped = asyncio.ensure_future(stop.wait())
        over = asyncio.ensure_future(first.match_over.wait())
        await asyncio.wait({stopped, over}, timeout=600, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        over.cancel()


async def drop_connections(players: list[SoakPlayer], stop: asyncio.Event, report: SoakReport, seed: int) -> None:
    """Each second, drop each player's connection with the chance that makes one drop per DROP_EVERY_S."""
    rng = random.Random(seed)
    while not stop.is_set():
        await asyncio.sleep(1.0)
        for player in players:
            if rng.random() < 1.0 / DROP_EVERY_S and player.drop_connection():
                report.drops += 1


BAD_FRAMES: list[bytes | str] = [
    b"\xc1\xc1\xc1 not msgpack",
    msgpack.packb({"type": 5}),
    msgpack.packb({"type": "move", "match": "no-such-match", "ply": 0, "move": [0, 0]}),
    msgpack.packb({"type": "move", "match": ["a"], "ply": "x", "move": {"a": 1}}),
    msgpack.packb([1, 2, 3]),
    "text frame",
    msgpack.packb({"type": "hello", "protocol": 1, "client": "again"}),
    msgpack.packb({"type": "challenge", "to": "nobody-here", "game": "nope", "clock": {"initial_ms": -1}}),
]


async def flood(url: str, stop: asyncio.Event, report: SoakReport, seed: int, source: str) -> None:
    """A connection that says hello as a guest, then sends bad frames fast until it is closed; again."""
    rng = random.Random(seed)
    hello = msgpack.packb({"type": "hello", "id": 1, "protocol": 1, "client": "flooder/1"})
    while not stop.is_set():
        try:
            async with connect(url, max_size=2**20, compression=None, open_timeout=10,
                               local_addr=(source, 0)) as ws:  # fmt: skip
                await ws.send(hello)
                await ws.recv()
                while not stop.is_set():
                    if rng.random() < 0.02:
                        await ws.send(b"\x00" * (2**20))  # past the frame limit: closed with 1009
                    else:
                        await ws.send(rng.choice(BAD_FRAMES))
                    report.bad_frames += 1
                    await asyncio.sleep(0.002)  # about 500 frames/s each: past the rate limit, not the CPU
        except (ConnectionClosed, OSError, InvalidHandshake, TimeoutError):
            report.flood_closes += 1
        await asyncio.sleep(rng.uniform(0.2, 1.0))


class RealBots:
    """The real random bot, REAL_BOTS processes, each killed and started again now and then."""

    def __init__(self, url: str, tokens: list[tuple[str, str]], folder: Path) -> None:
        self.url = url
        self.tokens = tokens
        self.folder = folder
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, token: str) -> None:
        log = (self.folder / f"{name}.log").open("ab")
        command = [ARBITER, "bot", "random", "--server", self.url, "--token", token, "--workers", "1",
                   "--max-matches", "200", "--log-level", "warning"]  # fmt: skip
        self.processes[name] = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)

    async def keep_killing(self, stop: asyncio.Event, report: SoakReport, seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            await asyncio.sleep(rng.uniform(*KILL_EVERY_S) / REAL_BOTS)
            name, token = rng.choice(self.tokens)
            process = self.processes[name]
            process.kill()
            await asyncio.to_thread(process.wait)
            report.kills += 1
            await asyncio.sleep(1.0)
            self.start(name, token)

    def stop(self) -> None:
        for process in self.processes.values():
            process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()


async def register(path: Path, names: list[str]) -> dict[str, str]:
    store = SqliteStore(path)
    await store.open()
    try:
        return {name: await store.add_player(name, "bot") for name in names}
    finally:
        await store.close()


async def soak(matches: int, minutes: float, folder: Path, *, seed: int = 1) -> SoakReport:
    report = SoakReport(matches, minutes)
    players_log = logging.getLogger("arbiter.bots")
    counter = CountWarnings(report.client_warnings)
    players_log.addHandler(counter)
    players_log.propagate = False
    db = folder / "soak.db"
    names = [f"p{i}" for i in range(2 * matches)] + [f"realbot{i}" for i in range(REAL_BOTS)]
    tokens = await register(db, names)
    port = free_port()
    server_log = (folder / "server.log").open("wb")
    server = subprocess.Popen(
        # Every player connects from this one machine: the per-address connection cap is off
        # (tests/server/test_guard.py covers it); the flooders are guests from addresses of their own.
        [ARBITER, "serve", "--db", str(db), "--port", str(port), "--max-matches", "400", "--grace", "30",
         "--drain-timeout", "20", "--log-level", "warning", "--max-connections-per-ip", "0"],
        stderr=server_log,
    )  # fmt: skip
    url = f"ws://127.0.0.1:{port}/"
    stop, stopped_players = asyncio.Event(), asyncio.Event()
    ended: dict[str, str | None] = {}
    rng = random.Random(seed)
    players = [
        SoakPlayer(url, token=tokens[name], pool=PacedRandomPool(random.Random(rng.random())), ended=ended,
                   settings=BotSettings(games=("tictactoe4", "gomoku10"), max_matches=4, ping_interval=20.0))
        for name in names[: 2 * matches]
    ]  # fmt: skip
    real = RealBots(url, [(n, tokens[n]) for n in names[2 * matches :]], folder)
    tasks: list[asyncio.Task[Any]] = []
    runs: list[asyncio.Future[None]] = []
    try:
        await wait_listening(port, server)
        for name, token in real.tokens:
            real.start(name, token)
        runs += [asyncio.ensure_future(p.run(stop_now=stopped_players)) for p in players]
        for player in players:  # connect gradually: a thousand handshakes at once is not the test
            await asyncio.wait_for(player.connected.wait(), 60)
        began = time.monotonic()
        for i in range(matches):
            first, second = players[2 * i], players[2 * i + 1]
            opponent = real.tokens[i % REAL_BOTS][0] if i % 20 == 0 else second.name
            assert opponent is not None
            tasks.append(asyncio.ensure_future(pair_loop(first, opponent, GAMES[i % 2], stop)))
        tasks.append(asyncio.ensure_future(drop_connections(players, stop, report, seed)))
        tasks.append(asyncio.ensure_future(real.keep_killing(stop, report, seed)))
        for n in range(FLOODERS):
            tasks.append(asyncio.ensure_future(flood(url, stop, report, seed + n, f"127.0.0.{10 + n}")))
        while (elapsed := time.monotonic() - began) < minutes * 60:
            await asyncio.sleep(5.0)
            rss = rss_bytes(server.pid)
            report.rss_samples.append((elapsed, rss))
            if elapsed <= 60:
                report.rss_first_minute = rss
        report.rss_end = report.rss_samples[-1][1] if report.rss_samples else 0
        report.internal_errors = internal_errors(port)
        report.moves = moves_played(port)
        stop.set()
        server.send_signal(signal.SIGTERM)  # the drain: live matches finish or end as interrupted
        report.server_exit = await asyncio.to_thread(server.wait, 120)
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        stopped_players.set()
        await asyncio.gather(*runs, return_exceptions=True)
        real.stop()
        if server.poll() is None:
            server.kill()
            server.wait()
        server_log.close()
    players_log.removeHandler(counter)
    report.server_errors = error_records(folder / "server.log")
    settle(report, db, ended)
    check = subprocess.run([ARBITER, "check", "--db", str(db)], capture_output=True, text=True)
    report.check_exit, report.check_output = check.returncode, check.stdout + check.stderr
    return report


async def wait_listening(port: int, server: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            await asyncio.to_thread(urllib.request.urlopen, f"http://127.0.0.1:{port}/healthz", timeout=2)
            return
        except OSError:
            await asyncio.sleep(0.2)
    raise TimeoutError("the server did not start")


def metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return str(response.read().decode())


def internal_errors(port: int) -> int:
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in metrics(port).splitlines()
               if line.startswith('arbiter_errors_total{code="internal"}'))  # fmt: skip


def moves_played(port: int) -> int:
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in metrics(port).splitlines()
               if line.startswith("arbiter_moves_total "))  # fmt: skip


def error_records(log: Path) -> int:
    """Records at error level or above, and tracebacks printed outside the JSON logs."""
    count = 0
    for line in log.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            record = {"level": "error"} if line.startswith("Traceback") else None
        if isinstance(record, dict) and str(record.get("level", "")).lower() in ("error", "critical"):
            count += 1
            if count <= 5:
                print("server error:", line[:400], file=sys.stderr)
    return count


def settle(report: SoakReport, db: Path, ended: dict[str, str | None]) -> None:
    """Compare what the players saw end with what the store holds."""
    conn = sqlite3.connect(db)
    try:
        stored = {match: (result, reason, finished) for match, result, reason, finished in conn.execute(
            "SELECT match_id, result, reason, ended FROM games")}  # fmt: skip
    finally:
        conn.close()
    report.seen_ended = len(ended)
    report.stored = len(stored)
    report.stored_ended = sum(1 for _, _, finished in stored.values() if finished is not None)
    report.unended = report.stored - report.stored_ended
    report.reasons = Counter(reason for _, reason, finished in stored.values() if finished is not None)
    for match, result in ended.items():
        found = stored.get(match)
        if found is None or found[2] is None:
            report.missing += 1
        elif found[0] != result:
            report.mismatched += 1


def print_report(report: SoakReport) -> None:
    minutes = report.minutes
    print(f"soak: {report.matches} concurrent matches for {minutes:g} min, {os.cpu_count()} cores")
    print(f"moves played              {report.moves:>10,}  ({report.moves / (minutes * 60):,.0f}/s)")
    print(f"games stored              {report.stored:>10,}  ({report.stored_ended:,} with an end; "
          f"{report.unended} without)")  # fmt: skip
    print(f"  ended as seen by players {report.seen_ended:>9,}  (missing {report.missing}, "
          f"other result {report.mismatched})")  # fmt: skip
    print("  reasons                  " + ", ".join(f"{r} {n}" for r, n in report.reasons.most_common()))
    print(f"connections dropped       {report.drops:>10,}")
    print(f"bot processes killed      {report.kills:>10,}")
    print(f"bad frames sent           {report.bad_frames:>10,}  ({report.flood_closes:,} flood connections closed)")
    print(f"server errors             {report.server_errors:>10}  (internal errors counted: {report.internal_errors})")
    print(f"server exit after drain   {report.server_exit!s:>10}")
    print(f"arbiter check exit        {report.check_exit!s:>10}")
    samples = [rss for _, rss in report.rss_samples]
    print(f"server RSS                {report.rss_first_minute / 2**20:>9.0f} MiB after 1 min, "
          f"{report.rss_end / 2**20:.0f} MiB at the end ({100 * report.memory_growth:+.1f}%), "
          f"median {statistics.median(samples) / 2**20 if samples else 0:.0f} MiB")  # fmt: skip
    warned = ", ".join(f"{m}: {n}" for m, n in report.client_warnings.most_common(6))
    print(f"players' warnings         {warned or 'none':>10}")
    failures = report.failures()
    print("verdict: " + ("PASS" if not failures else "FAIL: " + "; ".join(failures)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        report = asyncio.run(soak(args.matches, args.minutes, Path(folder), seed=args.seed))
    print_report(report)
    sys.exit(0 if not report.failures() else 1)


if __name__ == "__main__":
    main()
