"""One ladder for every node: one node at a time pairs, the one holding the pairing lease.

The lease is a Redis key with an expiry (``keys.LADDER_AUTHORITY``), taken when free and renewed by
its holder's heartbeat. The holder pairs only while its lease is surely still its own (the renewal
time plus the lease, less a heartbeat of margin), so two nodes never pair at once and no pair is made
twice. Every node forwards its players' ``ladder_join`` and ``ladder_leave`` to the holder, where a
proxy session stands for each player; so ladder matches live on the holder, and are rated once, by
it. Each node remembers its own players' joins: when the lease passes to another node (the holder
died or left), every node sends them again to the new holder.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from arbiter.engine import game_names
from arbiter.protocol.codec import encode
from arbiter.protocol.ladder import LadderJoin
from arbiter.protocol.messages import Request

from ..play.players import Roster
from ..play.session import Handler, Session
from .keys import DELETE_IF_HOLDER, EVERY_NODE, LADDER_AUTHORITY, LEASE
from .link import Link

# Send a client's request to a node, where a proxy session acts for the client (node.py).
Forward = Callable[[str, Session, Request], None]

log = logging.getLogger("arbiter.server.cluster")

LEASE_MS = 5_000


class LadderLease:
    def __init__(
        self, link: Link, redis: Any, *, roster: Roster, heartbeat_s: float, kick: Callable[[], None], forward: Forward
    ) -> None:
        self.link = link
        self.redis = redis
        self.roster = roster
        self.heartbeat_s = heartbeat_s  # the lease is renewed each heartbeat
        self.kick = kick  # the ladder pairs now (this node just took the lease)
        self.forward = forward
        self.holder: str | None = None  # the node pairing the ladder, as last seen
        self._valid_until = 0.0  # this node's lease is surely its own until then (loop time)
        self._joins: dict[str, dict[str, LadderJoin]] = {}  # this node's players' joins: name → game → join

    def holds(self) -> bool:
        return self.holder == self.link.node and asyncio.get_running_loop().time() < self._valid_until

    async def renew(self) -> None:
        """Take the lease if free, keep it if ours (each heartbeat); a new holder is announced."""
        sent = asyncio.get_running_loop().time()
        holder = (await self.redis.eval(LEASE, 1, LADDER_AUTHORITY, self.link.node, LEASE_MS)).decode()
        if holder == self.link.node:
            self._valid_until = sent + LEASE_MS / 1000 - 2 * self.heartbeat_s
        if holder != self.holder:
            self.holder = holder
            if holder == self.link.node:
                log.info("this node pairs the ladder now")
                self.link.publish(EVERY_NODE, ["authority", self.link.node])
                self._join_again()
                self.kick()

    def release(self) -> None:
        """This node leaves: its lease goes at once, so another node pairs without waiting for it to expire."""
        self._valid_until = 0.0
        if self.holder == self.link.node:
            self.link.command("eval", DELETE_IF_HOLDER, 1, LADDER_AUTHORITY, self.link.node)

    def on_new_holder(self, holder: str) -> None:
        """Another node holds the lease now: it hears again of every join of this node's players."""
        self.holder = holder
        if holder == self.link.node:
            return
        for session, join in self._remembered():
            self.forward(holder, session, join)

    def _join_again(self) -> None:
        """This node holds the lease now: its own players' joins, sent to the old holder, come here
        (each as if its player sent it again, so it is checked and answered as any join)."""
        for session, join in self._remembered():
            session.receive(encode(join.wire()))

    def _remembered(self) -> list[tuple[Session, LadderJoin]]:
        """The joins of this node's players who are still connected here."""
        remembered: list[tuple[Session, LadderJoin]] = []
        for name, joins in self._joins.items():
            player = self.roster.get(name)
            session = None if player is None else player.session
            if isinstance(session, Session) and not self.link.is_proxy(session):
                remembered += [(session, join) for join in joins.values()]
        return remembered

    def forget(self, name: str) -> None:
        """The player left this node."""
        self._joins.pop(name, None)

    def routed(self, local: Handler) -> Handler:
        """``local`` (``ladder_join``'s or ``ladder_leave``'s handler) behind the lease: this node's
        players' requests go to the lease's holder, and are remembered for the next one."""

        def route(session: Session, msg: Request) -> Awaitable[None] | None:
            if self.link.is_proxy(session):
                return local(session, msg)  # forwarded to us: we hold the lease, or held it
            self._remember(session, msg)
            holder = self.holder
            if holder is None or holder == self.link.node:
                return local(session, msg)
            self.forward(holder, session, msg)
            return None

        return route

    def _remember(self, session: Session, msg: Any) -> None:
        player = session.player
        if player is None or player.identity.guest or msg.game not in game_names():
            return  # refused wherever it goes: nothing to send again
        if isinstance(msg, LadderJoin):
            self._joins.setdefault(player.name, {})[msg.game] = msg
        else:
            self._joins.get(player.name, {}).pop(msg.game, None)
