"""Every brain's fallback move (for a deadline that cannot be met) is legal, quick and not random."""

from __future__ import annotations

import asyncio
import time

import pytest

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.client import BotClient, BotSettings, ChallengeFilter
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.bots.registry import brain_class
from arbiter.engine import create_game
from arbiter.server import ServerConfig, run_server

CASES = [  # bot, game, a position in it
    ("gomoku", "gomoku", [[7, 7], [8, 8], [7, 8], [8, 7], [7, 9]]),  # the first player threatens an open four
    ("mcts", "tictactoe4", [[0, 0], [1, 1]]),
    ("soccer", "paper_soccer", []),
    ("perfect", "tictactoe", [[0, 0], [1, 1], [0, 1]]),
    ("random", "vanishing", []),
]


@pytest.mark.parametrize(("bot", "game", "moves"), CASES)
def test_fallback_moves_are_legal_and_quick(bot: str, game: str, moves: list) -> None:
    brain = brain_class(bot)()
    brain.warm_up()
    request = ThinkRequest("m", game, {}, moves, 5.0, deadline=time.monotonic())
    brain.fallback_move(request)  # its kernels compiled (or loaded from the cache) before timing
    began = time.process_time()
    result = brain.fallback_move(request)
    assert time.process_time() - began < 0.25  # level 1 on a 20 ms budget, plus its set-up
    state = request.position()
    state.play(create_game(game).decode_move(result.move))  # legal, or this raises


def test_a_fallback_takes_a_five_and_blocks_one() -> None:
    """Sound, not random: gomoku's level 1 completes its own five and stops the opponent's."""
    brain = brain_class("gomoku")()
    brain.warm_up()
    four = [[7, 7], [0, 0], [7, 8], [0, 14], [7, 9], [14, 0], [7, 10], [14, 14]]  # the first player's open four
    assert brain.fallback_move(ThinkRequest("m", "gomoku", {}, four, 5.0)).move in ([7, 6], [7, 11])
    closed_four = [[7, 7], [7, 6], [7, 8], [0, 0], [7, 9], [0, 14], [7, 10]]  # the second player must block
    assert brain.fallback_move(ThinkRequest("m", "gomoku", {}, closed_four, 5.0)).move == [7, 11]


async def test_one_worker_six_matches_at_a_fast_clock_no_random_move_no_loss_on_time() -> None:
    """The pool's most urgent request first, its budget cut to its deadline, and the brain's own
    quick move when even that is too late: a bot with one worker plays six games at once at 2 s a
    game and neither loses on time nor plays a random move (issue 15's acceptance test)."""
    clock = {"initial_ms": 2_000, "increment_ms": 50}
    async with run_server(ServerConfig(port=0)) as server:
        tokens = {name: await server.hub.store.add_player(name, "bot") for name in ("busy", "sparring")}
        games = ("gomoku10",)
        accept = ChallengeFilter(games=frozenset(games))
        async with (
            BrainPool(GomokuBrain, workers=1) as busy_pool,
            BrainPool(RandomBrain, workers=1) as sparring_pool,
            BotClient(
                server.url,
                token=tokens["busy"],
                pool=busy_pool,
                settings=BotSettings(games=games, accept=accept, max_matches=6),
            ).running() as busy,
            BotClient(
                server.url,
                token=tokens["sparring"],
                pool=sparring_pool,
                settings=BotSettings(games=games, accept=accept, max_matches=6),
            ).running(),
        ):
            for number in range(6):
                await busy.challenge("sparring", "gomoku10", clock, color="first" if number % 2 else "second")
            records = await asyncio.wait_for(busy.wait_finished(6), 120)
        page = server.hub.metrics.render().decode()
    assert busy.fallbacks["random"] == 0
    for cause, count in busy.fallbacks.items():  # each one the server was told of, by player and cause
        assert f'arbiter_fallback_moves_total{{cause="{cause}",player="busy"}} {float(count)}' in page
    assert [r["reason"] for r in records if r["reason"] == "timeout"] == []
    sources = [d["source"] for r in records for d in r["decisions"]]
    assert sources and all(not s.startswith("fallback") or "random" not in s for s in sources)
    assert sum(r["winner"] == r["color"] for r in records) >= 5  # still gomoku's moves: it wins
