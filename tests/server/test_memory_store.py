"""MemoryStore keeps only token digests and, behind a real server, rates ladder games; everything
else it shares with every store is in tests/store/test_store_contract.py."""

from __future__ import annotations

import pytest

from arbiter.server import ServerConfig, run_server
from arbiter.server.config import LadderConfig
from arbiter.server.store.memory import MemoryStore, token_digest
from tests.support.wsclient import Client, play_move

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


async def test_only_token_digests_are_kept() -> None:
    store = MemoryStore()
    await store.open()
    token = await store.add_player("robo", "bot")
    assert token not in repr(store.__dict__) and token_digest(token) in store.__dict__["_by_digest"]
    assert (await store.authenticate(token)).name == "robo"  # type: ignore[union-attr]
    await store.close()


async def test_a_ladder_on_the_memory_store_rates_like_sqlite() -> None:
    """``--db :memory:``: the server computes ratings for this store too; nobody stays at 1500."""
    store = MemoryStore()
    await store.open()
    tokens = {name: await store.add_player(name, "bot") for name in ("alpha", "beta")}
    ladder = LadderConfig(window=1000.0, rematch_after_s=0.0, retry_s=0.05, seed=7)
    async with run_server(ServerConfig(port=0, ladder=ladder), store) as server:
        clients = {name: await Client.connect(server.url, token=token) for name, token in tokens.items()}
        for client in clients.values():
            assert (await client.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
        start = await clients["alpha"].expect("match_start")
        order = [p["name"] for p in start["players"]]
        for ply, move in enumerate(FIRST_WINS):
            assert (await play_move(clients[order[ply % 2]], start["match"], ply, move))["type"] == "moved"
        end = await clients["alpha"].expect("end", match=start["match"])
        winner, loser = order
        assert end["rating_changes"][winner] > 0 > end["rating_changes"][loser]
        board = await clients["alpha"].request("leaderboard", game="tictactoe")
        ratings = {r["player"]: r for r in board["ratings"]}
        expected = 1500 + end["rating_changes"][winner]
        assert ratings[winner]["rating"] == pytest.approx(expected, abs=0.1)  # the wire rounds to 0.1
        assert (ratings[winner]["wins"], ratings[loser]["losses"]) == (1, 1)
        for client in clients.values():
            await client.close()
