"""Who is connected: identities, guests and their resume tokens, and players away within their grace.

Presence is the bottom of the server: it knows a player's connection only as a ``Connection`` (send,
be replaced) and its live matches only by id, so sessions and matches build on it, never around it.

A player is online from its hello until it has been disconnected for the reconnect grace (or at
once when it disconnects with no live match). One connection per player: a newer hello for the
same identity replaces the older connection. Guests get a unique generated name and a resume
token that brings them back as the same guest while they are still online or away.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from arbiter.server.store.base import GUEST_PREFIX

from ..basics.clock import Alarm

MISSED_KEPT = 64  # end messages kept for a player while it is away, or until its client confirms reading them


class Connection(Protocol):
    """What presence needs of a player's connection (a ``Session``)."""

    def send(self, data: bytes) -> None:
        """Queue one frame for the client."""

    def send_confirmed(self, data: bytes, on_confirmed: Callable[[], None]) -> None:
        """Queue one frame, and call ``on_confirmed`` once the client has surely read it (never, if it drops first)."""

    def close_replaced(self) -> None:
        """Close: a newer connection of the same player took over."""

    def close_credentials_ended(self) -> None:
        """Close: the token or password it signed in with was rotated, revoked or changed."""

    @property
    def latency(self) -> float:
        """The connection's round trip, in seconds (0 until measured)."""


@dataclass(frozen=True, slots=True)
class Identity:
    name: str
    kind: str  # "bot" or "human"
    guest: bool
    owner: str | None = None  # the person a bot belongs to (created from the browser)

    def describe(self) -> dict[str, Any]:
        described = {"name": self.name, "kind": self.kind, "guest": self.guest}
        if self.owner is not None:
            described["owner"] = self.owner
        return described


def owner_of(identity: Identity) -> str | None:
    """Who answers for the account, in lower case: a person itself, a bot its owner (None: a
    guest, or a bot the operator registered, which nobody plays for)."""
    if identity.guest:
        return None
    if identity.kind == "human":
        return identity.name.lower()
    return None if identity.owner is None else identity.owner.lower()


def same_owner(a: Identity, b: Identity) -> bool:
    """Whether the two accounts answer to one person: a game between them would farm a rating."""
    owner = owner_of(a)
    return owner is not None and owner == owner_of(b)


