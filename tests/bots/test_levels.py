"""A level per match: a challenge's level reaches the bot over a real server, every decision of that
match is asked at it while another match in the same one-worker pool plays at the bot's default,
the real brains honour a request's level, and a bot declines a level it does not have."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import numpy as np
import pytest

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.client import BotClient, BotSettings, ChallengeRefused, ClientCore
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain, random_move
from arbiter.bots.soccer.brain import SoccerBrain
from arbiter.engine import Game
from arbiter.protocol.server_messages import read
from arbiter.server import RunningServer, ServerConfig, run_server

pytestmark = pytest.mark.timeout(120)

CLOCK = {"initial_ms": 60_000, "increment_ms": 1_000}


class LevelledBrain(Brain):
    """Random moves, reporting the level each decision was asked at."""

    name = "levelled"
    levels = 3

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def think(self, request: ThinkRequest) -> ThinkResult:
        move = random_move(request.position(), np.random.default_rng(request.seed))
        return ThinkResult(request.position().game.encode_move(move), {"level": self.level_for(request)})


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0)) as running:
        yield running


@contextlib.asynccontextmanager
async def running_bot(server: RunningServer, name: str, brain: type[Brain]) -> AsyncIterator[BotClient]:
    """A registered bot playing tic-tac-toe from its own one-worker pool until the block ends."""
    token = await server.hub.store.add_player(name, "bot")
    settings = BotSettings(games=("tictactoe",))
    async with (
        BrainPool(brain, workers=1) as pool,
        BotClient(server.url, token=token, pool=pool, settings=settings).running() as client,
    ):
        yield client


async def test_each_match_is_played_at_its_own_level_in_one_pool(server: RunningServer) -> None:
    async with (
        running_bot(server, "levelled-bot", LevelledBrain) as bot,
        running_bot(server, "asking-bot", RandomBrain) as asker,
    ):
        assert server.hub.roster.get("levelled-bot").describe()["levels"] == 3
        asked = await asker.challenge("levelled-bot", "tictactoe", CLOCK, color="first", level=2)
        assert asked["level"] == 2
        await asker.challenge("levelled-bot", "tictactoe", CLOCK, color="first")  # no level: the default
        records = await asyncio.wait_for(bot.wait_finished(2), 60)
    by_level = {record["level"]: record for record in records}
    assert set(by_level) == {2, None}
    assert {d["info"]["level"] for d in by_level[2]["decisions"]} == {2}
    assert {d["info"]["level"] for d in by_level[None]["decisions"]} == {3}  # the pool's own: the strongest
    assert all(d["source"] == "brain" for r in records for d in r["decisions"])


async def test_a_level_the_bot_lacks_is_refused_before_any_challenge(server: RunningServer) -> None:
    async with (
        running_bot(server, "levelled-bot", LevelledBrain) as bot,
        running_bot(server, "asking-bot", RandomBrain) as asker,
    ):
        for level in (0, 4, "x", True):
            with pytest.raises(ChallengeRefused, match="bad_field"):
                await asker.challenge("levelled-bot", "tictactoe", CLOCK, level=level)
        assert not server.hub.challenges.open and not bot.games


def test_the_bot_declines_a_level_it_lacks_even_if_a_server_offers_it() -> None:
    core = ClientCore(BotSettings(games=("tictactoe",)), levels=LevelledBrain.levels, token="t")
    offer = {"id": "c1", "from": "x", "game": "tictactoe", "clock": CLOCK, "rated": False}
    for level, answer in ((4, "decline"), (0, "decline"), (3, "accept"), (None, "accept")):
        (send,) = core.receive(read({"type": "challenge_offered", "challenge": {**offer, "level": level}}), 0.0)
        assert send.message["type"] == answer, level


@pytest.mark.parametrize(("brain", "game", "levels"), [(GomokuBrain, "tictactoe4", (1, 3)),
                                                       (SoccerBrain, "paper_soccer", (1, 5))])  # fmt: skip
def test_the_real_brains_think_at_the_request_s_level(brain: type[Brain], game: str, levels: tuple[int, ...]) -> None:
    instance = brain()  # the strongest by default; each request names its own level
    for level in levels:
        result = instance.think(ThinkRequest("m", game, {}, [], 1.0, seed=1, level=level))
        assert result.info["level"] == level
    assert instance.think(ThinkRequest("m", game, {}, [], 1.0, seed=1)).info["level"] == brain.levels
