"""Our bots in the swap openings: two bots meet on a swap2 ladder and play the game to its end, the
server refusing nothing of theirs; and asked through the Brain interface, a bot's proposals are legal
stones near the centre judged by its own search, and its choice one of the options, from its search."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from arbiter.bots import swap
from arbiter.bots.brain import Brain, ThinkRequest
from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.config import LadderConfig
from tests.support.wsclient import Client

pytestmark = pytest.mark.timeout(240)

PARAMS = {"opening": "swap2"}


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    ladder = LadderConfig(
        clocks={"gomoku": ClockSpec(initial_ms=6_000, increment_ms=50)}, swaps={"gomoku": "swap2"}, retry_s=0.05, seed=5
    )
    async with run_server(ServerConfig(port=0, ladder=ladder)) as running:
        yield running


@pytest.mark.parametrize("first", [RandomBrain, GomokuBrain], ids=["random", "alphabeta"])
async def test_two_bots_play_a_swap2_ladder_game_to_its_end(server: RunningServer, first: type[Brain]) -> None:
    watcher = await Client.connect(server.url)
    await watcher.request("subscribe")
    settings = BotSettings(games=("gomoku",), ladder=True, max_matches=1, ponder=False)
    tokens = [await server.hub.store.add_player(brain.name, "bot") for brain in (first, MctsBrain)]
    async with (
        BrainPool(first, workers=1) as one,
        BrainPool(MctsBrain, workers=1) as other,
        BotClient(server.url, token=tokens[0], pool=one, settings=settings).running(),
        BotClient(server.url, token=tokens[1], pool=other, settings=settings).running(),
    ):
        listed = (await watcher.expect("match_listed"))["match"]
        assert listed["params"]["opening"] == "swap2"
        match = listed["match"]
        await watcher.expect("match_unlisted", match=match, timeout=120)
    record = await server.hub.store.get_game(match)
    assert record is not None and record.start.pool == "gomoku[opening=swap2]/bullet"
    assert record.reason in {"line", "board_full"} and record.refused == 0
    assert record.swap and record.swap[-1]["choice"] in ("black", "white")
    assert {c["by"] for c in record.swap} <= {first.name, MctsBrain.name}


async def test_a_client_without_the_feature_may_not_join_a_swap_ladder(server: RunningServer) -> None:
    token = await server.hub.store.add_player("plainbot", "bot")
    plain = await Client.connect(server.url, token=token)
    refused = await plain.request("ladder_join", game="gomoku")
    assert refused["type"] == "error" and refused["code"] == "feature_needed"
    joined = await (await Client.connect(server.url, token=token, features=["swap"])).request(
        "ladder_join", game="gomoku"
    )
    assert joined["type"] == "ladder_joined" and joined["pool"] == "gomoku[opening=swap2]/bullet"


def request(moves: list[list[int]], phase: dict, seed: int = 1) -> ThinkRequest:
    return ThinkRequest("m", "gomoku", PARAMS, moves, 0.2, seed=seed, swap=phase)


PLACE3 = {"rule": "swap2", "phase": "place", "to_act": 0, "stones": 3, "options": []}
CHOOSE = {"rule": "swap2", "phase": "choose", "to_act": 1, "stones": 3, "options": ["black", "white", "place"]}
PLACE5 = {"rule": "swap2", "phase": "place", "to_act": 1, "stones": 5, "options": []}


@pytest.mark.parametrize("brain", [RandomBrain(), MctsBrain(), GomokuBrain()], ids=["random", "mcts", "alphabeta"])
def test_a_brain_proposes_a_shape_extends_it_and_chooses(brain: Brain) -> None:
    moves: list[list[int]] = []
    for _ in range(3):  # the opener's stones: one shape, stone by stone
        moves.append(swap.decide(brain, request(moves, PLACE3)).move)
    centred = [[x - 7, y - 7] for x, y in moves]
    assert tuple(tuple(c) for c in centred) in swap.SHAPES
    choice = swap.decide(brain, request(moves, CHOOSE))
    assert choice.move in CHOOSE["options"]
    for _ in range(2):  # swap2's chooser: two more stones, each on an empty cell near the others
        stone = swap.decide(brain, request(moves, PLACE5)).move
        assert stone not in moves and min(max(abs(stone[0] - x), abs(stone[1] - y)) for x, y in moves) <= 2
        moves.append(stone)
    final = {**CHOOSE, "to_act": 0, "stones": 5, "options": ["black", "white"]}
    assert swap.decide(brain, request(moves, final)).move in ("black", "white")


def test_the_chooser_takes_the_colour_its_search_favours() -> None:
    class Judge(RandomBrain):
        value = 0.0

        def evaluate(self, request: ThinkRequest) -> float | None:
            return self.value

    judge = Judge()
    moves = [[7, 7], [8, 7], [7, 9]]
    for value, expected in ((0.6, "white"), (-0.6, "black"), (0.05, "place")):
        judge.value = value
        assert swap.decide(judge, request(moves, CHOOSE)).move == expected
    judge.value = 0.05
    assert swap.decide(judge, request(moves, {**CHOOSE, "options": ["black", "white"]})).move == "white"
