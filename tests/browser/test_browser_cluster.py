"""The browser on a cluster: Chromium opens the page through HAProxy (deploy/haproxy.cfg) in front of
two ``arbiter serve --cluster`` nodes on PostgreSQL and Redis, and plays gomoku against the real
random bot (connected through the proxy too). Mid-game the node that owns the match leaves
(SIGTERM): the other node adopts the match, the page reconnects through the same address as it
always does, and the person finishes the game there."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path

import pytest
import pytest_asyncio
import redis

from arbiter.server.store.postgresql import PostgresStore
from arbiter.soak.services import HAProxy
from tests.support.guest import play_mnk_move, play_mnk_to_end, start_game, wait_turn

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOT = "random"
_databases = count()


@dataclass
class ClusterSite:
    """What ``new_page`` needs of a site (its address: the proxy's), and the nodes behind it."""

    proxy: HAProxy
    nodes: dict[str, tuple[asyncio.subprocess.Process, str]]  # name → (process, http address)

    @property
    def url(self) -> str:
        return self.proxy.url.replace("ws://", "http://")


async def start_node(name: str, db: str, cluster: str) -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "serve", "--port", "0", "--db", db, "--cluster", cluster,
        "--node-id", name, "--no-warm", "--grace", "30", "--log-level", "warning", stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    async with asyncio.timeout(60):
        while not (line := (await process.stderr.readline()).decode()).startswith("listening on "):
            assert line, f"node {name} exited before listening"
    asyncio.get_running_loop().create_task(process.stderr.read())  # keep reading: a full pipe would stop it
    return process, line.split()[-1].replace("ws://", "http://").rstrip("/")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def site(postgres_server, redis_server) -> AsyncIterator[ClusterSite]:
    """Overrides the suite's single server: two nodes behind the proxy, and the bot."""
    db = postgres_server.create_database(f"browser_cluster_{next(_databases)}")
    redis.Redis.from_url(redis_server.url).flushall()
    store = PostgresStore(db)
    await store.open()
    token = await store.add_player(BOT, "bot")
    await store.close()
    nodes = {}
    for name in ("n1", "n2"):  # one after another: the first migrates the database
        nodes[name] = await start_node(name, db, redis_server.url)
    proxy = HAProxy(*(address.removeprefix("http://") for _, address in nodes.values()))
    proxy.start()
    arbiter = shutil.which("arbiter", path=str(Path(sys.executable).parent)) or "arbiter"
    bot = subprocess.Popen([arbiter, "bot", BOT, "--server", proxy.url, "--token", token, "--workers", "1",
                            "--games", "gomoku", "--log-level", "warning"])  # fmt: skip
    try:
        yield ClusterSite(proxy, nodes)
    finally:
        bot.send_signal(signal.SIGTERM)
        await asyncio.to_thread(bot.wait, 30)
        proxy.remove()
        for process, _ in nodes.values():
            if process.returncode is None:
                process.terminate()
            await process.wait()


def live_matches(address: str) -> int:
    with urllib.request.urlopen(f"{address}/healthz", timeout=10) as response:
        return int(json.loads(response.read())["matches"])


async def test_a_person_finishes_a_game_after_its_node_leaves_the_cluster(new_page, site: ClusterSite) -> None:
    page = await new_page()
    await start_game(page, "gomoku", BOT, color="first")
    for _ in range(3):
        assert await wait_turn(page)
        await play_mnk_move(page, 0, 5)

    owner = next(name for name, (_, address) in site.nodes.items() if live_matches(address) == 1)
    process, _ = site.nodes[owner]
    process.terminate()  # the match's node hands it over and closes its connections with 1001
    assert await process.wait() == 0

    await page.wait_for_selector("#status[data-state=open]")  # connected again, through the proxy
    made = await play_mnk_to_end(page, 0, 5)
    await page.wait_for_selector("#result:not([hidden])")
    text = await page.inner_text("#result")
    assert any(word in text for word in ("You won", "You lost", "Draw")), text
    assert made >= 1
    survivor = next(address for name, (_, address) in site.nodes.items() if name != owner)
    assert live_matches(survivor) == 0  # the game ended on the surviving node
