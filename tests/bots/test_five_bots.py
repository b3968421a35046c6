"""Renju and caro played by our bots: the random bot, MCTS and the alpha-beta gomoku bot meet on a
real server's ladder and play whole games that end by the rules, the server refusing none of their
moves; the gomoku bot plays black in renju at every level to the end against random moves; and at
every level it never takes black's forbidden point that it would play in gomoku (a double-four and
a double-three), asked through its Brain interface."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from arbiter.bots.brain import Brain, ThinkRequest
from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.engine import create_game
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.config import LadderConfig
from tests.support.wsclient import Client, play_move, random_move

pytestmark = pytest.mark.timeout(240)

FIVE_GAMES = ("renju", "caro")
RULE_ENDS = {"line", "board_full", "stuck"}
CORNERS = [[0, 0], [14, 0], [0, 14], [14, 14]]  # white's moves far from the fight


def interleave(black: list[list[int]], white: list[list[int]]) -> list[list[int]]:
    return [move for pair in zip(black, white, strict=True) for move in pair]


# Black to move; (7, 7) is forbidden in renju and the move the bot plays there in gomoku.
FORKS = {
    "double-four": interleave([[4, 7], [5, 7], [6, 7], [7, 4], [7, 5], [7, 6]], [[3, 7], [7, 3], *CORNERS]),
    "double-three": interleave([[5, 7], [6, 7], [7, 5], [7, 6]], CORNERS),
}


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    clock = ClockSpec(initial_ms=4_000, increment_ms=50)
    ladder = LadderConfig(clocks=dict.fromkeys(FIVE_GAMES, clock), retry_s=0.05, seed=3)
    async with run_server(ServerConfig(port=0, ladder=ladder)) as running:
        yield running


@pytest.mark.parametrize("game", FIVE_GAMES)
@pytest.mark.parametrize(("first", "second"), [(RandomBrain, MctsBrain), (GomokuBrain, MctsBrain)])
async def test_two_bots_play_a_whole_game_the_server_refuses_no_move_of(
    server: RunningServer, game: str, first: type[Brain], second: type[Brain]
) -> None:
    watcher = await Client.connect(server.url)
    await watcher.request("subscribe")
    settings = BotSettings(games=(game,), ladder=True, max_matches=1, ponder=False)
    tokens = [await server.hub.store.add_player(brain.name, "bot") for brain in (first, second)]
    async with (
        BrainPool(first, workers=1, level=2 if first is GomokuBrain else None) as one,
        BrainPool(second, workers=1) as other,
        BotClient(server.url, token=tokens[0], pool=one, settings=settings).running(),
        BotClient(server.url, token=tokens[1], pool=other, settings=settings).running(),
    ):
        match = (await watcher.expect("match_listed"))["match"]["match"]
        await watcher.expect("match_unlisted", match=match)
    record = await server.hub.store.get_game(match)
    assert record is not None and record.start.game == game and record.start.pool.startswith(f"{game}/")
    assert record.reason in RULE_ENDS and record.refused == 0, (record.reason, record.refusals)
    state = create_game(game).new_state()
    for move in record.moves:
        state.play(state.game.decode_move(move.move))  # every stored move replays by the rules
    assert state.outcome is not None and state.outcome.reason == record.reason
    await watcher.close()


@pytest.mark.parametrize("level", range(1, GomokuBrain.levels + 1))
async def test_the_gomoku_bot_plays_black_in_renju_to_the_end_at_every_level(server: RunningServer, level: int) -> None:
    token = await server.hub.store.add_player("gomoku", "bot")
    human = await Client.connect(server.url, token=await server.hub.store.add_player("tester", "human"))
    clock = {"initial_ms": 20_000, "increment_ms": 100}
    async with (
        BrainPool(GomokuBrain, workers=1) as pool,
        BotClient(server.url, token=token, pool=pool, settings=BotSettings(games=("renju",), ponder=False)).running(),
    ):
        created = await human.request("challenge", to="gomoku", game="renju", clock=clock, color="second", level=level)
        assert created["type"] == "challenge_created", created
        match = (await human.expect("match_start"))["match"]
        state, rng = create_game("renju").new_state(), random.Random(level)
        while (message := await human.expect(None, match=match, timeout=30))["type"] != "end":
            if message["type"] != "moved":
                continue
            state.play(state.game.decode_move(message["move"]))
            if not state.is_terminal and state.to_move == 1:
                move = random_move(state, rng)
                assert (await play_move(human, match, len(state.moves()), move))["type"] == "moved"
                state.play(state.game.decode_move(move))
    record = await server.hub.store.get_game(match)
    assert record is not None and record.reason in RULE_ENDS and record.refused == 0, (record, state.moves())
    assert record.start.players[0] == "gomoku" and record.start.levels == (level, None)
    await human.close()


@pytest.mark.parametrize("level", range(1, GomokuBrain.levels + 1))
@pytest.mark.parametrize("fork", sorted(FORKS))
def test_the_gomoku_bot_never_takes_the_forbidden_point_it_would_play_in_gomoku(fork: str, level: int) -> None:
    moves = FORKS[fork]
    state = create_game("renju").new_state()
    for move in moves:
        state.play(state.game.decode_move(move))
    assert state.forbidden_kind(state.game.decode_move([7, 7])) == fork
    brain = GomokuBrain(level)
    assert brain.think(ThinkRequest("gomoku", "gomoku", {}, moves, 0.5, seed=1)).move == [7, 7]
    for seed in range(3):
        move = brain.think(ThinkRequest("renju", "renju", {}, moves, 0.5, seed=seed)).move
        state.copy().play(state.game.decode_move(move))  # raises IllegalMove on a forbidden point


def test_the_ladder_rates_each_rule_in_its_own_pool() -> None:
    ladder = LadderConfig()
    pools = {game: ladder.pool_of(game) for game in ("gomoku", "renju", "caro")}
    assert pools["renju"].startswith("renju/") and pools["caro"].startswith("caro/")
    assert len(set(pools.values())) == 3
