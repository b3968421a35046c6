"""MemoryStore: a real Store in dicts (tokens hashed, games with moves, results, crosstable)."""

from __future__ import annotations

import pytest

from arbiter.server.store.base import BadName, GameStart, MoveRecord, NameTaken, UnknownPlayer
from arbiter.server.store.memory import MemoryStore, token_digest


async def test_players_and_tokens():
    store = MemoryStore()
    await store.open()
    token = await store.add_player("robo", "bot")
    assert len(token) >= 40 and token_digest(token) not in {token.encode()}
    assert token not in repr(store.__dict__)  # only the digest is kept
    assert (await store.authenticate(token)).name == "robo"
    assert await store.authenticate(token + "x") is None
    with pytest.raises(NameTaken):
        await store.add_player("robo", "human")
    with pytest.raises(BadName):
        await store.add_player("guest-1234", "human")
    await store.revoke_player("robo")
    assert await store.authenticate(token) is None
    assert (await store.get_player("robo")).revoked
    with pytest.raises(UnknownPlayer):
        await store.revoke_player("nobody")
    fresh = await store.reissue_token("robo")
    assert (await store.authenticate(fresh)).name == "robo"
    assert await store.authenticate(token) is None
    with pytest.raises(UnknownPlayer):
        await store.reissue_token("nobody")
    await store.close()


async def test_games_results_and_crosstable():
    store = MemoryStore()
    for i, result in enumerate(["1-0", "1/2-1/2", None]):
        start = GameStart(f"g{i}", "tictactoe", {}, ("a", "b"), {"initial_ms": 1000}, True, 0.0)
        await store.start_game(start)
        store.record_move(f"g{i}", MoveRecord(0, [1, 1], 12))
        assert await store.finish_game(f"g{i}", result, "line" if result else "abort", 1.0) == {}
    await store.start_game(GameStart("live", "tictactoe", {}, ("a", "c"), {}, False, 0.0))
    assert [g.start.match_id for g in await store.interrupted_games()] == ["live"]
    record = await store.get_game("g0")
    assert record.moves == [MoveRecord(0, [1, 1], 12)] and record.result == "1-0"
    assert await store.crosstable("tictactoe") == {"a": {"b": [1, 1, 0]}, "b": {"a": [0, 1, 1]}}
    rating = await store.get_rating("a", "tictactoe")
    assert (rating.games, rating.wins, rating.draws, rating.losses) == (2, 1, 1, 0)
    assert len(await store.list_games(player="c")) == 1 and len(await store.list_games(limit=None)) == 4
