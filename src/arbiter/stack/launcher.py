"""``arbiter up``: the server and the default bots as separate processes, supervised.

The launcher owns nothing the server or the bots do; it only makes sure the bots' accounts exist
(their tokens kept in files beside the database, readable by the owner only), starts the server,
waits until it answers ``/healthz``, starts each bot with its token, restarts a bot that dies
(with back-off), and on Ctrl-C or SIGTERM stops the bots, then the server, and exits 0. Every child
writes JSON lines into a pipe the launcher reads: it passes them on (as they are, or as console lines)
and follows each bot's state in them for the status block (arbiter.stack.status).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

from arbiter.cli.logs import colour_supported, configure_logging, console_wanted, is_terminal, render_console
from arbiter.server.store.base import Store
from arbiter.server.store.token_files import ensure_token_file
from arbiter.stack.status import BOT_EVENTS, RESTARTING, STARTING, STOPPED, StackStatus, StatusDisplay, relay_json

log = logging.getLogger("arbiter.stack.launcher")


@dataclass(frozen=True)
class BotSpec:
    """A default bot: its account name, the brain it runs, and the flags it runs with."""

    account: str
    brain: str
    args: tuple[str, ...] = ()


DEFAULT_BOTS = (
    BotSpec("alphabeta", "gomoku", ("--ladder",)),
    BotSpec("mcts", "mcts", ("--ladder",)),
    BotSpec("minimax", "soccer", ("--ladder",)),
)


def workers_per_bot(bots: int, cores: int | None = None) -> int:
    """The machine's cores shared among the bots the stack starts, one at least each.

    Each bot's search processes run flat out while it thinks; three bots each with every core would
    put three searches on each core, and every one of them would think in a third of its time.
    """
    return max(1, (cores or os.cpu_count() or 1) // max(1, bots))


class LaunchError(RuntimeError):
    """The stack cannot start; the message says what to do."""


@dataclass
class UpSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    data: Path = Path("data")
    bots: tuple[BotSpec, ...] = DEFAULT_BOTS
    workers: int | None = None  # per bot; None: the machine's cores shared among the bots (workers_per_bot)
    log_level: str = "info"
    log_format: str = "auto"  # of the launcher's stderr; the children always write JSON lines to it
    server_args: tuple[str, ...] = ()
    startup_timeout_s: float = 120.0
    # On a stop, every process gets SIGTERM at once. Bots drain for two thirds of the server's drain,
    # so a game a bot cannot finish is resigned (a result) before the server would interrupt it.
    drain_timeout_s: float = 30.0
    restart_backoff_s: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0, 30.0)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def bot_drain_timeout_s(self) -> float:
        return self.drain_timeout_s * 2 / 3

    @property
    def stop_timeout_s(self) -> float:
        """How long a process may take to exit after SIGTERM before it is killed."""
        return self.drain_timeout_s + 15.0

    @property
    def db(self) -> Path:
        return self.data / "arbiter.db"

    @property
    def tokens(self) -> Path:
        return self.data / "tokens"

    @property
    def http_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return self.http_url.replace("http://", "ws://", 1) + "/"


async def ensure_accounts(store: Store, specs: tuple[BotSpec, ...], token_dir: Path) -> dict[str, str]:
    """Each default bot's token, from its file in ``token_dir`` or freshly issued and saved there."""
    token_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(token_dir, 0o700)
    return {
        spec.account: await ensure_token_file(store, spec.account, "bot", token_dir / f"{spec.account}.token")
        for spec in specs
    }


# A child's log line may be long (a traceback in one JSON record); a pipe's reader takes up to this.
LINE_LIMIT = 2**20
HEALTH_POLL_S = 1.0


