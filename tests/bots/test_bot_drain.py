"""``arbiter bot`` on SIGTERM, as a real process against a real server: it takes no new challenge,
leaves the ladder, finishes its live games or resigns them at the drain deadline, and exits 0;
a second signal exits at once."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
from bot_process import BotProcess

from arbiter.bots.random_bot import random_move
from arbiter.engine import State, create_game
from arbiter.server import RunningServer, ServerConfig, run_server
from tests.support.wsclient import Client, play_move

pytestmark = pytest.mark.timeout(120)

CLOCK = {"initial_ms": 120_000, "increment_ms": 0}
BOT = "drain-bot"


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0)) as running:
        yield running


async def human_against_the_bot(server: RunningServer) -> tuple[Client, str, State]:
    """A registered human who challenged the bot, moved first, and saw the bot's reply: its turn again."""
    token = await server.hub.store.add_player("tester", "human")
    human = await Client.connect(server.url, token=token)
    created = await human.request("challenge", to=BOT, game="tictactoe", clock=CLOCK, color="first")
    assert created["type"] == "challenge_created", created
    match = (await human.expect("match_start"))["match"]
    state = create_game("tictactoe").new_state()
    rng = np.random.default_rng(3)
    for ply in (0, 1):
        if ply == 0:
            moved = await play_move(human, match, 0, state.game.encode_move(random_move(state, rng)))
        else:
            moved = await human.expect("moved", match=match, ply=1)
        assert moved["type"] == "moved", moved
        state.play(state.game.decode_move(moved["move"]))
    return human, match, state


async def test_sigterm_declines_leaves_the_ladder_resigns_at_the_deadline_and_exits_0(
    server: RunningServer, tmp_path: Path
) -> None:
    bot = await BotProcess.start(server, tmp_path, BOT, "--ladder", "--drain-timeout", "1")
    try:
        await bot.logged('"ladder_joined"')
        assert BOT in server.hub.ladder.queues["tictactoe"].waiting()
        human, match, _ = await human_against_the_bot(server)
        await human.request("subscribe")
        bot.process.send_signal(signal.SIGTERM)
        await bot.logged('"draining"')
        refused = await human.request("challenge", to=BOT, game="tictactoe", clock=CLOCK)
        await human.expect("challenge_closed", challenge=refused["challenge"]["id"], reason="declined")
        assert BOT not in server.hub.ladder.queues["tictactoe"].waiting()  # its leave came before its decline
        end = await human.expect("end", match=match, timeout=30)  # we never move again: resigned at 1 s
        assert end["reason"] == "resign" and end["winner"] == 0
        assert await bot.exit_code() == 0
        await human.expect("player_offline", name=BOT)  # it left cleanly, not away within a grace
        await human.close()
    finally:
        bot.kill()


async def test_sigterm_lets_a_live_game_finish_within_the_deadline(server: RunningServer, tmp_path: Path) -> None:
    bot = await BotProcess.start(server, tmp_path, BOT, "--drain-timeout", "60")
    try:
        await bot.logged('"connected"')
        human, match, state = await human_against_the_bot(server)
        bot.process.send_signal(signal.SIGTERM)
        await bot.logged('"draining"')
        rng = np.random.default_rng(5)
        while True:  # play the game out; the bot keeps answering
            moved = await play_move(human, match, state.ply, state.game.encode_move(random_move(state, rng)))
            state.play(state.game.decode_move(moved["move"]))
            if state.is_terminal:
                break
            reply = await human.expect("moved", match=match, ply=state.ply)
            state.play(state.game.decode_move(reply["move"]))
            if state.is_terminal:
                break
        end = await human.expect("end", match=match)
        assert end["reason"] in ("line", "board_full")
        assert await bot.exit_code() == 0  # well before the 60 s deadline
        await human.close()
    finally:
        bot.kill()


async def test_a_second_sigterm_exits_at_once(server: RunningServer, tmp_path: Path) -> None:
    bot = await BotProcess.start(server, tmp_path, BOT, "--drain-timeout", "60")
    try:
        await bot.logged('"connected"')
        human, match, _ = await human_against_the_bot(server)
        bot.process.send_signal(signal.SIGTERM)
        await bot.logged('"draining"')
        bot.process.send_signal(signal.SIGTERM)
        assert await bot.exit_code() == 0
        await human.expect("player_left", match=match, color=1)  # the match waits for a restarted bot
        await human.close()
    finally:
        bot.kill()
