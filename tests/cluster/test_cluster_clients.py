"""Clients of a cluster: a bot given every node's address moves to another node when its own
leaves, and finishes its game there."""

from __future__ import annotations

import asyncio
import random
import sys

from arbiter.engine import create_game
from arbiter.server.store.postgresql import PostgresStore
from tests.support.wsclient import play_move, random_move


async def test_a_bot_with_every_node_s_address_follows_its_match_when_its_node_leaves(
    cluster, connect, postgres_url: str
) -> None:
    nodes, tokens = cluster
    store = PostgresStore(postgres_url)
    await store.open()
    token = await store.add_player("botty", "bot")
    servers = ",".join(nodes[name].url for name in ("n2", "n3"))
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "bot", "random", "--server", servers, "--token", token,
        "--games", "gomoku", "--workers", "1",
    )  # fmt: skip
    try:
        alice = await connect(nodes["n1"], token=tokens["alice"])
        async with asyncio.timeout(60):  # the bot's interpreter starting and saying hello
            while "botty" not in {p["name"] for p in (await alice.request("lobby"))["players"]}:
                await asyncio.sleep(0.1)
        created = await alice.request("challenge", to="botty", game="gomoku", color="first",
                                      clock={"initial_ms": 120_000})  # fmt: skip
        assert created["type"] == "challenge_created", created
        match = (await alice.expect("match_start", timeout=20))["match"]  # lives on n2, the bot's node

        game = create_game("gomoku")
        state, rng, handed_over = game.new_state(), random.Random(3), False
        while not state.is_terminal:
            if state.ply == 4 and not handed_over:  # the bot's node leaves mid-game
                nodes["n2"].process.terminate()
                assert await nodes["n2"].process.wait() == 0
                resync = await alice.expect("match_state", match=match, timeout=20)
                assert len(resync["moves"]) == state.ply
                handed_over = True
            if state.to_move == 0:
                moved = await play_move(alice, match, state.ply, random_move(state, rng))
            else:
                moved = await alice.expect("moved", match=match, ply=state.ply, timeout=20)
            assert moved["type"] == "moved", moved
            state.play(game.decode_move(moved["move"]))
        end = await alice.expect("end", match=match)
        assert end["reason"] == state.outcome.reason and not alice.pending("error")
        record = await store.get_game(match)
        assert record is not None and len(record.moves) == state.ply
        assert bot.returncode is None  # still playing, now on n3
    finally:
        bot.terminate()
        await bot.wait()
        await store.close()
