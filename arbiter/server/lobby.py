"""The lobby: who is online, open seeks and live matches, as a snapshot and as live updates.

A client asks once (``lobby``) or subscribes (``subscribe``: a snapshot, then an update message
for every change until ``unsubscribe`` or disconnect).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arbiter.protocol.codec import encode
from arbiter.protocol.messages import Lobby as LobbyRequest
from arbiter.protocol.messages import Subscribe, Unsubscribe

if TYPE_CHECKING:
    from .challenges import OpenChallenge
    from .hub import Hub
    from .match import Result
    from .matches import LiveMatch
    from .players import OnlinePlayer
    from .session import Session


class Lobby:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.subscribers: set[Session] = set()

    def register_handlers(self) -> None:
        self.hub.register(LobbyRequest, self.on_lobby)
        self.hub.register(Subscribe, self.on_subscribe)
        self.hub.register(Unsubscribe, self.on_unsubscribe)

    def snapshot(self) -> dict[str, Any]:
        now = self.hub.now()
        return {
            "type": "lobby_state",
            "players": [player.describe() for player in self.hub.roster],
            "seeks": [c.describe(now) for c in self.hub.challenges.seeks()],
            "matches": [live.summary() for live in self.hub.matches.live.values() if live.announced],
        }

    # --- requests ----------------------------------------------------------------------------------
    def on_lobby(self, session: Session, msg: LobbyRequest) -> None:
        session.reply(msg, self.snapshot())

    def on_subscribe(self, session: Session, msg: Subscribe) -> None:
        self.subscribers.add(session)
        session.reply(msg, self.snapshot())

    def on_unsubscribe(self, session: Session, msg: Unsubscribe) -> None:
        self.subscribers.discard(session)
        session.ok(msg)

    # --- updates -----------------------------------------------------------------------------------
    def publish(self, message: dict[str, Any]) -> None:
        if self.subscribers:
            data = encode(message)
            for session in self.subscribers:
                session.send(data)

    def presence(self, player: OnlinePlayer) -> None:
        """A player came online, or its entry changed (away or back)."""
        self.publish({"type": "presence", "player": player.describe()})

    def player_offline(self, player: OnlinePlayer) -> None:
        self.publish({"type": "player_offline", "name": player.name})

    def seek_added(self, seek: OpenChallenge) -> None:
        self.publish({"type": "seek_added", "seek": seek.describe(self.hub.now())})

    def seek_removed(self, seek: OpenChallenge, reason: str) -> None:
        self.publish({"type": "seek_removed", "seek": seek.id, "reason": reason})

    def match_listed(self, live: LiveMatch) -> None:
        self.publish({"type": "match_listed", "match": live.summary()})

    def match_unlisted(self, live: LiveMatch, result: Result) -> None:
        self.publish({"type": "match_unlisted", "match": live.id, "result": result.result, "reason": result.reason})
