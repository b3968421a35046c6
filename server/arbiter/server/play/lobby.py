"""The lobby: who is online, open seeks and live matches, as a snapshot and as live updates.

A client asks once (``lobby``) or subscribes (``subscribe``: a snapshot, then an update message
for every change until ``unsubscribe`` or disconnect). The lobby owns no seek and no match: the
challenges and the matches tell it what changed, and it reads their listings through the two
functions it is given, so it depends on neither.

On a node of a cluster the lobby is every node's: the cluster gives it (``join_cluster``) a
``relay`` (each change goes to the subscribers of every node, the change's player given so it can
tell who lists whom) and a ``gather`` (the snapshot of every node's entries).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from arbiter.protocol.codec import encode
from arbiter.protocol.messages import Lobby as LobbyRequest
from arbiter.protocol.messages import Request, Subscribe, Unsubscribe

from .players import OnlinePlayer, Roster
from .session import Handler, Session

Listing = Callable[[], list[dict[str, Any]]]
Relay = Callable[[dict[str, Any], OnlinePlayer | None], None]


class Lobby:
    def __init__(self, roster: Roster, *, seeks: Listing, matches: Listing) -> None:
        self.roster = roster
        self.seeks = seeks  # the open seeks as the lobby lists them
        self.matches = matches  # the live, announced matches as the lobby lists them
        self.subscribers: set[Session] = set()
        self.relay: Relay | None = None  # a cluster's: a change goes to every node's subscribers
        self.gather: Callable[[], Awaitable[dict[str, Any]]] | None = None  # a cluster's: every node's snapshot

    def join_cluster(self, relay: Relay, gather: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        """This server is a node of a cluster: its lobby is every node's."""
        self.relay = relay
        self.gather = gather

    def handlers(self) -> dict[type[Request], Handler]:
        return {LobbyRequest: self.on_lobby, Subscribe: self.on_subscribe, Unsubscribe: self.on_unsubscribe}

    def snapshot(self) -> dict[str, Any]:
        return {
            "type": "lobby_state",
            "players": [player.describe() for player in self.roster],
            "seeks": self.seeks(),
            "matches": self.matches(),
        }

    # --- requests ----------------------------------------------------------------------------------
    def on_lobby(self, session: Session, msg: LobbyRequest) -> Awaitable[None] | None:
        return self._reply_snapshot(session, msg)

    def on_subscribe(self, session: Session, msg: Subscribe) -> Awaitable[None] | None:
        self.subscribers.add(session)  # before the snapshot: a change meanwhile comes after it, or twice
        return self._reply_snapshot(session, msg)

    def _reply_snapshot(self, session: Session, msg: Request) -> Awaitable[None] | None:
        if self.gather is None:
            session.reply(msg, self.snapshot())
            return None
        return self._reply_gathered(session, msg, self.gather)

    async def _reply_gathered(
        self, session: Session, msg: Request, gather: Callable[[], Awaitable[dict[str, Any]]]
    ) -> None:
        session.reply(msg, await gather())

    def on_unsubscribe(self, session: Session, msg: Unsubscribe) -> None:
        self.subscribers.discard(session)
        session.ok(msg)

    def drop(self, session: Session) -> None:
        """The session's connection is gone."""
        self.subscribers.discard(session)

    # --- updates -----------------------------------------------------------------------------------
    def publish(self, message: dict[str, Any]) -> None:
        """Send a change to this node's subscribers."""
        if self.subscribers:
            data = encode(message)
            for session in self.subscribers:
                session.send(data)

    def _changed(self, message: dict[str, Any], player: OnlinePlayer | None = None) -> None:
        if self.relay is None:
            self.publish(message)
        else:
            self.relay(message, player)

    def presence(self, player: OnlinePlayer) -> None:
        """A player came online, or its entry changed (away or back)."""
        self._changed({"type": "presence", "player": player.describe()}, player)

    def playing_changed(self, player: OnlinePlayer) -> None:
        """One of the player's matches here started or ended: its entry's ``playing`` changed. The
        player is still listed: one leaves the roster only once its matches are over (hub.py). (On a
        node of a cluster the count is every node's, and the node whose count changed announces it
        to the node listing the player: cluster/lobby.py.)"""
        if self.relay is None:
            self.presence(player)

    def player_offline(self, player: OnlinePlayer) -> None:
        self._changed({"type": "player_offline", "name": player.name}, player)

    def seek_added(self, seek: dict[str, Any]) -> None:
        self._changed({"type": "seek_added", "seek": seek})

    def seek_removed(self, seek_id: str, reason: str) -> None:
        self._changed({"type": "seek_removed", "seek": seek_id, "reason": reason})

    def match_listed(self, summary: dict[str, Any]) -> None:
        self._changed({"type": "match_listed", "match": summary})

    def match_unlisted(self, match_id: str, result: str | None, reason: str) -> None:
        self._changed({"type": "match_unlisted", "match": match_id, "result": result, "reason": reason})
