"""A node reads the players' live-match counts after its own queued changes have reached Redis: the
ladder's next pass must see the matches its last pass started (CI once paired a one-at-a-time bot
twice because the read overtook the count it had just queued)."""

from __future__ import annotations

import redis

from arbiter.server.cluster import Cluster
from arbiter.server.config import ServerConfig
from arbiter.server.hub import Hub
from arbiter.server.store.memory import MemoryStore


async def test_a_count_read_sees_every_change_this_node_queued_before_it(redis_server) -> None:
    redis.Redis.from_url(redis_server.url).flushall()
    config = ServerConfig(port=0, cluster_url=redis_server.url, node_id="counts")
    store = MemoryStore()
    await store.open()
    hub = Hub(config, store)
    node = Cluster(redis_server.url, hub, node="counts")
    await node.start()
    try:
        for round_ in range(1, 51):  # each read right after a queued change, with no await between
            node.count_matches(["alice", "bob"], 1)
            assert await node.live_matches_of(["alice", "bob", "carol"]) == {"alice": round_, "bob": round_, "carol": 0}
        node.count_matches(["alice"], -50)
        assert await node.live_matches_of(["alice"]) == {"alice": 0}
    finally:
        await node.stop()
        await store.close()
