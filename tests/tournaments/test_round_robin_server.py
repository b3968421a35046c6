"""A double round robin of six bots played to the end over a real server: our random, MCTS and
alpha-beta bots in-process, and three Gomocup engines through real ``arbiter bridge pbrain``
processes (one sound, one that crashes at its second move, one that answers an occupied cell).
The standings are checked against a recomputation from the stored games alone, and every game of
the faulty engines is scored as its loss with the cause kept."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from arbiter.bots.brain import Brain
from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.base import Store
from arbiter.server.store.sqlite import SqliteStore
from arbiter.server.tournaments import lifecycle, report
from arbiter.server.tournaments.spec import TournamentSpec
from tests.bots.bridge_helpers import bridge_process, logged
from tests.support.store_check import assert_store_clean

pytestmark = pytest.mark.timeout(300)

ENGINE = [sys.executable, str(Path(__file__).parents[1] / "bots" / "pbrain_engines" / "threat_engine.py")]
GAME = "mnk"
RULES = {"m": 5, "n": 5, "k": 5, "exact": False}  # five in a row on 5×5: every engine plays it, quickly
BRAINS: dict[str, tuple[type[Brain], int | None]] = {"random": (RandomBrain, None), "mcts": (MctsBrain, None),
                                                     "alphabeta": (GomokuBrain, 1)}  # fmt: skip
ENGINES = {"threat": [], "crasher": ["--crash-at", "2"], "cheater": ["--occupied-at", "2"]}
# The causes each faulty engine loses by: its fault, or the time a new engine took to start after one
# crashed (the bridge replaces it; on a short clock and a busy machine that can overrun the move).
FAULTS = {"crasher": {"crash", "timeout"}, "cheater": {"illegal_move", "timeout"}}


def spec(**changes: object) -> TournamentSpec:
    settings = {"format": "round_robin", "game": GAME, "params": RULES, "double": True, "concurrency": 6,
                "clock": {"initial_ms": 4_000, "increment_ms": 100}, "grace_s": 60.0, "seed": 11}  # fmt: skip
    return TournamentSpec.check({**settings, **changes})


@pytest.fixture(autouse=True)
def checked_when_the_server_stops(tmp_path: Path) -> Iterator[None]:
    """Set up before the server, so torn down after it: `arbiter check` finds the games it stored clean."""
    yield
    assert_store_clean(tmp_path / "arbiter.db")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RunningServer]:
    store = SqliteStore(tmp_path / "arbiter.db")
    async with run_server(ServerConfig(port=0, tournament_interval_s=0.2), store) as running:
        yield running


async def bots_playing(server: RunningServer, stack: AsyncExitStack, tmp_path: Path) -> None:
    """Every bot connected and ready, the engines' bridges warm."""
    settings = BotSettings(games=(GAME,), max_matches=2, ponder=False)
    for name, (brain, level) in BRAINS.items():
        token = await server.hub.store.add_player(name, "bot")
        pool = await stack.enter_async_context(BrainPool(brain, workers=1, level=level))
        await stack.enter_async_context(BotClient(server.url, token=token, pool=pool, settings=settings).running())
    for name, flags in ENGINES.items():
        folder = tmp_path / name
        folder.mkdir()
        bridge = await bridge_process(server, folder, "pbrain", [*ENGINE, *flags], games=GAME, account=name)
        stack.callback(bridge.kill)
        await logged(bridge, "connected")
    async with asyncio.timeout(60):
        while any(server.hub.roster.get(name) is None for name in [*BRAINS, *ENGINES]):
            await asyncio.sleep(0.05)


async def played_to_the_end(store: Store, name: str) -> None:
    async with asyncio.timeout(240):
        while (await store.get_tournament(name)).state != "finished":  # type: ignore[union-attr]
            await asyncio.sleep(0.2)


async def recomputed_points(store: Store, name: str) -> dict[str, float]:
    """Each player's points from the stored games alone (a forfeit from its pairing)."""
    points = dict.fromkeys([entry.name for entry in await store.tournament_entries(name)], 0.0)
    for game in await store.tournament_games(name):
        assert game.white is not None
        if game.forfeit is not None:
            score = game.score
        else:
            assert game.match_id is not None
            record = await store.get_game(game.match_id)
            assert record is not None and record.start.players == (game.black, game.white)
            assert record.start.rated and record.start.game == GAME and record.result is not None
            score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[record.result]
        assert score is not None
        points[game.black] += score
        points[game.white] += 1 - score
    return points


async def test_a_double_round_robin_of_six_bots_is_played_to_the_end(server: RunningServer, tmp_path: Path) -> None:
    store = server.hub.store
    async with AsyncExitStack() as stack:
        await bots_playing(server, stack, tmp_path)
        players = [*BRAINS, *ENGINES]
        await lifecycle.create(store, "double-six", spec(), players)
        games = await lifecycle.start(store, "double-six")
        assert len(games) == 30
        server.hub.tournaments.kick()
        await played_to_the_end(store, "double-six")
    stored = await store.tournament_games("double-six")
    pairs = [frozenset((g.black, g.white)) for g in stored]
    assert all(pairs.count(pair) == 2 for pair in pairs)  # each pair twice
    for pair in set(pairs):
        one, other = (g for g in stored if frozenset((g.black, g.white)) == pair)
        assert (one.black, one.white) == (other.white, other.black) and one.opening == other.opening
    assert all(g.forfeit is None and g.match_id is not None for g in stored)  # everyone was there
    causes: dict[str, list[str | None]] = {faulty: [] for faulty in FAULTS}
    for game in stored:  # the faulty engines lose every game against a sound bot, the cause kept
        for faulty, kept in FAULTS.items():
            other = game.white if faulty == game.black else game.black if faulty == game.white else None
            if other is not None and other not in FAULTS:
                assert game.score == (0.0 if faulty == game.black else 1.0), game
                assert game.cause in kept, game
                causes[faulty].append(game.cause)
    assert "crash" in causes["crasher"] and "illegal_move" in causes["cheater"], causes
    described = await report.describe(store, "double-six")
    points = await recomputed_points(store, "double-six")
    assert {row["name"]: row["points"] for row in described["standings"]} == points
    assert [row["points"] for row in described["standings"]] == sorted(points.values(), reverse=True)
    assert sum(points.values()) == 30
    assert set(described["bayeselo"]) == set(players) and described["state"] == "finished"
