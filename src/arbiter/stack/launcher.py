"""``arbiter up``: the server and the default bots as separate processes, supervised.

The launcher owns nothing the server or the bots do; it only makes sure the bots' accounts exist
(their tokens kept in files beside the database, readable by the owner only), starts the server,
waits until it answers ``/healthz``, starts each bot with its token, restarts a bot that dies
(with back-off), and on Ctrl-C or SIGTERM stops the bots, then the server, and exits 0.
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

from arbiter.server.store.base import Store
from arbiter.server.store.token_files import ensure_token_file

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


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


class Launcher:
    def __init__(self, settings: UpSettings) -> None:
        self.settings = settings
        self.server: asyncio.subprocess.Process | None = None
        self.bots: dict[str, asyncio.subprocess.Process] = {}
        self.stopping = asyncio.Event()

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
            "--drain-timeout",
            str(s.drain_timeout_s),
            *s.server_args,
        ]
        self.server = await asyncio.create_subprocess_exec(
            *self._command(*args), env=self._env(), start_new_session=True
        )
        deadline = time.monotonic() + s.startup_timeout_s
        while not await asyncio.to_thread(_healthy, s.http_url):
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
            "--drain-timeout",
            str(s.bot_drain_timeout_s),
            "--workers",
            str(workers),
            *spec.args,
        ]

    async def _start_bot(self, spec: BotSpec, token: str) -> asyncio.subprocess.Process:
        args = self.bot_arguments(spec)
        return await asyncio.create_subprocess_exec(
            *self._command(*args), env={**self._env(), "ARBITER_TOKEN": token}, start_new_session=True
        )

    async def supervise_bot(self, spec: BotSpec, token: str) -> None:
        """Keep one bot running until the stack stops; back off when it keeps dying."""
        failures = 0
        while not self.stopping.is_set():
            process = await self._start_bot(spec, token)
            self.bots[spec.account] = process
            started = time.monotonic()
            await process.wait()
            if self.stopping.is_set():
                return
            failures = 0 if time.monotonic() - started > 60 else failures + 1
            delay = self.settings.restart_backoff_s[min(failures, len(self.settings.restart_backoff_s) - 1)]
            log.warning(
                "bot exited; restarting",
                extra={"player": spec.account, "code": process.returncode, "restart_in_s": delay},
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), delay)

    async def stop(self) -> None:
        """SIGTERM every process at once: the server stops new matches and drains, the bots finish
        or resign their games (before the server's deadline) and leave; then wait for all of them."""
        self.stopping.set()
        processes = [p for p in (*self.bots.values(), self.server) if p is not None]
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


async def run_up(settings: UpSettings, tokens: dict[str, str], *, ready: asyncio.Event | None = None) -> int:
    """Run the stack until a signal or the server's exit; return the exit code."""
    launcher = Launcher(settings)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, launcher.stopping.set)
    try:
        await launcher.start_server()
        supervisors = [
            asyncio.create_task(launcher.supervise_bot(spec, tokens[spec.account])) for spec in settings.bots
        ]
        print(
            json.dumps(
                {
                    "msg": "arbiter is up",
                    "open": f"{settings.http_url}/",
                    "bots": [spec.account for spec in settings.bots],
                }
            ),
            flush=True,
        )
        print(f"\n  Arbiter is running: open {settings.http_url}/ in a browser (Ctrl-C stops it)\n", flush=True)
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
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
