"""The lobby of every node: presence, seeks and live matches, as one list whichever node a client
asked.

Each node writes its own entries into its own Redis hashes (``keys.lobby_keys``) and announces each
change on the channel every node hears; every node hands the announcements to its own lobby
subscribers. A snapshot is the union of the live nodes' hashes. A player is listed by its home, or,
while it is away, by the node holding its matches; a node that stands in for a player connected
elsewhere (a proxy) lists nothing for it. When a node dies, one survivor removes its entries and
announces the removal of each that no live node lists by then.

A player's ``playing`` counts its live matches on every node: the shared ``PLAYING`` hash. A node
that changes a count there announces a recount of the player; the node listing it reads the count
again and, if it changed, announces its entry (so does a node after each entry it writes, since the
player may play elsewhere already).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgpack
from redis.exceptions import RedisError

from arbiter.protocol.codec import encode

from ..play.lobby import Lobby
from ..play.players import OnlinePlayer, Roster
from ..ranking.ladder import LiveMatchesOf
from .keys import DELETE_AND_ANNOUNCE, EVERY_NODE, NODES, REAP, lobby_keys
from .link import Link

log = logging.getLogger("arbiter.server.cluster")

REAP_LOCK_MS = 60_000


class ClusterLobby:
    def __init__(
        self,
        link: Link,
        redis: Any,
        *,
        lobby: Lobby,
        roster: Roster,
        live_matches_of: LiveMatchesOf,
    ) -> None:
        self.link = link
        self.redis = redis
        self.lobby = lobby  # this node's: its changes are relayed here, its snapshot gathered here
        self.roster = roster
        self.live_matches_of = live_matches_of  # each player's live matches on every node (None: unknown)
        self.players_key, self.seeks_key, self.matches_key = lobby_keys(link.node)
        self.started = False
        self._recounts: asyncio.Queue[str] = asyncio.Queue()  # names whose count to read again

    async def start(self) -> None:
        """Join with no entries (a node restarted under the same id leaves none behind)."""
        await self.redis.delete(self.players_key, self.seeks_key, self.matches_key)
        await self.redis.sadd(NODES, self.link.node)
        self.started = True

    async def count_again(self) -> None:
        """Read the counts of the players named for a recount, one batch at a time (one reader, so
        a later read never lands before an earlier one), and announce those that changed."""
        while True:
            names = {await self._recounts.get()}
            while not self._recounts.empty():
                names.add(self._recounts.get_nowait())
            try:
                counts = await self.live_matches_of(sorted(names))
                for name, count in (counts or {}).items():  # None: Redis cannot say (logged); read at the next change
                    player = self.roster.get(name)
                    if player is None or not self.lists(player):
                        continue
                    listed = player.playing
                    player.cluster_playing = count
                    if count != listed:
                        self.lobby.presence(player)
            except Exception:  # a bug: logged, and the next recount is read all the same
                log.exception("cluster lobby: recount failed", extra={"node": self.link.node})

    def recount(self, name: str) -> None:
        """The player's live matches changed on some node: read its count again if this node lists it."""
        player = self.roster.get(name)
        if player is not None and self.lists(player):
            self._recounts.put_nowait(name)

    def lists(self, player: OnlinePlayer) -> bool:
        """Whether this node lists the player: its home, or the node holding its matches while it is away."""
        return not self.link.is_proxy(player.session)

    async def write_again(self) -> None:
        """This node's entries, all of them, as the lobby has them now (after a Redis restart)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in self.roster:
                if not self.link.is_proxy(player.session):
                    pipe.hset(self.players_key, player.name, _pack(player.describe()))
            for seek in self.lobby.seeks():
                pipe.hset(self.seeks_key, seek["id"], _pack(seek))
            for match in self.lobby.matches():
                pipe.hset(self.matches_key, match["match"], _pack(match))
            pipe.sadd(NODES, self.link.node)
            await pipe.execute()

    # --- this node's changes --------------------------------------------------------------------
    def relay(self, message: dict[str, Any], player: OnlinePlayer | None) -> None:
        """Write a change of this node's lobby to its hashes and announce it to every node."""
        link = self.link
        kind = message["type"]
        envelope = msgpack.packb(["lobby", link.node, encode(message)], use_bin_type=True)
        if kind == "presence":
            assert player is not None
            if not self.lists(player):
                link.command("hdel", self.players_key, player.name)  # its home lists it
                return
            link.command("hset", self.players_key, player.name, _pack(message["player"]))
            self._recounts.put_nowait(player.name)  # it may play on other nodes (a new home, say)
        elif kind == "player_offline":
            link.command("eval", DELETE_AND_ANNOUNCE, 2, self.players_key, EVERY_NODE, message["name"], envelope)
            return
        elif kind == "seek_added":
            link.command("hset", self.seeks_key, message["seek"]["id"], _pack(message["seek"]))
        elif kind == "seek_removed":
            link.command("hdel", self.seeks_key, message["seek"])
        elif kind == "match_listed":
            link.command("hset", self.matches_key, message["match"]["match"], _pack(message["match"]))
        elif kind == "match_unlisted":
            link.command("hdel", self.matches_key, message["match"])
        link.command("publish", EVERY_NODE, envelope)

    def on_change(self, frame: bytes) -> None:
        """A change on any node (this one too): to this node's subscribers."""
        subscribers = self.lobby.subscribers
        for session in subscribers:
            session.send(frame)

    # --- the snapshot -----------------------------------------------------------------------------
    async def gather(self) -> dict[str, Any]:
        """Every live node's entries; this node's own if Redis cannot be read."""
        try:
            nodes = sorted(self.link.alive)  # as the last look (each heartbeat) and messages since saw them
            async with self.redis.pipeline(transaction=False) as pipe:
                for node in nodes:
                    for key in lobby_keys(node):
                        pipe.hgetall(key)
                hashes = await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("cluster lobby unavailable, listing this node only: %s", exc)
            return self.lobby.snapshot()
        players: dict[str, dict[str, Any]] = {}
        seeks: list[dict[str, Any]] = []
        matches: list[dict[str, Any]] = []
        for i in range(0, len(hashes), 3):
            for raw in hashes[i].values():
                entry = _unpack(raw)
                listed = players.get(entry["name"])
                if listed is None or (listed["away"] and not entry["away"]):  # its home's entry wins
                    players[entry["name"]] = entry
            seeks += [_unpack(raw) for raw in hashes[i + 1].values()]
            matches += [_unpack(raw) for raw in hashes[i + 2].values()]
        return {"type": "lobby_state", "players": list(players.values()), "seeks": seeks, "matches": matches}

    # --- dead nodes -------------------------------------------------------------------------------
    async def reap(self, alive: set[str]) -> None:
        """Remove the entries of listed nodes that died (one survivor per dead node does it)."""
        alive = set(alive)  # as it was when the look began
        redis = self.redis
        listed = {node.decode() for node in await redis.smembers(NODES)}
        for dead in listed - alive:
            if not await redis.set(f"arbiter:reap:{dead}", self.link.node, nx=True, px=REAP_LOCK_MS):
                continue
            for index, removal in enumerate((_player_offline, _seek_removed, _match_unlisted)):
                key = lobby_keys(dead)[index]
                fields = [field.decode() for field in await redis.hkeys(key)]
                argv: list[Any] = [EVERY_NODE]
                for field in fields:
                    message = removal(field)
                    argv += [field, msgpack.packb(["lobby", self.link.node, encode(message)], use_bin_type=True)]
                live_keys = [lobby_keys(node)[index] for node in sorted(alive)]
                await redis.eval(REAP, 1 + len(live_keys), key, *live_keys, *argv)
            await redis.srem(NODES, dead)
            log.warning("removed a dead node's lobby entries", extra={"dead": dead})


def _player_offline(name: str) -> dict[str, Any]:
    return {"type": "player_offline", "name": name}


def _seek_removed(seek: str) -> dict[str, Any]:
    return {"type": "seek_removed", "seek": seek, "reason": "offline"}


def _match_unlisted(match: str) -> dict[str, Any]:
    return {"type": "match_unlisted", "match": match, "result": None, "reason": "moved"}


def _pack(entry: dict[str, Any]) -> bytes:
    return msgpack.packb(entry, use_bin_type=True)


def _unpack(raw: bytes) -> dict[str, Any]:
    entry: dict[str, Any] = msgpack.unpackb(raw, raw=False)
    return entry
