"""What the browser tests share besides fixtures: the site under test, the arena with its bot, the
way to wait for a bot to come online, and where screenshots go."""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

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


def screenshot_path(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"
