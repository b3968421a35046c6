"""docker-compose.yml run for real: the image built from the Dockerfile, both profiles brought up
with `docker compose up`, and everything proven through the one port published on 127.0.0.1.

The engine is the one running here, else Debian's dockerd started for the test (tests/run/docker_engine.py);
a machine where neither can be had fails with one line saying why. Registry images are stood in for
by local builds from Debian's packages (scripts/compose-local-base), so the two files run unchanged.
Every container, volume and the image built are removed after; the base images are kept (a cache).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator

import docker_engine
import pytest
from docker_engine import Project
from test_up import DEFAULT_ACCOUNTS, lobby_players
from websockets.exceptions import WebSocketException

from arbiter.engine import create_game
from arbiter.server.cluster.keys import PLAYERS
from arbiter.soak.services import free_port
from tests.support.guest import play_mnk_to_end, start_game
from tests.support.wsclient import Client, play_move, random_move

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("docker"), pytest.mark.timeout(1500)]  # builds first

CHROMIUM = "/usr/bin/chromium"
FINISHED = {"line", "board_full"}  # how an m,n,k game ends when both sides play it out
CLOCK = {"initial_ms": 60_000, "increment_ms": 1000}  # the bot thinks a second or two a move
UP_TIMEOUT = 180.0  # from `up` to three bots online: 60 s is the target (docs/PERFORMANCE.md), on a busy machine


@pytest.fixture(scope="module")
def docker_host() -> Iterator[str]:
    with contextlib.ExitStack() as stack:
        try:
            host = stack.enter_context(docker_engine.engine())
            command = docker_engine.compose_command(host)
        except docker_engine.NoEngine as error:
            pytest.fail(f"no Docker engine for the compose test: {error}", pytrace=False)
        print(f"compose: {' '.join(command)}")
        yield host


@pytest.fixture(scope="module")
def image(docker_host: str) -> Iterator[list[str]]:
    """The compose command, once the base images exist and the image is built (removed after)."""
    command = docker_engine.compose_command(docker_host)
    docker_engine.local_base_images(docker_host)
    builder = Project(docker_host, command, f"arbiter-build-{os.getpid()}", "single", 0)
    untagged = builder.untagged_images()
    started = time.monotonic()
    try:
        builder.compose("build", "server", timeout=1200)
        print(f"compose build: the image in {time.monotonic() - started:.0f} s")
        yield command
    finally:
        builder.docker("rmi", "arbiter:latest", *(builder.untagged_images() - untagged))  # its build stage too


@contextlib.contextmanager
def project(docker_host: str, command: list[str], profile: str) -> Iterator[Project]:
    stack = Project(docker_host, command, f"arbiter-test-{profile}-{os.getpid()}", profile, free_port())
    try:
        yield stack
    except BaseException:
        print(stack.compose("logs", "--no-color", "--tail", "30"))  # what each service said last
        raise
    finally:
        stack.remove()


async def up(stack: Project) -> float:
    """`compose up -d`, then wait for the three bots in the lobby; the seconds it took."""
    started = time.monotonic()
    await asyncio.to_thread(stack.compose, "up", "-d")
    await bots_online(stack)
    return time.monotonic() - started


async def bots_online(stack: Project) -> None:
    async with asyncio.timeout(UP_TIMEOUT):
        while True:
            with contextlib.suppress(OSError, WebSocketException):  # the server not listening yet, or restarting
                if set(players := await lobby_players(stack.url)) >= DEFAULT_ACCOUNTS:
                    assert all(players[name]["kind"] == "bot" for name in DEFAULT_ACCOUNTS), players
                    return
            await asyncio.sleep(0.5)


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def finished_games(stack: Project) -> set[str]:
    """The latest finished games (the ladder adds one every few seconds)."""
    return {game["match"] for game in get_json(f"{stack.http}/games.json?limit=500")["games"]}


def stored(stack: Project, match: str) -> bool:
    try:
        return get_json(f"{stack.http}/game.json?match={match}")["match"] == match
    except urllib.error.HTTPError as error:
        assert error.code == 404, error
        return False


async def guest_game(
    guest: Client, bot: str, game: str = "tictactoe", *, after_first: Callable[[], Awaitable[None]] | None = None
) -> dict:
    """A guest's whole game against ``bot``, random legal moves, the guest first; its ``end``."""
    try:
        created = await guest.request("challenge", to=bot, game=game, clock=CLOCK, color="first")
        assert created["type"] == "challenge_created", created
        match = (await guest.expect("match_start", timeout=60))["match"]
        state, rng, ply = create_game(game).new_state(), random.Random(7), 0
        while not state.is_terminal:
            if ply % 2 == 0:
                moved = await play_move(guest, match, ply, random_move(state, rng))
                assert moved["type"] == "moved", moved
            else:
                moved = await guest.expect("moved", match=match, ply=ply, timeout=90)
            state.play_wire(moved["move"])
            ply += 1
            if ply == 1 and after_first is not None:
                await after_first()
        return await guest.expect("end", match=match, timeout=60)
    finally:
        await guest.close()