def _health(url: str) -> dict[str, Any] | None:
    """The server's ``/healthz`` answer, or None while it does not answer."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
            answer = json.loads(response.read())
            return answer if response.status == 200 and isinstance(answer, dict) else None
    except (OSError, urllib.error.URLError, ValueError):
        return None


class Launcher:
    def __init__(self, settings: UpSettings, display: StatusDisplay | None = None) -> None:
        self.settings = settings
        self.server: asyncio.subprocess.Process | None = None
        self.bots: dict[str, asyncio.subprocess.Process] = {}
        self.analyst: asyncio.subprocess.Process | None = None  # the analysis worker (`arbiter analyse`)
        self.stopping = asyncio.Event()
        self.display = display or StatusDisplay(sys.stderr, live=False, console=False, colour=False)
        self.status = StackStatus(f"{settings.http_url}/", {spec.account: STARTING for spec in settings.bots})
        self.relays: list[asyncio.Task[None]] = []

    async def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> asyncio.subprocess.Process:
        process = await asyncio.create_subprocess_exec(
            *self._command(*args), env=env, start_new_session=True, stderr=asyncio.subprocess.PIPE, limit=LINE_LIMIT
        )
        assert process.stderr is not None
        self.relays = [relay for relay in self.relays if not relay.done()]  # a bot restarted many times
        self.relays.append(asyncio.create_task(self._relay(name, process.stderr)))
        return process

    async def _relay(self, name: str, stream: asyncio.StreamReader) -> None:
        """Each line a child writes, shown as the stack shows its logs; a bot's own records move its state."""
        while line := await stream.readline():
            text = line.decode(errors="replace").rstrip("\n")
            fields = relay_json(text)
            if fields is not None and name in self.status.bots and fields.get("logger") == "arbiter.bots":
                state = BOT_EVENTS.get(str(fields["msg"]))
                if state is not None:
                    self.set_bot(name, state)
            if self.display.console and fields is not None:
                fields["logger"] = f"{name}:{fields.get('logger')}"
                text = render_console(fields, colour=self.display.colour)
            self.display.line(text)

    def set_bot(self, name: str, state: str, note: str | None = None) -> None:
        self.status.bots[name] = state
        if note is None:
            self.status.notes.pop(name, None)
        else:
            self.status.notes[name] = note
        self.display.show(self.status)

    async def watch_server(self) -> None:
        """Keep the block's server line and live games current, from ``/healthz`` every second."""
        while True:
            health = await asyncio.to_thread(_health, self.settings.http_url)
            if health is not None:
                self.status.server = "draining" if health.get("status") == "draining" else "up"
                self.status.live_games = health.get("matches")
            self.display.show(self.status)
            await asyncio.sleep(HEALTH_POLL_S)

    # Every child runs in a session of its own: a Ctrl-C in the terminal reaches the launcher alone,
    # which then sends each child one SIGTERM. (Had the terminal's SIGINT reached them too, the
    # launcher's signal would be their second, which means "stop at once", not "drain".)
    def _command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "arbiter.cli", *args]

    def _env(self) -> dict[str, str]:
        return {**os.environ, **self.settings.env}

    async def start_server(self) -> None:
        s = self.settings
        args = [
            "serve",
            "--host",
            s.host,
            "--port",
            str(s.port),
            "--db",
            str(s.db),
            "--log-level",
            s.log_level,
            "--log-format",
            "json",
            "--drain-timeout",
            str(s.drain_timeout_s),
            *s.server_args,
        ]
        self.server = await self._spawn("server", args, self._env())
        deadline = time.monotonic() + s.startup_timeout_s
        while await asyncio.to_thread(_health, s.http_url) is None:
            if self.server.returncode is not None:
                raise LaunchError(
                    f"the server exited with code {self.server.returncode} before it was ready (its message is above)"
                )
            if time.monotonic() > deadline:
                raise LaunchError(f"the server did not answer {s.http_url}/healthz within {s.startup_timeout_s:.0f} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.server.wait(), 0.2)

    def bot_arguments(self, spec: BotSpec) -> list[str]:
        """``arbiter bot …`` for one default bot: its share of the cores unless ``--workers`` says."""
        s = self.settings
        workers = s.workers if s.workers is not None else workers_per_bot(len(s.bots))
        return [
            "bot",
            spec.brain,
            "--server",
            s.ws_url,
            "--log-level",
            s.log_level,
            "--log-format",
            "json",
            "--drain-timeout",
            str(s.bot_drain_timeout_s),
            "--workers",
            str(workers),
            *spec.args,
        ]

    async def _start_bot(self, spec: BotSpec, token: str) -> asyncio.subprocess.Process:
        return await self._spawn(spec.account, self.bot_arguments(spec), {**self._env(), "ARBITER_TOKEN": token})

    async def supervise_bot(self, spec: BotSpec, token: str) -> None:
        """Keep one bot running until the stack stops; back off when it keeps dying."""
        failures = 0
        while not self.stopping.is_set():
            self.set_bot(spec.account, STARTING)
            process = await self._start_bot(spec, token)
            self.bots[spec.account] = process
            started = time.monotonic()
            await process.wait()
            if self.stopping.is_set():
                self.set_bot(spec.account, STOPPED)
                return
            failures = 0 if time.monotonic() - started > 60 else failures + 1
            delay = self.settings.restart_backoff_s[min(failures, len(self.settings.restart_backoff_s) - 1)]
            self.set_bot(spec.account, RESTARTING, f"exited with code {process.returncode}, again in {delay:g} s")
            log.warning(
                "bot exited; restarting",
                extra={"player": spec.account, "code": process.returncode, "restart_in_s": delay},
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), delay)

    async def supervise_analyst(self) -> None:
        """Keep one analysis worker (reviews, the analysis board) running until the stack stops."""
        s = self.settings
        args = ["analyse", "--server", s.ws_url, "--log-level", s.log_level, "--log-format", "json"]
        while not self.stopping.is_set():
            self.analyst = await self._spawn("analysis", args, self._env())
            await self.analyst.wait()
            if not self.stopping.is_set():
                await asyncio.sleep(s.restart_backoff_s[-1])

    async def stop(self) -> None:
        """SIGTERM every process at once: the server stops new matches and drains, the bots finish
        or resign their games (before the server's deadline) and leave; then wait for all of them."""
        self.stopping.set()
        processes = [p for p in (*self.bots.values(), self.analyst, self.server) if p is not None]
        for process in processes:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
        await asyncio.gather(*(self._wait_or_kill(process) for process in processes))

    async def _wait_or_kill(self, process: asyncio.subprocess.Process) -> None:
        try:
            await asyncio.wait_for(process.wait(), self.settings.stop_timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


def status_display(log_format: str) -> StatusDisplay:
    """Console lines under a block redrawn in place on a terminal that can; else the block on change."""
    console = console_wanted(log_format)
    live = console and is_terminal(sys.stderr) and os.environ.get("TERM") != "dumb"
    return StatusDisplay(sys.stderr, live=live, console=console, colour=colour_supported(sys.stderr))


async def run_up(settings: UpSettings, tokens: dict[str, str], *, ready: asyncio.Event | None = None) -> int:
    """Run the stack until a signal or the server's exit; return the exit code."""
    display = status_display(settings.log_format)
    if display.live:  # the launcher's own records go above the block too
        configure_logging(settings.log_level, "console", stream=cast(IO[str], display), colour=display.colour)
    launcher = Launcher(settings, display)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, launcher.stopping.set)
    watcher: asyncio.Task[None] | None = None
    try:
        display.show(launcher.status)
        await launcher.start_server()
        launcher.status.server = "up"  # it answered /healthz; the watcher keeps the line current from here
        display.show(launcher.status)
        watcher = asyncio.create_task(launcher.watch_server())
        supervisors = [
            asyncio.create_task(launcher.supervise_bot(spec, tokens[spec.account])) for spec in settings.bots
        ]
        supervisors.append(asyncio.create_task(launcher.supervise_analyst()))
        if not display.console:  # with JSON logs, scripts read the address from stdout
            announced = {"msg": "arbiter is up", "open": launcher.status.url, "bots": list(launcher.status.bots)}
            print(json.dumps(announced), flush=True)
            print(f"\n  Arbiter is running: open {launcher.status.url} in a browser (Ctrl-C stops it)\n", flush=True)
        if ready is not None:
            ready.set()
        assert launcher.server is not None
        server_exit = asyncio.create_task(launcher.server.wait())
        stop = asyncio.create_task(launcher.stopping.wait())
        await asyncio.wait({server_exit, stop}, return_when=asyncio.FIRST_COMPLETED)
        crashed = not launcher.stopping.is_set()
        await launcher.stop()
        for task in [*supervisors, server_exit, stop]:
            task.cancel()
        if crashed:
            raise LaunchError(f"the server exited unexpectedly with code {launcher.server.returncode}")
        return 0
    finally:
        await launcher.stop()
        if watcher is not None:
            watcher.cancel()
        # A child's own children (a bot's search workers) may hold its pipe a moment longer.
        if launcher.relays:
            _, unfinished = await asyncio.wait(launcher.relays, timeout=5)
            for relay in unfinished:
                relay.cancel()
        launcher.status.server = STOPPED
        launcher.status.live_games = None
        display.show(launcher.status)
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
