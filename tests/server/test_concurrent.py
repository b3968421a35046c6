"""Many matches at once: 50 concurrent random tic-tac-toe games to completion, and one bot playing many."""

from __future__ import annotations

import asyncio

from tests.support.wsclient import play_move, play_out, start_match


async def test_fifty_concurrent_matches(connect, server, store):
    clients = [await connect() for _ in range(100)]
    matches = await asyncio.gather(*(start_match(clients[2 * i], clients[2 * i + 1]) for i in range(50)))
    assert len(set(matches)) == 50 and len(server.hub.matches.live) == 50
    async with asyncio.timeout(60):
        ends = await asyncio.gather(
            *(
                play_out((clients[2 * i], clients[2 * i + 1]), match, "tictactoe", None, seed=i)
                for i, match in enumerate(matches)
            )
        )
    assert all(end["reason"] in ("line", "board_full") for end in ends)
    assert not server.hub.matches.live
    records = [await store.get_game(m) for m in matches]
    assert all(r is not None and r.result is not None for r in records)


async def test_one_bot_plays_many_matches(connect, store):
    bot = await connect(token=await store.add_player("multi", "bot"))
    opponents = [await connect() for _ in range(5)]
    matches = [await start_match(bot, opponent, "gomoku10") for opponent in opponents]
    for ply in (0, 2):  # the bot moves in every match in turn; each opponent answers in its own
        for i, match in enumerate(matches):
            assert (await play_move(bot, match, ply, [ply, i]))["type"] == "moved"
            assert (await play_move(opponents[i], match, ply + 1, [ply + 1, i]))["type"] == "moved"
    lobby = await bot.request("lobby")
    assert {p["name"]: p["playing"] for p in lobby["players"]}["multi"] == 5