async def browser_game(stack: Project) -> None:
    """The lobby in Chromium, and a guest's whole game against a bot from it."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = await browser.new_page()
            page.set_default_timeout(120_000)  # a bot's move, on a machine shared with the ladder's games
            await page.goto(f"{stack.http}/")
            await page.wait_for_selector("#status[data-state=open]")
            await page.select_option("#clock", "0")  # the shortest: the bot thinks a second or two a move
            await start_game(page, "tictactoe", "mcts")
            assert await play_mnk_to_end(page, 0, 3) >= 3
        finally:
            await browser.close()


async def down(stack: Project, services: set[str]) -> None:
    """`compose down`: every service stops by itself within its grace (exit 0, not killed)."""
    since = time.time()
    await asyncio.to_thread(stack.compose, "stop")
    exits = {name: code for name, code in stack.exits_since(since).items() if name in services}
    failed = sorted(name for name in services if exits.get(name) != 0)
    logs = {name: stack.compose("logs", "--no-color", "--tail", "30", name) for name in failed}
    await asyncio.to_thread(stack.compose, "down", "--volumes")
    assert exits == dict.fromkeys(services, 0), (exits, logs)


async def test_the_single_profile_serves_plays_restarts_and_stops(docker_host: str, image: list[str]) -> None:
    with project(docker_host, image, "single") as stack:
        seconds = await up(stack)
        print(f"compose up (single): three bots online in {seconds:.1f} s")
        assert get_json(f"{stack.http}/healthz")["status"] == "ok"
        await browser_game(stack)
        end = await guest_game(await Client.connect(stack.url), "alphabeta", "tictactoe4")
        assert end["reason"] in FINISHED, end
        before = finished_games(stack)
        assert end["match"] in before

        await asyncio.to_thread(stack.compose, "restart", "server")
        await bots_online(stack)
        assert [match for match in before if not stored(stack, match)] == []  # no finished game lost
        assert stack.cache_writes() == {}  # every kernel loaded from the image's cache

        guest = await Client.connect(stack.url)  # a live game when the stack goes down
        created = await guest.request("challenge", to="minimax", game="paper_soccer",
                                      clock={"initial_ms": 120_000}, color="second")  # fmt: skip
        assert created["type"] == "challenge_created", created
        match = (await guest.expect("match_start", timeout=60))["match"]
        await guest.expect("moved", match=match, ply=0, timeout=60)
        stopping = asyncio.create_task(down(stack, {"server", *DEFAULT_ACCOUNTS}))
        end = await guest.expect("end", match=match, timeout=120)
        assert end["reason"] == "resign" and end["winner"] == 1, end  # the bot resigned its part of the drain
        await stopping
        await guest.close()


def node_players(stack: Project, node: str) -> int:
    """The players ``node``'s roster holds: its own and the proxies of others that sent it a request."""
    probe = "import json, urllib.request; print(json.load(urllib.request.urlopen('http://127.0.0.1:8765/healthz'))['players'])"
    return int(stack.compose("exec", "-T", node, "python", "-c", probe))


def home_of(stack: Project, name: str) -> str:
    """The node the cluster's directory names as ``name``'s home (read from a node, with its Redis URL)."""
    probe = ("import os, redis; home = redis.Redis.from_url(os.environ['ARBITER_CLUSTER']).hget("
             f"'{PLAYERS}', {name!r}); print(home.decode() if home else '')")  # fmt: skip
    return stack.compose("exec", "-T", "node2", "python", "-c", probe).strip()


async def test_the_cluster_profile_plays_across_nodes_and_survives_a_killed_node(
    docker_host: str, image: list[str]
) -> None:
    with project(docker_host, image, "cluster") as stack:
        seconds = await up(stack)
        print(f"compose up (cluster): three bots online in {seconds:.1f} s")
        assert (stack.health("node1"), stack.health("node2")) == ("healthy", "healthy")
        assert get_json(f"{stack.http}/healthz")["status"] == "ok"  # through HAProxy
        assert node_players(stack, "node1") == len(DEFAULT_ACCOUNTS)  # the bots take their first address

        # Through the proxy, the second of two open connections goes to the node with fewer (the
        # bots are all on node1). Counting node2's roster would not tell: the ladder's lease holder
        # also holds proxies of the bots that joined it.
        guest = await Client.connect(stack.url)
        if home_of(stack, guest.name) != "node2":
            holder, guest = guest, await Client.connect(stack.url)
            await holder.close()
        assert home_of(stack, guest.name) == "node2", "the proxy put both guests on node1"

        async def kill_node1() -> None:
            await asyncio.to_thread(stack.compose, "kill", "node1")

        # A guest on node2 against a bot on node1; node1 is killed after the first move, and the
        # game goes on to its end through the proxy once node2 adopts it.
        before = time.time()
        end = await guest_game(guest, "mcts", after_first=kill_node1)
        assert end["reason"] in FINISHED, end
        assert stack.exits_since(before).get("node1") == 137  # SIGKILL
        assert stored(stack, end["match"])
        await down(stack, {"node2", *(f"cluster-{bot}" for bot in DEFAULT_ACCOUNTS)})
