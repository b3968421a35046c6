"""`arbiter up`: the real server and the three default bots as processes, then a clean stop."""

from __future__ import annotations

import asyncio
import fcntl
import io
import itertools
import json
import os
import pty
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import termios
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pyte
import pytest

from arbiter.stack.launcher import DEFAULT_BOTS, BotSpec, Launcher, UpSettings, workers_per_bot
from arbiter.stack.status import StatusDisplay
from tests.support.wsclient import Client

DEFAULT_ACCOUNTS = {"alphabeta", "mcts", "minimax"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def read_until_up(process: asyncio.subprocess.Process) -> dict:
    assert process.stdout is not None
    async with asyncio.timeout(120):
        while True:
            line = await process.stdout.readline()
            assert line, "arbiter up exited before it was up"
            if line.startswith(b"{") and b"arbiter is up" in line:
                return json.loads(line)


def healthz(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
        return json.loads(response.read())


async def lobby_players(url: str) -> dict[str, dict]:
    client = await Client.connect(url)
    try:
        return {p["name"]: p for p in (await client.request("lobby"))["players"]}
    finally:
        await client.close()


@pytest.mark.slow
async def test_up_starts_server_and_bots_and_stops_cleanly(tmp_path: Path) -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arbiter.cli",
        "up",
        "--port",
        str(port),
        "--data",
        str(tmp_path / "data"),
        "--workers",
        "1",
        "--drain-timeout",
        "3",
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    try:
        announced = await read_until_up(process)
        assert announced["open"] == f"http://127.0.0.1:{port}/"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            assert response.status == 200
        async with asyncio.timeout(90):  # each bot warms its pool before it logs in
            while not set(players := await lobby_players(f"ws://127.0.0.1:{port}/")) >= DEFAULT_ACCOUNTS:
                await asyncio.sleep(0.5)
        assert all(players[name]["kind"] == "bot" for name in DEFAULT_ACCOUNTS)
        tokens = sorted(p.name for p in (tmp_path / "data" / "tokens").iterdir())
        assert tokens == sorted(f"{name}.token" for name in DEFAULT_ACCOUNTS)
        # A guest's game with the soccer bot is live when the stack is stopped: the bot cannot
        # finish it (the guest never answers), so it resigns within its part of the drain.
        guest = await Client.connect(f"ws://127.0.0.1:{port}/")
        async with asyncio.timeout(90):  # the stack's analysis worker answers the analysis board
            while (answer := await guest.request("analyse", game="tictactoe", moves=[[1, 1]]))["type"] != "analysis":
                assert answer["code"] == "no_analysis_worker", answer  # not connected yet: said at once
                await asyncio.sleep(1)
        assert answer["win"] == [0.5, 0.5]
        created = await guest.request("challenge", to="minimax", game="paper_soccer",
                                      clock={"initial_ms": 120_000}, color="second")  # fmt: skip
        assert created["type"] == "challenge_created", created
        match = (await guest.expect("match_start", timeout=30))["match"]
        await guest.expect("moved", match=match, ply=0, timeout=30)
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
        async with asyncio.timeout(10):  # the launcher passes it on as one SIGTERM to each process
            while (await asyncio.to_thread(healthz, port))["status"] != "draining":
                await asyncio.sleep(0.05)
        refused = await guest.request("challenge", to="mcts", game="tictactoe", clock={"initial_ms": 60_000})
        assert refused["type"] == "error" and refused["code"] == "unavailable", refused
        end = await guest.expect("end", match=match, timeout=30)
        assert end["reason"] == "resign" and end["winner"] == 1, end
        async with asyncio.timeout(60):
            assert await process.wait() == 0
        await guest.close()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_up_names_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "arbiter.cli",
            "up",
            "--port",
            str(port),
            "--data",
            str(tmp_path / "data"),
            "--no-bots",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(60):
            _, stderr = await process.communicate()
    assert process.returncode != 0
    assert b"in use" in stderr


def test_the_cores_are_shared_among_the_bots() -> None:
    assert [workers_per_bot(3, cores) for cores in (1, 2, 3, 8, 16)] == [1, 1, 1, 2, 5]
    assert workers_per_bot(0, 4) == 4
    launcher = Launcher(UpSettings())
    arguments = launcher.bot_arguments(DEFAULT_BOTS[0])
    assert arguments[arguments.index("--workers") + 1] == str(workers_per_bot(len(DEFAULT_BOTS)))
    explicit = Launcher(UpSettings(workers=3)).bot_arguments(DEFAULT_BOTS[1])
    assert explicit[explicit.index("--workers") + 1] == "3"


class Terminal:
    """``arbiter up`` on a real pseudo-terminal (stdin, stdout and stderr), its screen kept by pyte."""

    def __init__(self, args: list[str], *, rows: int = 40, columns: int = 120, sized: bool = True) -> None:
        reader, writer = pty.openpty()
        if sized:  # else the pty reports 0 × 0, as one made by script(1) or a serial console may
            fcntl.ioctl(writer, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "PYTHONUNBUFFERED": "1", "COLUMNS": str(columns)}
        env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arbiter.cli", "up", *args],
            stdin=writer, stdout=writer, stderr=writer, env=env, start_new_session=True,
        )  # fmt: skip
        os.close(writer)
        self.reader = reader
        self.screen = pyte.Screen(columns, rows)
        self.feed = pyte.ByteStream(self.screen)
        self.output = b""
        self.closed = False  # every writer has closed: the stack has exited

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def read_until(self, done: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            assert left > 0, "timed out; the screen:\n" + "\n".join(self.lines())
            if select.select([self.reader], [], [], left)[0]:
                try:
                    data = os.read(self.reader, 1 << 16)
                except OSError:  # EIO: every writer has closed
                    data = b""
                self.closed = not data
                assert data or done(), "arbiter up exited; the screen:\n" + "\n".join(self.lines())
                self.output += data
                self.feed.feed(data)

    def stop(self) -> int:
        """Ctrl-C, and the exit code once every process has exited (the terminal then reads EOF)."""
        os.killpg(self.process.pid, signal.SIGINT)
        self.read_until(lambda: self.closed, 60)
        return self.process.wait(timeout=10)

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.reader)


def block(lines: list[str]) -> list[str]:
    """The status block: from its first line down to the last line written."""
    last = max(i for i, line in enumerate(lines) if line)
    starts = [i for i, line in enumerate(lines) if line.startswith("Arbiter: open ")]
    assert len(starts) == 1, "\n".join(lines)  # redrawn in place: never a second copy on the screen
    return lines[starts[0] : last + 1]


@pytest.mark.slow
def test_up_on_a_terminal_keeps_the_address_and_the_bots_in_view(tmp_path: Path) -> None:
    port = free_port()
    terminal = Terminal(
        ["--port", str(port), "--data", str(tmp_path / "data"), "--workers", "1", "--drain-timeout", "3"], rows=100
    )  # 100 rows: every bot's login stays above the block
    try:
        terminal.read_until(lambda: "starting" in " ".join(terminal.lines()), 60)
        shown = block(terminal.lines())
        assert shown[0] == f"Arbiter: open http://127.0.0.1:{port}/ in a browser (Ctrl-C stops it)"

        def all_online() -> bool:
            lines = terminal.lines()
            if not any(line.startswith("Arbiter: open ") for line in lines):
                return False  # read mid-redraw: a log line is written where the block was erased
            rows = block(lines)[2:]
            return sorted(rows) == sorted(f"  {name:<10} online" for name in DEFAULT_ACCOUNTS)

        terminal.read_until(all_online, 120)  # each bot warms its pool before it logs in
        lines = terminal.lines()
        assert re.fullmatch(r"  server     up, \d+ live games?", block(lines)[1]), block(lines)
        above = lines[: lines.index(block(lines)[0])]
        records = [line for line in above if re.match(r"\d\d:\d\d:\d\d\.\d{3} (INFO|WARNING|ERROR|DEBUG) ", line)]
        assert any(" alphabeta:arbiter.bots connected player=alphabeta" in line for line in records), above
        assert b"\x1b[32monline\x1b[0m" in terminal.output  # coloured on a terminal that takes colour
        assert terminal.stop() == 0
        assert block(terminal.lines())[1:] == ["  server     stopped"] + [
            f"  {name:<10} stopped" for name in sorted(DEFAULT_ACCOUNTS)
        ]
    finally:
        terminal.close()


def test_up_with_json_logs_on_a_terminal_writes_json_lines(tmp_path: Path) -> None:
    port = free_port()
    terminal = Terminal(["--port", str(port), "--data", str(tmp_path / "data"), "--no-bots", "--log-format", "json"])
    try:
        terminal.read_until(lambda: b"arbiter is up" in terminal.output, 60)
        assert terminal.stop() == 0
    finally:
        terminal.close()
    lines = terminal.output.decode().splitlines()
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert not any(re.match(r"\d\d:\d\d:\d\d\.\d{3} ", line) for line in lines)  # no console line
    assert b"\x1b[" not in terminal.output  # nothing drawn in place
    statuses = [record for record in records if record.get("msg") == "status"]
    assert statuses[-1] == {**statuses[-1], "server": "stopped", "open": f"http://127.0.0.1:{port}/", "bots": {}}
    assert any(record.get("logger") == "arbiter.server" for record in records)


async def test_up_off_a_terminal_writes_json_lines_and_the_status_on_change(tmp_path: Path) -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "up", "--port", str(port), "--data", str(tmp_path / "data"), "--no-bots",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert (await read_until_up(process))["open"] == f"http://127.0.0.1:{port}/"
        os.killpg(process.pid, signal.SIGINT)
        async with asyncio.timeout(60):
            _, stderr = await process.communicate()
        assert process.returncode == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    # Every record is a JSON line (the server's two plain lines, "listening on" and "stopped", are its own).
    lines = [line for line in stderr.decode().splitlines() if line not in ("stopped",)]
    lines = [line for line in lines if not line.startswith("listening on ")]
    records = [json.loads(line) for line in lines]
    statuses = [{**record, "ts": None} for record in records if record["msg"] == "status"]
    servers = [status["server"] for status in statuses]
    assert servers[:2] == ["starting", "up"] and servers[-1] == "stopped", servers
    assert all(before != after for before, after in itertools.pairwise(statuses)), statuses  # on change only


async def test_a_bot_that_exits_is_shown_restarting_with_its_code(tmp_path: Path) -> None:
    ghost = BotSpec("ghost", "no-such-brain")
    settings = UpSettings(port=free_port(), data=tmp_path, bots=(ghost,), restart_backoff_s=(30.0,))
    shown = io.StringIO()
    launcher = Launcher(settings, StatusDisplay(shown, live=False, console=True, colour=False))
    await launcher.start_server()
    supervisor = asyncio.create_task(launcher.supervise_bot(ghost, "token"))
    try:
        async with asyncio.timeout(60):
            while launcher.status.bots["ghost"] != "restarting":
                await asyncio.sleep(0.05)
    finally:
        await launcher.stop()
        supervisor.cancel()
    text = shown.getvalue()
    assert "  ghost      restarting (exited with code 2, again in 30 s)\n" in text, text
    assert "arbiter: error: unknown bot 'no-such-brain'" in text  # its own words, above the block


@pytest.mark.slow
def test_up_on_a_terminal_that_reports_no_size_draws_at_columns(tmp_path: Path) -> None:
    """A pty of 0 × 0 (``script -c "make run"``) once divided by its width: the block is drawn at
    $COLUMNS instead, and the stack runs and stops as on any terminal."""
    port = free_port()
    terminal = Terminal(["--port", str(port), "--data", str(tmp_path / "data"), "--workers", "1",
                         "--drain-timeout", "3"], columns=80, sized=False)  # fmt: skip
    try:
        terminal.read_until(lambda: any(line.endswith(" online") for line in terminal.lines()), 120)
        assert block(terminal.lines())[0] == f"Arbiter: open http://127.0.0.1:{port}/ in a browser (Ctrl-C stops it)"
        assert terminal.stop() == 0
        assert b"Traceback" not in terminal.output
    finally:
        terminal.close()
