"""MemoryStore keeps only token digests; everything else it shares with every store is in
tests/store/test_store_contract.py."""

from __future__ import annotations

from arbiter.server.store.memory import MemoryStore, token_digest


async def test_only_token_digests_are_kept() -> None:
    store = MemoryStore()
    await store.open()
    token = await store.add_player("robo", "bot")
    assert token not in repr(store.__dict__) and token_digest(token) in store.__dict__["_by_digest"]
    assert (await store.authenticate(token)).name == "robo"  # type: ignore[union-attr]
    await store.close()
