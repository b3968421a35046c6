"""Failover: a live match whose node died goes on on a survivor.

Every node watches the directory. A live match whose owner's heartbeat has expired is adopted by
one survivor (a Redis lock with expiry decides which), which replays it from the store — every
stored move with the time it took, and the moves the dead node announced but had not stored yet
(its journal in Redis), so both clocks are as they were — and becomes its owner; the time the
failover took is credited to the side to move, up to the reconnect grace. Its players resync
through their homes; a player whose home died has the reconnect grace to connect to any node and
resume. A match that cannot go on (it had ended, or was never stored) is announced ended to its
players instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import msgpack
from redis.exceptions import RedisError

from arbiter.protocol.codec import encode

from ..players import Identity, OnlinePlayer
from ..store.base import GameRecord, MoveRecord
from . import keys
from .keys import BEATS, DELETE_IF_OURS, EVERY_NODE, MATCHES, node_channel
from .proxy import home_of

if TYPE_CHECKING:
    from .node import Cluster

log = logging.getLogger("arbiter.server.cluster")

ADOPT_LOCK_MS = 60_000  # one survivor adopts a dead node's match: the others see the lock


class Failover:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.adopting: set[str] = set()  # matches being adopted: counted for their players already
        self.look_now = asyncio.Event()  # a node left: look for its matches without waiting

    async def watch(self) -> None:
        """Adopt the live matches of nodes whose heartbeat stopped; players whose home stopped are away."""
        cluster = self.cluster
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(cluster.heartbeat_s):
                    await self.look_now.wait()
            self.look_now.clear()
            try:
                owners = {k.decode(): v.decode() for k, v in (await cluster.redis.hgetall(MATCHES)).items()}
                alive = await cluster.look_for_live_nodes()
                await cluster.lobby.reap(alive)
                for player in cluster.hub.roster:
                    home = home_of(player.session)
                    if home is not None and home not in alive:
                        cluster.hub.disconnected(player.session)  # type: ignore[arg-type]
                for match_id, owner in owners.items():
                    if owner != cluster.node and owner not in alive and match_id not in cluster.hub.matches.live:
                        await self._adopt(match_id, owner, alive)
            except (RedisError, OSError) as exc:
                log.error("cluster: cannot watch for dead nodes: %s", exc, extra={"node": cluster.node})
            except Exception:
                log.exception("cluster: failover failed", extra={"node": cluster.node})

    async def _adopt(self, match_id: str, dead: str, alive: set[str]) -> None:
        cluster = self.cluster
        if not await cluster.redis.set(f"arbiter:adopt:{match_id}", cluster.node, nx=True, px=ADOPT_LOCK_MS):
            return  # another survivor takes it
        record = await cluster.hub.store.get_game(match_id)
        if record is None or record.ended is not None:
            if await cluster.redis.eval(DELETE_IF_OURS, 1, MATCHES, match_id, dead):
                await self._gone_with(match_id, record)
            return
        journaled = await self._journaled(match_id, len(record.moves))
        record = replace(record, moves=record.moves + journaled)
        players = [await self._player_for(name, alive) for name in record.start.players]
        self.adopting.add(match_id)
        try:
            live = cluster.hub.matches.adopt(record, (players[0], players[1]), charged_s=await self._charged(dead))
        finally:
            self.adopting.discard(match_id)
        for move in journaled:  # announced by the dead node, not yet stored by it
            cluster.hub.store.record_move(match_id, move)
        cluster.publish(EVERY_NODE, ["adopted", cluster.node, match_id])
        log.warning("adopted a match of a dead node", extra={"node": cluster.node, "match": match_id, "dead": dead,
                                                              "ply": live.match.ply})  # fmt: skip
        for player in players:
            if player.session is not None:
                cluster.hub.matches.player_returned(player)  # a full resync, through the player's home
            elif player.grace is None:
                cluster.hub.start_grace(player)

    async def _journaled(self, match_id: str, stored: int) -> list[MoveRecord]:
        """The moves of ``match_id`` that its dead node announced after the ``stored`` ones."""
        cluster = self.cluster
        moves: list[MoveRecord] = []
        for entry in await cluster.redis.lrange(keys.journal_key(match_id), 0, -1):
            ply, move, elapsed_ms, info = msgpack.unpackb(entry, raw=False)
            if ply == stored + len(moves):
                moves.append(MoveRecord(ply, move, elapsed_ms, info))
        return moves

    async def _gone_with(self, match_id: str, record: GameRecord | None) -> None:
        """A dead node's match that cannot go on: it ended before the node died (whose last
        messages may have died with it), or it started too late to be stored (so it is void). Its
        players hear its end, again perhaps, through their homes, and are free for the ladder."""
        cluster = self.cluster
        names = (await cluster.redis.hget(keys.MATCH_PLAYERS, match_id) or b"").decode().split("\t")
        if record is not None:
            end = cluster.hub.matches.stored_end(record)
        else:
            end = encode({"type": "end", "match": match_id, "result": None, "winner": None, "reason": "interrupted",
                          "clocks": [0, 0], "ply": 0, "rating_changes": {}})  # fmt: skip
            log.warning("a dead node's match was never stored: void", extra={"match": match_id, "players": names})
        cluster.command("hdel", keys.MATCH_PLAYERS, match_id)
        names = [name for name in names if name]
        for name in names:
            home = await cluster.find_home(name)
            if home is not None and await cluster.is_alive(home):
                cluster.publish(node_channel(home), ["out", cluster.node, name, end])
        # Free for the ladder only after their ends are on the way (one outbox, in order): a pairing
        # that sees a player free sends its match_start behind that end, never before it.
        cluster.count_matches(names, -1)

    async def _charged(self, dead: str) -> float:
        """Of the time since ``dead`` stopped (its last heartbeat), what the side to move pays: what
        exceeds the reconnect grace. (Its turn before that is given back whole: the store keeps each
        move's thinking time, not when the last turn began.)"""
        cluster = self.cluster
        beat = await cluster.redis.hget(BEATS, dead)
        if beat is None:
            return 0.0
        stopped_s = max(0.0, time.time() - int(beat) / 1000)
        return max(0.0, stopped_s - cluster.hub.config.reconnect_grace_s)

    async def _player_for(self, name: str, alive: set[str]) -> OnlinePlayer:
        """The player as this node knows it: local, a proxy to its live home, or away."""
        cluster = self.cluster
        player = cluster.hub.roster.get(name)
        if player is not None:
            return player
        account = await cluster.hub.store.get_player(name)
        identity = (
            Identity(name, account.kind, False, account.owner) if account is not None else Identity(name, "human", True)
        )
        home = await cluster.find_home(name)
        if home is not None and home != cluster.node and home in alive:
            session = cluster.proxy(home, identity)
            assert session.player is not None
            return session.player
        return cluster.hub.roster.add(identity, None)
