"""The README's own-bot example (examples/minimal_bot.py) plays real games against a real server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from arbiter.engine import create_game
from arbiter.server import ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore
from tests.support.wsclient import Client, play_move

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "minimal_bot.py"


async def test_the_minimal_bot_accepts_and_plays_tictactoe_to_the_end() -> None:
    store = MemoryStore()
    async with run_server(ServerConfig(port=0, warm_engine=False), store) as server:
        token = await store.add_player("mybot", "bot")
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-u", str(EXAMPLE), server.url, token, stdout=asyncio.subprocess.PIPE
        )
        human = await Client.connect(server.url)
        try:
            async with asyncio.timeout(30):  # the bot's interpreter starting and saying hello
                while "mybot" not in {p["name"] for p in (await human.request("lobby"))["players"]}:
                    await asyncio.sleep(0.1)
            for color in ("first", "second"):
                created = await human.request(
                    "challenge", to="mybot", game="tictactoe", clock={"initial_ms": 30_000}, color=color
                )
                assert created["type"] == "challenge_created", created
                start = await human.expect("match_start")
                match, mine = start["match"], start["color"]
                # The human takes cells from the last one back, the bot the first empty one: whoever
                # moves first completes a row first.
                state = create_game("tictactoe").new_state()
                free = [[x, y] for y in range(3) for x in range(3)]
                while not state.is_terminal:
                    if state.ply % 2 == mine:
                        moved = await play_move(human, match, state.ply, free.pop())
                        assert moved["type"] == "moved", moved
                    else:
                        moved = await human.expect("moved", match=match, ply=state.ply)
                        free.remove(moved["move"])
                    state.play(state.game.decode_move(moved["move"]))
                end = await human.expect("end", match=match)
                assert end["reason"] == "line" and end["winner"] == 0, end
            assert not human.pending("error")
            # The bot prints each result when its own `end` arrives, which may be after ours.
            assert bot.stdout is not None
            async with asyncio.timeout(10):
                results = [(await bot.stdout.readline()).decode() for _ in range(2)]
            assert all(line.endswith("(line)\n") for line in results), results
        finally:
            await human.close()
            bot.terminate()
            await bot.wait()
