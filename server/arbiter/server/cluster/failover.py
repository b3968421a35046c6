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

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import msgpack

from arbiter.protocol.codec import encode

from ..play.matches import Matches
from ..play.players import Identity, OnlinePlayer, Roster
from ..play.session import Session
from ..store.base import GameRecord, MoveRecord, Store
from . import keys
from .keys import BEATS, DELETE_IF_OURS, EVERY_NODE, MATCHES, node_channel
from .link import Link

log = logging.getLogger("arbiter.server.cluster")

ADOPT_LOCK_MS = 60_000  # one survivor adopts a dead node's match: the others see the lock


class Failover:
    def __init__(
        self,
        link: Link,
        redis: Any,
        *,
        matches: Matches,
        store: Store,
        roster: Roster,
        grace_s: float,
        start_grace: Callable[[OnlinePlayer], None],
        proxy: Callable[[str, Identity], Session],
        count_matches: Callable[[list[str], int], None],
    ) -> None:
        self.link = link
        self.redis = redis
        self.matches = matches
        self.store = store
        self.roster = roster
        self.grace_s = grace_s  # the reconnect grace: the failover's time up to it is given back
        self.start_grace = start_grace  # an adopted match's player who is away gets the grace (the hub's)
        self.proxy = proxy  # the session standing here for a player connected to another node
        self.count_matches = count_matches  # each player's live matches on every node change
        self.adopting: set[str] = set()  # matches being adopted: counted for their players already

    async def adopt_orphans(self, owners: dict[str, str], alive: set[str]) -> None:
        """Adopt the live matches (``owners``: match id → owner) of nodes not ``alive``."""
        for match_id, owner in owners.items():
            if owner != self.link.node and owner not in alive and match_id not in self.matches.live:
                await self._adopt(match_id, owner, alive)

    async def _adopt(self, match_id: str, dead: str, alive: set[str]) -> None:
        if not await self.redis.set(f"arbiter:adopt:{match_id}", self.link.node, nx=True, px=ADOPT_LOCK_MS):
            return  # another survivor takes it
        record = await self.store.get_game(match_id)
        if record is None or record.ended is not None:
            if await self.redis.eval(DELETE_IF_OURS, 1, MATCHES, match_id, dead):
                await self._gone_with(match_id, record)
            return
        journaled = await self._journaled(match_id, len(record.moves))
        record = replace(record, moves=record.moves + journaled)
        players = [await self._player_for(name, alive) for name in record.start.players]
        self.adopting.add(match_id)
        try:
            live = self.matches.adopt(record, (players[0], players[1]), charged_s=await self._charged(dead))
        finally:
            self.adopting.discard(match_id)
        for move in journaled:  # announced by the dead node, not yet stored by it
            self.store.record_move(match_id, move)
        self.link.publish(EVERY_NODE, ["adopted", self.link.node, match_id])
        log.warning("adopted a match of a dead node", extra={"node": self.link.node, "match": match_id, "dead": dead,
                                                              "ply": live.match.ply})  # fmt: skip
        for player in players:
            if player.session is not None:
                self.matches.player_returned(player)  # a full resync, through the player's home
            elif player.grace is None:
                self.start_grace(player)

    async def _journaled(self, match_id: str, stored: int) -> list[MoveRecord]:
        """The moves of ``match_id`` that its dead node announced after the ``stored`` ones."""
        moves: list[MoveRecord] = []
        for entry in await self.redis.lrange(keys.journal_key(match_id), 0, -1):
            ply, move, elapsed_ms, info = msgpack.unpackb(entry, raw=False)
            if ply == stored + len(moves):
                moves.append(MoveRecord(ply, move, elapsed_ms, info))
        return moves

    async def _gone_with(self, match_id: str, record: GameRecord | None) -> None:
        """A dead node's match that cannot go on: it ended before the node died (whose last
        messages may have died with it), or it started too late to be stored (so it is void). Its
        players hear its end, again perhaps, through their homes, and are free for the ladder."""
        names = (await self.redis.hget(keys.MATCH_PLAYERS, match_id) or b"").decode().split("\t")
        if record is not None:
            end = self.matches.stored_end(record)
        else:
            end = encode({"type": "end", "match": match_id, "result": None, "winner": None, "reason": "interrupted",
                          "clocks": [0, 0], "ply": 0, "rating_changes": {}})  # fmt: skip
            log.warning("a dead node's match was never stored: void", extra={"match": match_id, "players": names})
        self.link.command("hdel", keys.MATCH_PLAYERS, match_id)
        names = [name for name in names if name]
        for name in names:
            home = await self.link.find_home(name)
            if home is not None and await self.link.is_alive(home):
                self.link.publish(node_channel(home), ["out", self.link.node, name, end])
        # Free for the ladder only after their ends are on the way (one outbox, in order): a pairing
        # that sees a player free sends its match_start behind that end, never before it.
        self.count_matches(names, -1)

    async def _charged(self, dead: str) -> float:
        """Of the time since ``dead`` stopped (its last heartbeat), what the side to move pays: what
        exceeds the reconnect grace. (Its turn before that is given back whole: the store keeps each
        move's thinking time, not when the last turn began.)"""
        beat = await self.redis.hget(BEATS, dead)
        if beat is None:
            return 0.0
        stopped_s = max(0.0, time.time() - int(beat) / 1000)
        return max(0.0, stopped_s - self.grace_s)

    async def _player_for(self, name: str, alive: set[str]) -> OnlinePlayer:
        """The player as this node knows it: local, a proxy to its live home, or away."""
        player = self.roster.get(name)
        if player is not None:
            return player
        account = await self.store.get_player(name)
        identity = (
            Identity(name, account.kind, False, account.owner) if account is not None else Identity(name, "human", True)
        )
        home = await self.link.find_home(name)
        if home is not None and home != self.link.node and home in alive:
            session = self.proxy(home, identity)
            assert session.player is not None
            return session.player
        return self.roster.add(identity, None)
