"""Several server nodes as one server, over Redis: ``arbiter serve --cluster redis://…``.

Each match lives on one node, its *owner*, which runs its clock and writes it to the shared store
(PostgreSQL). A client talks only to the node it connected to, its *home*. When a request is for
another node — a move, a resignation or a spectate of a match owned elsewhere, a challenge to a
player whose home is elsewhere — the home forwards the client's message over Redis to that node,
where a *proxy session* stands for the player: an ordinary ``Session`` whose transport publishes
the frames back to the home, which hands them to the client's socket untouched. So every feature
works across nodes without knowing nodes exist: the owner's matches, challenges and clocks see a
player like any other.

Redis holds the directory — which node is each player's home (``arbiter:players``), which node
owns each live match (``arbiter:matches``), which nodes are alive (``arbiter:alive:NODE``, kept
fresh by a heartbeat) — and carries the messages: one channel per node (forwarded requests and the
frames going back) and one for every node (a player arrived somewhere, or left). When a player
connects to a node, every other node hands over: a local connection of the same player is closed
as replaced, and its matches resync to the player through the new home.

Failover: every node watches the directory; a live match whose owner's heartbeat has expired is
adopted by one survivor (a Redis lock with expiry decides which), which replays it from the store
— every stored move with the time it took, so both clocks are as they were, and the time the
failover took is not charged — and becomes its owner. Its players resync through their homes;
a player whose home died has the reconnect grace to connect to any node and resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import msgpack
import redis.asyncio as redis_client
from redis.exceptions import RedisError

from arbiter.protocol.codec import encode
from arbiter.protocol.errors import CloseCode
from arbiter.protocol.messages import Challenge, MatchRequest, Request

from .hub import Hub
from .players import Identity, OnlinePlayer
from .session import Handler, Session

log = logging.getLogger("arbiter.server.cluster")

PLAYERS = "arbiter:players"  # hash: player name → its home node
MATCHES = "arbiter:matches"  # hash: live match id → its owner node
EVERY_NODE = "arbiter:nodes"  # channel every node listens on
HEARTBEAT_S = 1.0
ALIVE_MS = 5_000  # a node whose heartbeat is older than this is dead
ADOPT_LOCK_MS = 60_000  # one survivor adopts a dead node's match: the others see the lock
# Delete a hash field only if it still holds our value (a later home or owner keeps its entry).
_DELETE_IF_OURS = (
    "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0"
)


def new_node_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"


def node_channel(node: str) -> str:
    return f"arbiter:node:{node}"


class RemoteTransport:
    """A proxy session's transport: frames go over Redis to the player's home node."""

    __slots__ = ("cluster", "home", "name")

    def __init__(self, cluster: Cluster, home: str, name: str) -> None:
        self.cluster = cluster
        self.home = home
        self.name = name

    def send(self, data: bytes) -> None:
        self.cluster.publish(node_channel(self.home), ["out", self.cluster.node, self.name, data])

    def close(self, code: int, reason: str) -> None:
        if code == CloseCode.REPLACED:
            return  # the player connected elsewhere: its home closes its own connection
        self.cluster.publish(node_channel(self.home), ["close", self.cluster.node, self.name, int(code), reason])

    @property
    def latency(self) -> float:
        return 0.0  # the home measures the socket; the owner credits no lag it cannot see


def home_of(session: object) -> str | None:
    """The home node of a proxy session; None for a local connection."""
    transport = getattr(session, "transport", None)
    return transport.home if isinstance(transport, RemoteTransport) else None


class Cluster:
    """This node's link to the others: the directory, the routing of requests, the proxies."""

    def __init__(self, url: str, hub: Hub, *, node: str | None = None) -> None:
        self.url = url
        self.hub = hub
        self.node = node or new_node_id()
        # redis-py's async client is typed as sync-or-async; here every call is awaited.
        self.redis: Any = redis_client.Redis.from_url(url)
        # Redis commands in the order they must run: messages, and directory writes that must land
        # before the messages after them (a match's owner before its match_start goes out).
        self._outbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        # Owners of remote matches, learned from the directory; the oldest are forgotten past a bound.
        self._match_owner: OrderedDict[str, str] = OrderedDict()
        self._pubsub: Any = None

    # --- life cycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Join: heartbeat, subscribe, and route the hub's requests through the cluster."""
        try:
            await self.redis.ping()
            self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            await self._pubsub.subscribe(node_channel(self.node), EVERY_NODE)
            await self._beat()
        except (RedisError, OSError) as exc:
            raise ClusterError(f"cannot join the cluster at {self._where}: {exc}") from None
        loop = asyncio.get_running_loop()
        self._sender = loop.create_task(self._send())
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._heartbeat()),
                       loop.create_task(self._watch_owners())]  # fmt: skip
        for message_class, handler in list(self.hub.handlers.items()):
            if issubclass(message_class, MatchRequest):
                self.hub.register(message_class, self._routed_by_match(handler))
        self.hub.register(Challenge, self._routed_by_target(self.hub.handlers[Challenge]))
        self.hub.peers = self
        self.hub.matches.live_listeners.append(self._match_live)
        self.hub.matches.end_listeners.append(self._match_ended)
        self.hub.node = self.node
        log.info("joined the cluster", extra={"node": self.node, "cluster": self._where})

    async def stop(self) -> None:
        """Leave: the queued messages go out, then no heartbeat and no more messages."""
        for task in [*self._tasks, self._sender]:
            task.cancel()
        await self._flush_outbox()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(f"arbiter:alive:{self.node}")
            if self._pubsub is not None:
                await self._pubsub.aclose()
        await self.redis.aclose()

    @property
    def _where(self) -> str:
        kwargs = self.redis.connection_pool.connection_kwargs
        return f"redis://{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"

    async def live_nodes(self) -> set[str]:
        keys = [key.decode() async for key in self.redis.scan_iter("arbiter:alive:*")]
        return {key.removeprefix("arbiter:alive:") for key in keys}

    async def owned_elsewhere(self, match_ids: list[str]) -> set[str]:
        """Of ``match_ids``, those a live node other than this one owns (not for the restart rule)."""
        if not match_ids:
            return set()
        owners = await self.redis.hmget(MATCHES, match_ids)
        alive = await self.live_nodes()
        return {mid for mid, owner in zip(match_ids, owners, strict=True)
                if owner is not None and owner.decode() != self.node and owner.decode() in alive}  # fmt: skip

    # --- the hub's hooks (Peers) --------------------------------------------------------------
    async def arrived(self, player: OnlinePlayer) -> None:
        """A player connected here: this is its home now (written before it is welcomed, so a
        challenge to it from any node finds it); the other nodes hand over."""
        try:
            await self.redis.hset(PLAYERS, player.name, self.node)
        except (RedisError, OSError) as exc:
            log.error("cluster directory update failed: %s", exc, extra={"node": self.node})
        self.publish(EVERY_NODE, ["arrived", self.node, player.name])

    def _match_live(self, live: Any) -> None:
        """A match goes live here: its owner is written before any message about it is sent."""
        self._outbox.put_nowait(("hset", MATCHES, live.id, self.node))

    def left(self, player: OnlinePlayer, session: Session) -> None:
        """A player's connection here is gone (not replaced): the owners of its matches start its grace."""
        if home_of(session) is not None:
            return  # a proxy: the player's home tells the others
        self._outbox.put_nowait(("eval", _DELETE_IF_OURS, 1, PLAYERS, player.name, self.node))
        self.publish(EVERY_NODE, ["left", self.node, player.name])

    def _match_ended(self, live: Any, result: Any, changes: Any) -> None:
        """A match of ours ended (and its end went out): it leaves the directory."""
        self._outbox.put_nowait(("eval", _DELETE_IF_OURS, 1, MATCHES, live.id, self.node))

    # --- routing requests ---------------------------------------------------------------------
    def _routed_by_match(self, local: Handler) -> Handler:
        def route(session: Session, msg: MatchRequest) -> Awaitable[None] | None:
            if msg.match in self.hub.matches.live or home_of(session) is not None:
                return local(session, msg)  # ours, or already forwarded to us: never forwarded twice
            owner = self._match_owner.get(msg.match)
            if owner is not None:
                self._match_owner.move_to_end(msg.match)
                self._forward(owner, session, msg)
                return None
            return self._look_up_then(session, msg, local, self._find_owner(msg.match))

        return route

    def _routed_by_target(self, local: Handler) -> Handler:
        def route(session: Session, msg: Challenge) -> Awaitable[None] | None:
            if msg.to is None or home_of(session) is not None or self._connected_here(msg.to):
                return local(session, msg)  # a seek, a request forwarded to us, or a player of ours
            return self._look_up_then(session, msg, local, self._find_home(msg.to))

        return route

    def _connected_here(self, name: str) -> bool:
        player = self.hub.roster.get(name)
        return player is not None and player.session is not None and home_of(player.session) is None

    async def _look_up_then(
        self, session: Session, msg: Request, local: Handler, lookup: Awaitable[str | None]
    ) -> None:
        try:
            node = await lookup
        except (RedisError, OSError) as exc:
            log.warning("cluster directory unavailable: %s", exc, extra={"node": self.node})
            node = None
        if node is not None and node != self.node:
            self._forward(node, session, msg)
            return
        pending = local(session, msg)
        if pending is not None:
            await pending

    async def _find_owner(self, match_id: str) -> str | None:
        owner = await self.redis.hget(MATCHES, match_id)
        if owner is None:
            return None
        self._learn_owner(match_id, owner.decode())
        return owner.decode()

    def _learn_owner(self, match_id: str, node: str) -> None:
        self._match_owner[match_id] = node
        self._match_owner.move_to_end(match_id)
        if len(self._match_owner) > self.hub.config.finished_ids_kept:
            self._match_owner.popitem(last=False)

    async def _find_home(self, name: str) -> str | None:
        home = await self.redis.hget(PLAYERS, name)
        return None if home is None else home.decode()

    def _forward(self, node: str, session: Session, msg: Request) -> None:
        player = session.player
        assert player is not None
        identity = player.identity
        self.publish(node_channel(node), ["req", self.node, identity.name, identity.kind, identity.guest,
                                          encode(msg.wire())])  # fmt: skip

    # --- messages from other nodes --------------------------------------------------------------
    def _on_message(self, envelope: list[Any]) -> None:
        kind, sender = envelope[0], envelope[1]
        if sender == self.node and kind in ("arrived", "left"):
            return
        handler = self._handlers.get(kind)
        if handler is None:
            log.warning("unknown cluster message %r from %s", kind, sender, extra={"node": self.node})
            return
        handler(self, *envelope[1:])

    def _on_request(self, home: str, name: str, kind: str, guest: bool, frame: bytes) -> None:
        session = self._proxy(home, Identity(name, kind, guest))
        session.receive(frame)

    def _on_out(self, owner: str, name: str, data: bytes) -> None:
        player = self.hub.roster.get(name)
        if player is not None and player.session is not None and home_of(player.session) is None:
            player.session.send(data)

    def _on_close(self, owner: str, name: str, code: int, reason: str) -> None:
        player = self.hub.roster.get(name)
        if player is not None and isinstance(player.session, Session) and home_of(player.session) is None:
            player.session.close(CloseCode(code), reason)

    def _on_arrived(self, home: str, name: str) -> None:
        """The player connected at ``home``: close its connection here, and resync its matches here
        to it through its new home."""
        player = self.hub.roster.get(name)
        if player is None:
            return
        previous = player.session
        if previous is not None and home_of(previous) is None:
            previous.close_replaced()  # one connection per player in the whole cluster
        if player.matches or home_of(previous) is not None:
            self._proxy(home, player.identity)

    def _on_left(self, home: str, name: str) -> None:
        player = self.hub.roster.get(name)
        if player is not None and isinstance(player.session, Session) and home_of(player.session) == home:
            self.hub.disconnected(player.session)

    def _on_adopted(self, owner: str, match_id: str) -> None:
        if match_id in self._match_owner:  # only the owners this node uses: the others it looks up
            self._learn_owner(match_id, owner)

    _handlers: ClassVar[dict[str, Callable[..., None]]] = {
        "adopted": _on_adopted,
        "req": _on_request,
        "out": _on_out,
        "close": _on_close,
        "arrived": _on_arrived,
        "left": _on_left,
    }

    def _proxy(self, home: str, identity: Identity) -> Session:
        """The session that stands here for a player whose home is ``home`` (made, or re-pointed)."""
        player = self.hub.roster.get(identity.name)
        if player is not None and home_of(player.session) == home:
            return player.session  # type: ignore[return-value]
        if player is None:
            player = self.hub.roster.add(identity, None)
        session = Session(self.hub, RemoteTransport(self, home, identity.name))
        self.hub.attach(session, player)
        return session

    # --- Redis I/O ----------------------------------------------------------------------------
    def publish(self, channel: str, envelope: list[Any]) -> None:
        """Queue a message; one task sends them in order (a pipeline per burst)."""
        self._outbox.put_nowait(("publish", channel, msgpack.packb(envelope, use_bin_type=True)))

    async def _send(self) -> None:
        while True:
            first = await self._outbox.get()
            await self._publish_burst(first)

    async def _publish_burst(self, first: tuple[Any, ...]) -> None:
        burst = [first]
        while not self._outbox.empty() and len(burst) < 1000:
            burst.append(self._outbox.get_nowait())
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for command, *args in burst:
                    getattr(pipe, command)(*args)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            log.error("cluster: %d messages not sent: %s", len(burst), exc, extra={"node": self.node})

    async def _flush_outbox(self) -> None:
        while not self._outbox.empty():
            await self._publish_burst(self._outbox.get_nowait())

    async def _listen(self) -> None:
        while True:
            try:
                async for message in self._pubsub.listen():
                    if message.get("type") == "message":
                        try:
                            self._on_message(msgpack.unpackb(message["data"], raw=False))
                        except Exception:
                            log.exception("cluster message failed", extra={"node": self.node})
            except (RedisError, OSError) as exc:
                log.error("cluster: lost Redis (%s); retrying", exc, extra={"node": self.node})
                await asyncio.sleep(HEARTBEAT_S)

    async def _beat(self) -> None:
        await self.redis.set(f"arbiter:alive:{self.node}", "1", px=ALIVE_MS)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                await self._beat()
            except (RedisError, OSError) as exc:
                log.error("cluster heartbeat failed: %s", exc, extra={"node": self.node})

    # --- failover -----------------------------------------------------------------------------
    async def _watch_owners(self) -> None:
        """Adopt the live matches of nodes whose heartbeat stopped; players whose home stopped are away."""
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                owners = {k.decode(): v.decode() for k, v in (await self.redis.hgetall(MATCHES)).items()}
                alive = await self.live_nodes()
                for player in self.hub.roster:
                    home = home_of(player.session)
                    if home is not None and home not in alive:
                        self.hub.disconnected(player.session)  # type: ignore[arg-type]
                for match_id, owner in owners.items():
                    if owner != self.node and owner not in alive and match_id not in self.hub.matches.live:
                        await self._adopt(match_id, owner, alive)
            except (RedisError, OSError) as exc:
                log.error("cluster: cannot watch for dead nodes: %s", exc, extra={"node": self.node})
            except Exception:
                log.exception("cluster: failover failed", extra={"node": self.node})

    async def _adopt(self, match_id: str, dead: str, alive: set[str]) -> None:
        if not await self.redis.set(f"arbiter:adopt:{match_id}", self.node, nx=True, px=ADOPT_LOCK_MS):
            return  # another survivor takes it
        record = await self.hub.store.get_game(match_id)
        if record is None or record.ended is not None:
            await self.redis.eval(_DELETE_IF_OURS, 1, MATCHES, match_id, dead)
            return
        players = [await self._player_for(name, alive) for name in record.start.players]
        live = self.hub.matches.adopt(record, (players[0], players[1]))
        self.publish(EVERY_NODE, ["adopted", self.node, match_id])
        log.warning("adopted a match of a dead node", extra={"node": self.node, "match": match_id, "dead": dead,
                                                              "ply": live.match.ply})  # fmt: skip
        for player in players:
            if player.session is not None:
                self.hub.matches.player_returned(player)  # a full resync, through the player's home
            elif player.grace is None:
                self.hub.start_grace(player)

    async def _player_for(self, name: str, alive: set[str]) -> OnlinePlayer:
        """The player as this node knows it: local, a proxy to its live home, or away."""
        player = self.hub.roster.get(name)
        if player is not None:
            return player
        account = await self.hub.store.get_player(name)
        identity = Identity(name, account.kind, False) if account is not None else Identity(name, "human", True)
        home = await self._find_home(name)
        if home is not None and home != self.node and home in alive:
            session = self._proxy(home, identity)
            assert session.player is not None
            return session.player
        return self.hub.roster.add(identity, None)


class ClusterError(RuntimeError):
    """This node cannot join the cluster (Redis unreachable, refused)."""