class OnlinePlayer:
    """A player the server knows right now, connected (``session``) or away (``session is None``)."""

    __slots__ = (
        "capacity",
        "cluster_playing",
        "ending",
        "ends_sent",
        "features",
        "forgets_ends",
        "games",
        "grace",
        "hints",
        "identity",
        "levels",
        "matches",
        "missed",
        "resume_token",
        "session",
        "takebacks",
        "unconfirmed",
        "unread",
    )

    def __init__(self, identity: Identity, games: list[str] | None, resume_token: str | None) -> None:
        self.identity = identity
        self.games: list[str] = list(games or [])
        self.levels: int | None = None  # a bot's strength levels, from its hello
        self.capacity: int | None = None  # matches it plays at once, all games together (its hello)
        self.takebacks = "never"  # a bot's takeback policy, from its hello (SPEC section 15)
        self.hints = False  # a bot that suggests moves to its casual opponents (its hello)
        self.features: frozenset[str] = frozenset()  # protocol extensions its client speaks (its hello)
        self.session: Connection | None = None
        self.matches: list[str] = []  # ids of its live matches, oldest first
        # On a node of a cluster: its live matches on every node, as this node last read them (the
        # lobby lists that); None: the matches here are all there are.
        self.cluster_playing: int | None = None
        self.resume_token = resume_token
        self.grace: Alarm | None = None
        # Ends for its next welcome: missed while away, or sent to a connection that dropped before
        # its client confirmed reading them (``unconfirmed``; a socket dying as a match ends loses them).
        self.missed: list[bytes] = []
        self.unconfirmed: list[bytes] = []
        self.ending = 0  # its matches that ended and whose end is still being recorded, not yet sent
        # A registered player's ends the store keeps until its client confirms reading them (hub.greet
        # sends them after a welcome): the last ones sent to this connection (once each: the match's
        # end and the welcome's read of the store may cross), and those not confirmed yet, each with
        # what marks it read in the store.
        self.ends_sent: dict[str, None] = {}
        self.unread: dict[str, Callable[[], None]] = {}
        self.forgets_ends = False  # it left on purpose (or was banned) and went offline: nothing is kept for it

    @property
    def name(self) -> str:
        return self.identity.name

    @property
    def connected(self) -> bool:
        return self.session is not None

    def send(self, data: bytes) -> None:
        """Send to the player's connection; dropped while it is away (a resync follows its return)."""
        if self.session is not None:
            self.session.send(data)

    def send_or_keep(self, data: bytes) -> None:
        """Send a match's end, kept for the player's next welcome until its client confirms reading it."""
        if self.session is None:
            _keep(self.missed, data)
            return
        _keep(self.unconfirmed, data)
        self.session.send_confirmed(data, lambda: self._confirmed(data))

    def _confirmed(self, data: bytes) -> None:
        if data in self.unconfirmed:
            self.unconfirmed.remove(data)

    def send_unread(self, match_id: str, data: bytes, on_read: Callable[[], None]) -> None:
        """Send a match's end that the store keeps unread for the player until ``on_read`` marks it
        read (once its client confirms reading it): nothing is kept here, the next welcome reads the
        store. Sent once per connection, whether by the match's end or by the welcome."""
        if self.session is None:
            if self.forgets_ends:
                on_read()
            return
        if match_id in self.ends_sent:
            return
        self.ends_sent[match_id] = None
        if len(self.ends_sent) > MISSED_KEPT:
            del self.ends_sent[next(iter(self.ends_sent))]
        self.unread[match_id] = on_read
        self.session.send_confirmed(data, lambda: self._read(match_id))

    def _read(self, match_id: str) -> None:
        on_read = self.unread.pop(match_id, None)
        if on_read is not None:
            on_read()

    def connection_lost(self, *, left: bool = False) -> None:
        """Its connection is gone (or replaced): the ends it did not confirm wait for the next welcome,
        unless its client ``left`` on purpose (what it did not wait for is not kept, in the store neither)."""
        if left:
            for on_read in self.unread.values():
                on_read()
        else:
            for data in self.unconfirmed:
                _keep(self.missed, data)
        self.unconfirmed.clear()
        self.unread.clear()
        self.ends_sent.clear()

    def take_missed(self) -> list[bytes]:
        """The ends to send after a welcome (they are sent again with ``send_or_keep``)."""
        missed, self.missed = self.missed, []
        return missed

    @property
    def owed(self) -> bool:
        """Whether it has a live match or an end it may not have received: it stays known while away."""
        return bool(self.matches or self.ending or self.missed)

    @property
    def playing(self) -> int:
        """Its live matches, as the lobby lists them."""
        return len(self.matches) if self.cluster_playing is None else self.cluster_playing

    def describe(self) -> dict[str, Any]:
        """The player's presence entry in the lobby."""
        return {
            **self.identity.describe(),
            "games": self.games,
            "levels": self.levels,
            "playing": self.playing,
            "away": self.session is None,
        }


def _keep(kept: list[bytes], data: bytes) -> None:
    if data not in kept:
        if len(kept) >= MISSED_KEPT:
            del kept[0]
        kept.append(data)


class Roster:
    """Every online or away player by name, and the guests' resume tokens."""

    def __init__(self) -> None:
        self._by_name: dict[str, OnlinePlayer] = {}
        self._guest_tokens: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._by_name)

    def __iter__(self) -> Iterator[OnlinePlayer]:
        return iter(list(self._by_name.values()))

    def get(self, name: str) -> OnlinePlayer | None:
        return self._by_name.get(name)

    def guest_by_token(self, token: str) -> OnlinePlayer | None:
        name = self._guest_tokens.get(token)
        return None if name is None else self._by_name.get(name)

    def add(self, identity: Identity, games: list[str] | None, *, resume_token: str | None = None) -> OnlinePlayer:
        """A newly online player (the caller has checked the name is not online); a guest gets a
        new resume token unless it brings one (a cluster's guest, known from another node)."""
        token = (resume_token or secrets.token_urlsafe(24)) if identity.guest else None
        player = OnlinePlayer(identity, games, token)
        self._by_name[identity.name] = player
        if token is not None:
            self._guest_tokens[token] = identity.name
        return player

    def set_resume_token(self, player: OnlinePlayer, token: str) -> None:
        """A guest known here already comes back with the token its first node gave it."""
        if player.resume_token is not None:
            self._guest_tokens.pop(player.resume_token, None)
        player.resume_token = token
        self._guest_tokens[token] = player.name

    def new_guest_identity(self) -> Identity:
        """A guest name nobody online uses (registered names never start with ``guest-``)."""
        while True:
            name = f"{GUEST_PREFIX}{secrets.token_hex(3)}"
            if name not in self._by_name:
                return Identity(name, "human", True)

    def remove(self, player: OnlinePlayer) -> None:
        if self._by_name.get(player.name) is player:
            del self._by_name[player.name]
        if player.resume_token is not None:
            self._guest_tokens.pop(player.resume_token, None)
        if player.grace is not None:
            player.grace.cancel()
            player.grace = None
