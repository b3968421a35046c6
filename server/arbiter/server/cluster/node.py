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
as replaced, and its matches resync to the player through the new home. A match's end sent through
a proxy is kept by the owner until the home confirms that the client read it (a pong to a ping the
home sends behind it: ``confirm``/``confirmed``), so a socket dying as the match ends loses nothing.

The lobby (``lobby.py``) and the ladder (``ladder.py``) are every node's: each node lists its own
players, seeks and matches in Redis and announces changes to all; one node at a time pairs the
ladder. Open challenges and seeks are in the directory too, so an accept reaches the node holding
the seek.

A live match whose owner died goes on on a survivor (``failover.py``). SIGTERM hands a node's
matches over the same way, without waiting for a heartbeat to expire (``hand_over``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import secrets
import socket
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import msgpack
import redis.asyncio as redis_client
from redis.exceptions import RedisError

from arbiter.protocol.codec import encode
from arbiter.protocol.errors import CloseCode, ErrorCode, ProtocolError
from arbiter.protocol.ladder import LadderJoin, LadderLeave
from arbiter.protocol.messages import Accept, Cancel, Challenge, Decline, MatchRequest, Ping, Request
from arbiter.protocol.move_frames import MoveFrame

from ..hub import Hub
from ..play.players import Connection, Identity, OnlinePlayer
from ..play.session import Handler, Session
from ..store.base import MoveRecord
from . import keys
from .failover import Failover
from .keys import (
    BEATS,
    CHALLENGES,
    DELETE_IF_OURS,
    EVERY_NODE,
    MATCHES,
    NODES,
    PLAYERS,
    PLAYING,
    alive_key,
    node_channel,
)
from .ladder import LadderLease
from .lobby import ClusterLobby
from .proxy import RemoteTransport, home_of

log = logging.getLogger("arbiter.server.cluster")

HEARTBEAT_S = 1.0
ALIVE_MS = 5_000  # a node whose heartbeat is older than this is dead
OUTBOX_WAIT_S = 5.0  # a read waits this long at most for the commands queued before it


def new_node_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(2)}"


