"""Our bots send their search's analysis with each move (move.info), as the protocol checks it: the
gomoku bot its depth, nodes and evaluation in points with the principal variation, MCTS its winning
chance; the server keeps it with the game."""

from __future__ import annotations

import asyncio

import pytest

from arbiter.bots.brain import Brain
from arbiter.bots.client import BotClient, BotSettings, ChallengeFilter
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.protocol.messages import analysis
from arbiter.server import ServerConfig, run_server

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(
    ("brain", "game", "unit"), [(GomokuBrain, "tictactoe4", "cp"), (MctsBrain, "tictactoe", "win")]
)
async def test_a_bots_moves_carry_its_analysis(brain: type[Brain], game: str, unit: str) -> None:
    clock = {"initial_ms": 20_000, "increment_ms": 200}
    async with run_server(ServerConfig(port=0)) as server:
        tokens = {name: await server.hub.store.add_player(name, "bot") for name in ("thinker", "sparring")}
        accept = ChallengeFilter(games=frozenset({game}))
        async with (
            BrainPool(brain, workers=1) as pool,
            BrainPool(RandomBrain, workers=1) as sparring_pool,
            BotClient(
                server.url, token=tokens["thinker"], pool=pool, settings=BotSettings(games=(game,), accept=accept)
            ).running() as thinker,
            BotClient(
                server.url,
                token=tokens["sparring"],
                pool=sparring_pool,
                settings=BotSettings(games=(game,), accept=accept),
            ).running(),
        ):
            await thinker.challenge("sparring", game, clock, color="first")
            (record,) = await asyncio.wait_for(thinker.wait_finished(1), 120)
        stored = await server.hub.store.get_game(record["match"])
    assert stored is not None
    ours = [move.info for move in stored.moves[0::2]]  # the thinker moved first
    assert ours and all(info is not None for info in ours)
    for info in ours:
        assert analysis(info) == info  # what the protocol accepts, as it is
        assert info["unit"] == unit and "nodes" in info and "time_ms" in info
    assert all(move.info is None for move in stored.moves[1::2])  # random says nothing
