"""What the browser tests share besides fixtures: the site under test, the arena with its bot, the
real random bot (or any ``arbiter`` command) as a process and the way to wait for a bot to come
online, a real bot in the test's own process, and where screenshots go."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from arbiter.bots.brain import Brain
from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.pool import BrainPool
from arbiter.server import RunningServer
from arbiter.server.store.sqlite import SqliteStore

# Every run saves each board's screenshot under test-artifacts/ (ignored by git); to refresh the
# pictures the docs and README show: ARBITER_SCREENSHOTS=docs/screenshots make test
SCREENSHOTS = Path(
    os.environ.get("ARBITER_SCREENSHOTS", Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots")
).resolve()


@dataclass
class Site:
    """The server under test, with its store."""

    server: RunningServer
    store: SqliteStore

    @property
    def url(self) -> str:
        return self.server.http_url + "/"


@dataclass
class Arena(Site):
    bot: str  # the name of the random bot, online for the whole module


async def wait_online(server: RunningServer, name: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Until the player ``name`` is connected (its process started, warmed its pool and said hello)."""
    async with asyncio.timeout(timeout):
        while True:
            player = server.hub.roster.get(name)
            if player is not None and player.connected:
                return
            if process.poll() is not None:
                raise RuntimeError(f"the bot process exited with {process.returncode}")
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def random_bot(server: RunningServer, name: str, token: str) -> AsyncIterator[subprocess.Popen[bytes]]:
    """The real random bot as its own process (``arbiter bot random --token``), online while the block
    runs (the account ``name`` the token belongs to), stopped with SIGTERM after."""
    async with arbiter_process(server, name, ["bot", "random", "--token", token, "--workers", "1"]) as process:
        yield process


@contextlib.asynccontextmanager
async def analysis_worker(
    server: RunningServer, name: str, token: str, games: str
) -> AsyncIterator[subprocess.Popen[bytes]]:
    """The real analysis worker as its own process (``arbiter analyse --games``), as ``random_bot``; it
    warms the search of every game's bot before its hello, so it may take a while to come online."""
    args = ["analyse", "--token", token, "--games", games]
    async with arbiter_process(server, name, args, online_timeout=180) as process:
        yield process


@contextlib.asynccontextmanager
async def arbiter_process(
    server: RunningServer, name: str, args: list[str], online_timeout: float = 60
) -> AsyncIterator[subprocess.Popen[bytes]]:
    """``arbiter ARGS --server URL`` as its own process, online as ``name`` while the block runs,
    stopped with SIGTERM after."""
    arbiter = shutil.which("arbiter", path=str(Path(sys.executable).parent)) or "arbiter"
    process = subprocess.Popen([arbiter, *args, "--server", server.url, "--log-level", "warning"])
    try:
        await wait_online(server, name, process, online_timeout)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(asyncio.to_thread(process.wait), 15)
        except TimeoutError:
            process.kill()


@contextlib.asynccontextmanager
async def pooled_bot(site: Site, name: str, brain: type[Brain], settings: BotSettings) -> AsyncIterator[BotClient]:
    """A real bot in this process with its own one-worker pool, online as the new bot account ``name``."""
    token = await site.store.add_player(name, "bot")
    async with (
        BrainPool(brain, workers=1) as pool,
        BotClient(site.server.url, token=token, pool=pool, settings=settings).running(connect_timeout=60) as client,
    ):
        yield client


def screenshot_path(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


def csp_violations(console: list[str]) -> list[str]:
    """The console lines in which Chromium reports something the Content-Security-Policy refused."""
    return [line for line in console if "Content Security Policy" in line]