def _profile(player: OnlinePlayer) -> dict[str, Any]:
    """What a player's hello told its home, which the node standing in for it needs (the ladder's
    capacity), and a bot's owner (whose ban covers it, and who may not play it rated)."""
    return {"games": player.games, "levels": player.levels, "capacity": player.capacity,
            "owner": player.identity.owner, "features": sorted(player.features)}  # fmt: skip


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
        self._sender: asyncio.Task[None] | None = None  # the one task that sends the outbox
        self._tasks: list[asyncio.Task[None]] = []
        # Owners of remote matches, learned from the directory; the oldest are forgotten past a bound.
        self._match_owner: OrderedDict[str, str] = OrderedDict()
        self._pubsub: Any = None
        self.heartbeat_s = HEARTBEAT_S
        # When each node was last seen alive (its heartbeat key, or a message from it), loop time. A
        # node is dead once unseen for ALIVE_MS: an empty Redis after a restart kills nobody.
        self._seen: dict[str, float] = {}
        self._gone: set[str] = set()  # nodes that said they were leaving
        self.alive: set[str] = {self.node}  # the nodes seen alive lately
        # Ends sent through a proxy that its home has not yet confirmed its client read: id → (player, callback).
        self._confirming: dict[int, tuple[str, Callable[[], None]]] = {}
        self._confirm_ids = itertools.count()
        self._look_now = asyncio.Event()  # a node left: look for its matches without waiting
        # The parts, each given what it uses: this link (link.py), Redis, and the hub's own parts.
        self.lobby = ClusterLobby(self, self.redis, lobby=hub.lobby, roster=hub.roster,
                                  live_matches_of=self.live_matches_of)  # fmt: skip
        self.ladder = LadderLease(self, self.redis, roster=hub.roster, heartbeat_s=self.heartbeat_s,
                                  kick=hub.ladder.kick, forward=self.forward)  # fmt: skip
        self.failover = Failover(self, self.redis, matches=hub.matches, store=hub.store, roster=hub.roster,
                                 grace_s=hub.config.reconnect_grace_s, start_grace=hub.start_grace,
                                 proxy=self.proxy, count_matches=self.count_matches)  # fmt: skip

    # --- life cycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Join: heartbeat, subscribe, and route the hub's requests through the cluster."""
        try:
            await self.redis.ping()
            self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            await self._pubsub.subscribe(node_channel(self.node), EVERY_NODE)
            await self._beat()
            await self.look_for_live_nodes()
            await self.lobby.start()
            self.hub.lobby.join_cluster(self.lobby.relay, self.lobby.gather)
        except (RedisError, OSError) as exc:
            raise ClusterError(f"cannot join the cluster at {self._where}: {exc}") from None
        loop = asyncio.get_running_loop()
        self._sender = loop.create_task(self._send())
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._heartbeat()),
                       loop.create_task(self._watch()), loop.create_task(self.lobby.count_again())]  # fmt: skip
        for message_class, handler in list(self.hub.handlers.items()):
            if issubclass(message_class, MatchRequest):
                self.hub.register(message_class, self._routed_by_match(handler))
        self.hub.register(Challenge, self._routed_by_target(self.hub.handlers[Challenge]))
        for message_class in (Accept, Decline, Cancel):
            self.hub.register(message_class, self._routed_by_challenge(self.hub.handlers[message_class]))
        self.hub.challenges.listeners.append(self._challenge_changed)
        self.hub.ladder.join_cluster(self.ladder.holds, self.live_matches_of)  # a player's matches on every node count
        self.hub.tournaments.may_run = self.ladder.holds  # one scheduler: the ladder's lease holder
        for message_class in (LadderJoin, LadderLeave):
            self.hub.register(message_class, self.ladder.routed(self.hub.handlers[message_class]))
        self.hub.join_cluster(self.node, self)
        self.hub.matches.live_listeners.append(self._match_live)
        self.hub.matches.join_cluster(self._journal)
        self.hub.matches.end_listeners.append(self._match_ended)
        log.info("joined the cluster", extra={"node": self.node, "cluster": self._where})

    async def stop(self) -> None:
        """Leave: the queued messages go out, then no heartbeat and no more messages."""
        for task in [*self._tasks, self._sender]:
            if task is not None:
                task.cancel()
        await self._flush_outbox()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(alive_key(self.node))
            if self._pubsub is not None:
                await self._pubsub.aclose()
        await self.redis.aclose()

    async def hand_over(self) -> None:
        """Leave the cluster without ending a match (SIGTERM on a node): requests stop here, every
        move is stored, the clients are told to connect again (to another node), and the other
        nodes are told to adopt this node's matches now, as after a crash but with nothing lost
        and no heartbeat to wait for."""
        for task in self._tasks:  # no heartbeat may say this node is alive again, no adoption starts here
            task.cancel()
        hub = self.hub
        hub.draining = True
        for message_class in list(hub.handlers):
            if message_class is not Ping:
                hub.register(message_class, _refuse_while_leaving)
        hub.stop_timers()  # no flag, grace or expiry fires here any more: the matches move as they stand
        self.ladder.release()
        await hub.matches.drain()
        await hub.store.flush()
        log.info("handing over", extra={"live_matches": len(hub.matches.live)})
        for player in list(hub.roster):
            session = player.session
            if isinstance(session, Session) and not self.is_proxy(session):
                session.close(CloseCode.GOING_AWAY, "this node is leaving the cluster: connect again to go on")
        self.command("hset", BEATS, self.node, int(time.time() * 1000))
        self.command("delete", alive_key(self.node))
        self.publish(EVERY_NODE, ["leaving", self.node])
        await self._flush_outbox()

    @property
    def _where(self) -> str:
        kwargs = self.redis.connection_pool.connection_kwargs
        return f"redis://{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"

    async def is_alive(self, node: str) -> bool:
        """Whether ``node`` is alive (a node seen alive lately is taken at its word)."""
        if node not in self.alive and await self.redis.exists(alive_key(node)):
            self._saw(node, heartbeat=True)
        return node in self.alive

    def _saw(self, node: str, *, heartbeat: bool = False, at: float | None = None) -> None:
        if node in self._gone and not heartbeat:
            return  # its last messages after it said it was leaving
        self._gone.discard(node)  # started again under the same id
        at = asyncio.get_running_loop().time() if at is None else at
        self._seen[node] = max(at, self._seen.get(node, at))
        self.alive.add(node)

    async def look_for_live_nodes(self) -> set[str]:
        """The nodes seen alive within ALIVE_MS (this one always)."""
        prefix = alive_key("")
        found = [key.decode() async for key in self.redis.scan_iter(f"{prefix}*")]
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in found:
                pipe.pttl(key)
            left_ms = await pipe.execute()
        now = asyncio.get_running_loop().time()
        for key, ttl in zip(found, left_ms, strict=True):
            if ttl > 0:  # the heartbeat was ALIVE_MS - ttl ago
                self._saw(key.removeprefix(prefix), heartbeat=True, at=now - (ALIVE_MS - ttl) / 1000)
        self.alive = {node for node, seen in self._seen.items() if now - seen <= ALIVE_MS / 1000} | {self.node}
        return self.alive

    async def _watch(self) -> None:
        """Each heartbeat, and at once when a node leaves: a dead node's lobby entries go, players
        whose home died are away, and the live matches it owned are adopted (failover.py)."""
        hub = self.hub
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.heartbeat_s):
                    await self._look_now.wait()
            self._look_now.clear()
            try:
                owners = {k.decode(): v.decode() for k, v in (await self.redis.hgetall(MATCHES)).items()}
                alive = await self.look_for_live_nodes()
                await self.lobby.reap(alive)
                for player in hub.roster:
                    home = home_of(player.session)
                    if home is not None and home not in alive:
                        hub.disconnected(player.session)  # type: ignore[arg-type]
                await self.failover.adopt_orphans(owners, alive)
            except (RedisError, OSError) as exc:
                log.error("cluster: cannot watch for dead nodes: %s", exc, extra={"node": self.node})
            except Exception:
                log.exception("cluster: failover failed", extra={"node": self.node})

    def is_proxy(self, session: Connection | None) -> bool:
        """Whether ``session`` stands here for a player connected to another node."""
        return home_of(session) is not None

    def command(self, *command: Any) -> None:
        """Queue a Redis command; it runs in order with the messages."""
        self._outbox.put_nowait(command)

    async def owned_elsewhere(self, match_ids: list[str]) -> set[str]:
        """Of ``match_ids``, those a live node other than this one owns (not for the restart rule)."""
        if not match_ids:
            return set()
        owners = await self.redis.hmget(MATCHES, match_ids)
        alive = await self.look_for_live_nodes()
        return {mid for mid, owner in zip(match_ids, owners, strict=True)
                if owner is not None and owner.decode() != self.node and owner.decode() in alive}  # fmt: skip

    # --- the hub's hooks (Peers) --------------------------------------------------------------
    async def arrived(self, player: OnlinePlayer) -> None:
        """A player connected here: this is its home now (written before it is welcomed, so a
        challenge to it from any node finds it); the other nodes hand over."""
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(PLAYERS, player.name, self.node)
                if player.resume_token is not None:  # a guest may come back through any node
                    pipe.set(keys.guest_key(player.resume_token), player.name, ex=keys.GUEST_TOKEN_S)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            log.error("cluster directory update failed: %s", exc, extra={"node": self.node})
        self.publish(EVERY_NODE, ["arrived", self.node, player.name])

    async def guest(self, resume_token: str) -> Identity | None:
        try:
            name = await self.redis.get(keys.guest_key(resume_token))
        except (RedisError, OSError) as exc:
            log.error("cluster directory unavailable: %s", exc, extra={"node": self.node})
            return None
        return None if name is None else Identity(name.decode(), "human", True)

    async def claim_guest_name(self, name: str) -> bool:
        try:
            return bool(await self.redis.set(keys.guest_name_key(name), self.node, nx=True, ex=keys.GUEST_TOKEN_S))
        except (RedisError, OSError) as exc:
            log.error("cluster directory unavailable: %s", exc, extra={"node": self.node})
            return True  # unchecked: a clash is unlikely, a refused guest is certain

    def _match_live(self, live: Any) -> None:
        """A match goes live here: its owner is written before any message about it is sent (and,
        unless it is adopted, counted for its players)."""
        self.command("hset", MATCHES, live.id, self.node)
        if live.id not in self.failover.adopting:
            self.command("hset", keys.MATCH_PLAYERS, live.id, "\t".join(p.name for p in live.players))
            self.count_matches([p.name for p in live.players], 1)

    def _journal(self, live: Any, move: MoveRecord, announce: Callable[[], None]) -> None:
        """An accepted move goes to Redis first; its ``moved`` goes out once Redis has it (in order
        with every other command), so a move a player saw survives this node's death."""
        entry = msgpack.packb([move.ply, move.move, move.elapsed_ms, move.info], use_bin_type=True)
        self.command("rpush", keys.journal_key(live.id), entry)
        self._outbox.put_nowait(("then", announce))

    def count_matches(self, names: list[str], change: int) -> None:
        """Each player's live matches on every node change by ``change`` (after the commands queued
        before); the nodes listing them read their counts again."""
        for name in names:
            self.command("hincrby", PLAYING, name, change)
        self.publish(EVERY_NODE, ["recount", self.node, names])

    async def live_matches_of(self, names: list[str]) -> dict[str, int] | None:
        """Each player's live matches on every node (every name asked, 0 if none); None if Redis cannot say."""
        if not names:
            return {}
        try:
            # Read after this node's own queued counts land: a pass pairing just after another must
            # see the matches that pass started (the outbox and this read use separate connections).
            await asyncio.wait_for(self._queued_sent(), OUTBOX_WAIT_S)
            counts = await self.redis.hmget(PLAYING, names)
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("cluster: live matches unknown (the ladder pairs, the lobby counts later): %s", exc,
                        extra={"node": self.node})  # fmt: skip
            return None
        return {name: int(count or 0) for name, count in zip(names, counts, strict=True)}

    async def _queued_sent(self) -> None:
        """Return once every command queued before this call has reached Redis (or failed to)."""
        if self._sender is None or self._sender.done():
            return  # not sending (not started, or stopping): nothing queued will go out before the read
        sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def arrived() -> None:
            if not sent.done():  # the read may have given up waiting
                sent.set_result(None)

        self._outbox.put_nowait(("then", arrived))
        await sent

    def _challenge_changed(self, challenge_id: str, opened: bool) -> None:
        """A challenge or seek opened here (before its id is sent to anyone) or closed."""
        if opened:
            self.command("hset", CHALLENGES, challenge_id, self.node)
        else:
            self.command("eval", DELETE_IF_OURS, 1, CHALLENGES, challenge_id, self.node)

    def left(self, player: OnlinePlayer, session: Session) -> None:
        """A player's connection here is gone (not replaced): the owners of its matches start its grace."""
        if home_of(session) is not None:
            return  # a proxy: the player's home tells the others
        self.ladder.forget(player.name)
        self.command("eval", DELETE_IF_OURS, 1, PLAYERS, player.name, self.node)
        self.publish(EVERY_NODE, ["left", self.node, player.name, session.closed_by_client])

    def _match_ended(self, live: Any, result: Any, changes: Any) -> None:
        """A match of ours ended (and its end went out): it leaves the directory."""
        self.command("eval", DELETE_IF_OURS, 1, MATCHES, live.id, self.node)
        self.command("hdel", keys.MATCH_PLAYERS, live.id)
        self.command("delete", keys.journal_key(live.id))
        self.count_matches([p.name for p in live.players], -1)

    # --- routing requests ---------------------------------------------------------------------
    def _routed_by_match(self, local: Handler) -> Handler:
        def route(session: Session, msg: MatchRequest | MoveFrame) -> Awaitable[None] | None:
            if msg.match in self.hub.matches.live or home_of(session) is not None:
                return local(session, msg)  # ours, or already forwarded to us: never forwarded twice
            owner = self._match_owner.get(msg.match)
            if owner is not None and owner in self.alive:
                self._match_owner.move_to_end(msg.match)
                self.forward(owner, session, msg)
                return None
            return self._look_up_then(session, msg, local, self._find_owner(msg.match))

        return route

    def _routed_by_target(self, local: Handler) -> Handler:
        def route(session: Session, msg: Challenge) -> Awaitable[None] | None:
            if msg.to is None or home_of(session) is not None or self._connected_here(msg.to):
                return local(session, msg)  # a seek, a request forwarded to us, or a player of ours
            return self._look_up_then(session, msg, local, self.find_home(msg.to))

        return route

    def _routed_by_challenge(self, local: Handler) -> Handler:
        """An accept, decline or cancel goes to the node holding the challenge or seek."""

        def route(session: Session, msg: Accept | Decline | Cancel) -> Awaitable[None] | None:
            if msg.challenge in self.hub.challenges.open or home_of(session) is not None:
                return local(session, msg)
            return self._look_up_then(session, msg, local, self._find(CHALLENGES, msg.challenge))

        return route

    def _connected_here(self, name: str) -> bool:
        player = self.hub.roster.get(name)
        return player is not None and player.session is not None and home_of(player.session) is None

    async def _look_up_then(
        self, session: Session, msg: Request | MoveFrame, local: Handler, lookup: Awaitable[str | None]
    ) -> None:
        try:
            node = await lookup
            elsewhere = node is not None and node != self.node and await self.is_alive(node)
        except (RedisError, OSError) as exc:
            log.warning("cluster directory unavailable: %s", exc, extra={"node": self.node})
            node, elsewhere = None, False
        if elsewhere:
            assert node is not None
            self.forward(node, session, msg)
            return
        pending = local(session, msg)
        if pending is not None:
            await pending

    async def _find_owner(self, match_id: str) -> str | None:
        owner = await self._find(MATCHES, match_id)
        if owner is not None:
            self._learn_owner(match_id, owner)
        return owner

    def _learn_owner(self, match_id: str, node: str) -> None:
        self._match_owner[match_id] = node
        self._match_owner.move_to_end(match_id)
        if len(self._match_owner) > self.hub.config.finished_ids_kept:
            self._match_owner.popitem(last=False)

    async def find_home(self, name: str) -> str | None:
        return await self._find(PLAYERS, name)

    async def _find(self, directory: str, key: str) -> str | None:
        """The node a directory names for ``key`` (a player's home, a match's owner, a challenge's node)."""
        node = await self.redis.hget(directory, key)
        return None if node is None else node.decode()

    def forward(self, node: str, session: Session, msg: Request | MoveFrame) -> None:
        """Send a client's request to ``node``, where a proxy session acts for the client."""
        player = session.player
        assert player is not None
        identity = player.identity
        self.publish(node_channel(node), ["req", self.node, identity.name, identity.kind, identity.guest,
                                          encode(msg.wire()), _profile(player)])  # fmt: skip

    # --- messages from other nodes --------------------------------------------------------------
    def _on_message(self, envelope: list[Any]) -> None:
        kind, sender = envelope[0], envelope[1]
        if kind != "leaving":
            self._saw(sender)  # a message is a sign of life
        if sender == self.node and kind in ("arrived", "left", "authority", "leaving", "ended"):
            return
        handler = self._handlers.get(kind)
        if handler is None:
            log.warning("unknown cluster message %r from %s", kind, sender, extra={"node": self.node})
            return
        handler(self, *envelope[1:])

    def _on_request(self, home: str, name: str, kind: str, guest: bool, frame: bytes, profile: dict[str, Any]) -> None:
        session = self.proxy(home, Identity(name, kind, guest, profile.get("owner")))
        player = session.player
        assert player is not None
        player.games, player.levels, player.capacity = profile["games"], profile["levels"], profile["capacity"]
        player.features = frozenset(profile.get("features") or ())  # (absent from a node without the extensions)
        session.receive(frame)

    def _on_out(self, owner: str, name: str, data: bytes) -> None:
        player = self.hub.roster.get(name)
        if player is not None and player.session is not None and home_of(player.session) is None:
            player.session.send(data)

    def confirm_through(self, home: str, name: str, on_confirmed: Callable[[], None]) -> None:
        """Ask the player's home to confirm that its client read what this node sent it so far
        (a match's end stays kept for its next welcome until then: proxy.py)."""
        token = next(self._confirm_ids)
        self._confirming[token] = (name, on_confirmed)
        self.publish(node_channel(home), ["confirm", self.node, name, token])

    def _on_confirm(self, owner: str, name: str, token: int) -> None:
        player = self.hub.roster.get(name)
        if player is not None and isinstance(player.session, Session) and home_of(player.session) is None:
            reply = ["confirmed", self.node, name, token]
            player.session.transport.confirm(lambda: self.publish(node_channel(owner), reply))

    def _on_confirmed(self, home: str, name: str, token: int) -> None:
        waiting = self._confirming.pop(token, None)
        if waiting is not None:
            waiting[1]()

    def _on_close(self, owner: str, name: str, code: int, reason: str) -> None:
        player = self.hub.roster.get(name)
        if player is not None and isinstance(player.session, Session) and home_of(player.session) is None:
            player.session.close(CloseCode(code), reason)

    def credentials_ended(self, name: str) -> None:
        self.publish(EVERY_NODE, ["ended", self.node, name])

    def _on_ended(self, node: str, name: str) -> None:
        """A player's credentials ended on ``node`` (a token rotated there): its home closes it."""
        player = self.hub.roster.get(name)
        if player is not None and isinstance(player.session, Session) and home_of(player.session) is None:
            player.session.close_credentials_ended()

    def _on_arrived(self, home: str, name: str) -> None:
        """The player connected at ``home``: close its connection here, and resync its matches here
        to it through its new home."""
        player = self.hub.roster.get(name)
        if player is None:
            return
        previous = player.session
        if previous is not None and home_of(previous) is None:
            previous.close_replaced()  # one connection per player in the whole cluster
        if player.owed or home_of(previous) is not None:
            self.proxy(home, player.identity)  # its missed ends go there too (hub.attach)

    def _on_left(self, home: str, name: str, closed_by_client: bool) -> None:
        for token in [token for token, (waiting, _) in self._confirming.items() if waiting == name]:
            del self._confirming[token]  # its home will not confirm: its ends are kept for its return
        player = self.hub.roster.get(name)
        if player is not None and isinstance(player.session, Session) and home_of(player.session) == home:
            transport = player.session.transport
            assert isinstance(transport, RemoteTransport)
            transport.closed_by_client = closed_by_client
            self.hub.disconnected(player.session)

    def _on_adopted(self, owner: str, match_id: str) -> None:
        if match_id in self._match_owner:  # only the owners this node uses: the others it looks up
            self._learn_owner(match_id, owner)

    def _on_lobby(self, node: str, frame: bytes) -> None:
        self.lobby.on_change(frame)

    def _on_recount(self, node: str, names: list[str]) -> None:
        for name in names:
            self.lobby.recount(name)

    def _on_authority(self, node: str) -> None:
        self.ladder.on_new_holder(node)

    def _on_leaving(self, node: str) -> None:
        self._gone.add(node)
        self._seen.pop(node, None)
        self.alive.discard(node)
        self._look_now.set()

    _handlers: ClassVar[dict[str, Callable[..., None]]] = {
        "lobby": _on_lobby,
        "recount": _on_recount,
        "authority": _on_authority,
        "leaving": _on_leaving,
        "adopted": _on_adopted,
        "req": _on_request,
        "out": _on_out,
        "close": _on_close,
        "confirm": _on_confirm,
        "confirmed": _on_confirmed,
        "ended": _on_ended,
        "arrived": _on_arrived,
        "left": _on_left,
    }

    def proxy(self, home: str, identity: Identity) -> Session:
        """The session that stands here for a player whose home is ``home`` (made, or re-pointed)."""
        player = self.hub.roster.get(identity.name)
        if player is not None and home_of(player.session) == home:
            return player.session  # type: ignore[return-value]
        if player is None:
            player = self.hub.roster.add(identity, None)
        session = Session(self.hub, RemoteTransport(self, home, identity.name, self.confirm_through))
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
        commands = [entry for entry in burst if entry[0] != "then"]
        try:
            if commands:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for command, *args in commands:
                        getattr(pipe, command)(*args)
                    await pipe.execute()
        except (RedisError, OSError) as exc:
            log.error("cluster: %d messages not sent: %s", len(commands), exc, extra={"node": self.node})
        for entry in burst:  # what waited for the commands before it (play never waits for Redis to come back)
            if entry[0] == "then":
                try:
                    entry[1]()
                except Exception:
                    log.exception("cluster: a callback after Redis failed", extra={"node": self.node})

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
                await asyncio.sleep(HEARTBEAT_S / 5)  # listening again subscribes again

    async def _beat(self) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(alive_key(self.node), "1", px=ALIVE_MS)
            pipe.hset(BEATS, self.node, int(time.time() * 1000))
            pipe.sismember(NODES, self.node)
            pipe.pubsub_numsub(node_channel(self.node))
            *_, listed, [(_, subscribed)] = await pipe.execute()
        if not listed and subscribed and self.lobby.started:
            # Redis restarted empty: our part of the directory is gone. It is written again once
            # this node hears its channel again, so whoever finds it there can reach it.
            await self._write_again()
        await self.ladder.renew()

    async def _write_again(self) -> None:
        """Write this node's part of the directory and of the lobby again (after a Redis restart)."""
        hub = self.hub
        log.warning("cluster: Redis lost this node's entries; writing them again", extra={"node": self.node})
        async with self.redis.pipeline(transaction=False) as pipe:
            for player in hub.roster:
                if player.session is not None and not self.is_proxy(player.session):
                    pipe.hset(PLAYERS, player.name, self.node)
                    if player.resume_token is not None:
                        pipe.set(keys.guest_key(player.resume_token), player.name, ex=keys.GUEST_TOKEN_S)
            for match_id, live in hub.matches.live.items():
                pipe.hset(MATCHES, match_id, self.node)
                pipe.hset(keys.MATCH_PLAYERS, match_id, "\t".join(p.name for p in live.players))
                for player in live.players:
                    pipe.hincrby(PLAYING, player.name, 1)
            for challenge_id in hub.challenges.open:
                pipe.hset(CHALLENGES, challenge_id, self.node)
            await pipe.execute()
        await self.lobby.write_again()
        counted = sorted({player.name for live in hub.matches.live.values() for player in live.players})
        if counted:  # their counts were lost with the rest: the nodes listing them read them again
            self.publish(EVERY_NODE, ["recount", self.node, counted])

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            try:
                await self._beat()
            except (RedisError, OSError) as exc:
                log.error("cluster heartbeat failed: %s", exc, extra={"node": self.node})


def _refuse_while_leaving(session: Session, msg: Request) -> None:
    raise ProtocolError(ErrorCode.UNAVAILABLE, "this node is leaving the cluster: connect again to go on")


class ClusterError(RuntimeError):
    """This node cannot join the cluster (Redis unreachable, refused)."""
