"""The server's core without sockets: it builds the features, and owns the handshake, the dispatch
table, presence and reconnects, and the drain.

The hub is the composition root, the one place that knows every feature: each feature gets what it
needs passed in (settings, the store, the clock, the lower features it uses) and offers its request
handlers as a table; none of them imports the hub. Sessions hand the hub typed messages; it routes
each through ``handlers`` (message class → handler) to the lobby, the challenges, the matches or the
ladder. A handler either returns None or a coroutine the session awaits; it refuses a request by
raising ProtocolError before changing anything. A new feature registers its messages with
``messages.register`` and its handlers with ``hub.register``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Protocol

from arbiter.engine import EngineError, describe_games
from arbiter.protocol.errors import CloseCode, ErrorCode, ProtocolError
from arbiter.protocol.ladder import LadderJoin
from arbiter.protocol.messages import PROTOCOL_VERSION, Accept, Challenge, Hello, Ping, Request
from arbiter.server.metrics import ServerMetrics
from arbiter.server.store.base import Player, Store, StoreError

from .access.accounts import Accounts, SignInLimits
from .access.bans import BanList
from .analysis.queue import Analysis
from .basics.clock import Alarm
from .config import ServerConfig
from .play.challenges import Challenges
from .play.guard import Guard
from .play.learning import Learning
from .play.lobby import Lobby
from .play.match import MatchError
from .play.matches import Matches
from .play.players import Identity, OnlinePlayer, Roster
from .play.session import Handler, Session
from .play.swap_opening import SWAP_FEATURE
from .ranking.ladder import Ladder
from .results.unread_ends import UnreadEnds
from .tournaments.scheduler import TournamentScheduler

log = logging.getLogger("arbiter.server")


class Peers(Protocol):
    """The other nodes of a cluster (cluster.py), told when a player arrives here or leaves."""

    async def arrived(self, player: OnlinePlayer) -> None: ...

    async def guest(self, resume_token: str) -> Identity | None:
        """The guest another node gave ``resume_token`` to, if any."""

    async def claim_guest_name(self, name: str) -> bool:
        """Whether ``name`` is free on every node for a new guest (and now taken by it)."""

    def left(self, player: OnlinePlayer, session: Session) -> None: ...

    def credentials_ended(self, name: str) -> None:
        """The player's token or password no longer holds: the node it is connected to closes it."""


SERVER_NAME = f"arbiter/{version('arbiter-server')}"  # announced in welcome


class Hub:
    def __init__(self, config: ServerConfig, store: Store, *, now: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.store = store
        self.now = now
        self.games = describe_games()
        self.limits = config.limits()
        self.metrics = ServerMetrics()
        self.draining = False
        self.roster = Roster()
        limits = SignInLimits(
            config.max_hashing_queue, config.sign_in_attempts_per_s, config.account_failures_per_minute
        )
        self.accounts = Accounts(store, registration_open=config.registration_open, limits=limits,
                                 bans=lambda: self.guard.bans, now=now)  # fmt: skip
        self.accounts.credentials_ended = self.credentials_ended
        self.guard = Guard(config, self.metrics)  # caps, bans and the open sessions
        self.peers: Peers | None = None  # set when this server is a node of a cluster
        self.node: str | None = None  # this node's id in a cluster
        # Built bottom-up: each feature gets the lower ones it uses; the lobby reads listings late.
        self.lobby = Lobby(self.roster, seeks=lambda: self.challenges.seeks(), matches=lambda: self.matches.summaries())
        self.unread = UnreadEnds(store)
        self.matches = Matches(config, store, self.metrics, self.lobby, self.unread, now=now)
        self.challenges = Challenges(config, self.roster, self.lobby, self.matches, now=now)
        self.ladder = Ladder(config.ladder, max_matches=config.max_matches, roster=self.roster, matches=self.matches,
                             store=store, now=now)  # fmt: skip
        self.learning = Learning(self.matches, store)  # takebacks and hints (SPEC section 15)
        self.tournaments = TournamentScheduler(store, roster=self.roster, matches=self.matches,
                                               max_matches=config.max_matches,
                                               interval_s=config.tournament_interval_s, now=now)  # fmt: skip
        self.analysis = Analysis(config, store, now=now)
        self.metrics.live_matches.set_function(lambda: len(self.matches.live))
        self.handlers: dict[type[Request], Handler] = {Ping: self.on_ping}
        for feature in (
            self.lobby,
            self.challenges,
            self.matches,
            self.ladder,
            self.learning,
            self.tournaments,
            self.analysis,
        ):
            for message_class, handler in feature.handlers().items():
                self.register(message_class, handler)

    def register(self, message_class: type[Request], handler: Handler) -> None:
        """Route ``message_class`` to ``handler(session, message)``."""
        self.handlers[message_class] = handler

    def join_cluster(self, node: str, peers: Peers) -> None:
        """This server is ``node`` of a cluster: ``peers`` hears of each player arriving or leaving here."""
        self.node = node
        self.peers = peers

    # --- handshake -----------------------------------------------------------------------------------
    async def greet(self, session: Session, hello: Hello) -> OnlinePlayer:
        """Identify the client, attach the session to its player, send welcome, resync its matches."""
        if hello.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                ErrorCode.PROTOCOL_VERSION,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.protocol}",
            )
        player = await self._identify(hello, session)
        returning = self._attach(session, player)
        if player.identity.guest:
            self.guard.guest_welcomed(session)
        if self.peers is not None:
            await self.peers.arrived(player)  # its home is known before it can ask anything
        if hello.analysis is not None:
            player.games = []  # a worker's games are those it analyses: no one challenges it to them
        elif hello.games is not None:
            player.games = list(hello.games)
        if hello.levels is not None:
            player.levels = hello.levels
        player.capacity = hello.capacity
        player.takebacks, player.hints = hello.takebacks or "never", bool(hello.hints)
        player.features = frozenset(hello.features or ())
        session.reply(
            hello,
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "server": SERVER_NAME,
                "player": player.identity.describe(),
                "resume_token": player.resume_token,
                "games": self.games,
                "limits": self.limits,
                "resumed": [live.id for live in self.matches.of(player) if live.announced],
                "features": [SWAP_FEATURE],  # the protocol extensions this server speaks
            },
        )
        log.info(
            "player connected",
            extra={
                "player": player.name,
                "kind": player.identity.kind,
                "guest": player.identity.guest,
                "returning": returning,
            },
        )
        self.lobby.presence(player)
        if hello.analysis is not None:
            self.analysis.add_worker(session, hello.games or [], hello.analysis, hello.client)
        if returning:
            self.matches.player_returned(player)
        for data in player.take_missed():  # after the resyncs (section 9), each kept until confirmed again
            player.send_or_keep(data)
        if not player.identity.guest:
            await self._send_unread(player)
        return player

    async def _send_unread(self, player: OnlinePlayer) -> None:
        """After a welcome: each end the store keeps unread for the player, from the stored game (its
        match may be in no server's memory any more: a restart, a node gone). Those this connection
        got already, as the match ended, are not sent twice."""
        try:
            records = await self.unread.of(player.name)
        except StoreError as error:
            log.warning("store could not read the unread ends: %s", error, extra={"player": player.name})
            return
        for record in records:
            match_id = record.start.match_id
            try:
                data = self.matches.stored_end(record)
            except (EngineError, MatchError, ValueError) as error:  # a record that no longer replays: it stays unread
                log.error("unread end does not replay: %s", error, extra={"match": match_id})
                continue
            player.send_unread(match_id, data, functools.partial(self.unread.read, player.name, match_id))

    def attach(self, session: Session, player: OnlinePlayer) -> None:
        """Make ``session`` the player's without a hello: a cluster's proxy for a player whose
        connection is on another node. Its live matches here resync to it."""
        if self._attach(session, player):
            self.matches.player_returned(player)
        for data in player.take_missed():
            player.send_or_keep(data)
        self.lobby.presence(player)

    def _attach(self, session: Session, player: OnlinePlayer) -> bool:
        """The player's connection is ``session`` now (a previous one is closed as replaced);
        whether the player was already here (connected, or away within its grace)."""
        returning = player.grace is not None or player.session is not None
        previous = player.session
        player.session = session
        session.player = player
        if previous is not None:
            player.connection_lost()  # what the replaced connection did not confirm goes to the new one
            previous.close_replaced()
        if player.grace is not None:
            player.grace.cancel()
            player.grace = None
        return returning

    async def _identify(self, hello: Hello, session: Session) -> OnlinePlayer:
        if hello.token is None and session.cookie is not None:
            account = await self._signed_in(session.cookie)
            if account is not None:
                return self._account_player(account, hello)
        if hello.token is None:
            self.guard.check_new_guest(session)
            new = self.roster.new_guest_identity()
            while self.peers is not None and not await self.peers.claim_guest_name(new.name):
                new = self.roster.new_guest_identity()  # another node's guest has it
            return self.roster.add(new, hello.games)
        guest = self.roster.guest_by_token(hello.token)
        if guest is not None:
            return guest
        if self.peers is not None and (known := await self.peers.guest(hello.token)) is not None:
            guest = self.roster.get(known.name)  # known here if its matches are here
            if guest is None:
                return self.roster.add(known, hello.games, resume_token=hello.token)
            self.roster.set_resume_token(guest, hello.token)
            return guest
        try:
            account = await self.store.authenticate(hello.token)
        except StoreError:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot check tokens right now") from None
        if account is None:
            raise ProtocolError(ErrorCode.AUTH_FAILED, "unknown or revoked token")
        return self._account_player(account, hello)

    async def _signed_in(self, cookie: str) -> Player | None:
        """The account a browser's session cookie is signed in as (None: a guest, as without one)."""
        try:
            return await self.accounts.session(cookie)
        except StoreError:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot check sessions right now") from None

    def _account_player(self, account: Player, hello: Hello) -> OnlinePlayer:
        self.guard.check_player(account.name, account.owner)
        player = self.roster.get(account.name)
        if player is None:
            player = self.roster.add(Identity(account.name, account.kind, False, account.owner), hello.games)
        return player

    # --- connections coming and going ----------------------------------------------------------------
    def opened(self, session: Session) -> bool:
        """A websocket session begins; False if its address is banned (it is closed at once)."""
        return self.guard.opened(session)

    def apply_bans(self, bans: BanList) -> None:
        """A new ban list (bans.py): each banned player's live matches end as its losses, then every
        session of a banned player (or of a bot whose owner is banned) or from a banned network is
        closed (4010), and a banned player away within its grace goes offline."""
        self.guard.bans = bans
        banned = [player for player in self.roster if self.guard.player_banned(player.identity)]
        for player in banned:
            log.info("player banned", extra={"player": player.name, "live_matches": len(player.matches)})
            self.matches.end_banned(player, lambda other: self.guard.player_banned(other.identity))
        for session in self.guard.banned_sessions():
            session.close(CloseCode.BANNED, "banned from this server")
        for player in banned:
            if player.session is None:
                self._leave(player)

    def credentials_ended(self, name: str) -> None:
        """The player's token was rotated or revoked, or its password changed: its live connection
        (here, or on another node of a cluster) is closed (4011). A browser that holds a new
        session comes back as the same account; its live matches wait for it within the grace."""
        player = self.roster.get(name)
        if player is not None and player.session is not None:
            log.info("credentials ended: connection closed", extra={"player": name})
            player.session.close_credentials_ended()
        if self.peers is not None:
            self.peers.credentials_ended(name)

    async def check_revocations(self) -> None:
        """The operator may have revoked someone (``arbiter player revoke``, another process): each
        registered player connected here whose account is revoked now is closed (4011)."""
        for player in self.roster:
            if player.identity.guest or player.session is None:
                continue
            account = await self.store.get_player(player.name)
            if (account is None or account.revoked) and player.session is not None:
                log.info("account revoked: connection closed", extra={"player": player.name})
                player.session.close_credentials_ended()

    def disconnected(self, session: Session) -> None:
        """The session's connection is gone: drop what was tied to it; a player with matches gets a grace."""
        self.guard.closed(session)
        self.analysis.disconnected(session)
        self.matches.drop_spectator(session)
        self.lobby.drop(session)
        player = session.player
        if player is None or player.session is not session:
            return  # never greeted, or replaced by a newer connection
        player.session = None
        left = session.closed_by_client  # it left on purpose: what it did not read is not kept for it
        player.connection_lost(left=left)
        log.info("player disconnected", extra={"player": player.name, "live_matches": len(player.matches)})
        if self.peers is not None:
            self.peers.left(player, session)
        self.challenges.drop_player(player)
        banned = not player.identity.guest and self.guard.bans.player_banned(player.name)
        owed = bool(player.matches) if left else player.owed
        if not owed or banned:  # a banned player is owed nothing: it cannot come back
            player.forgets_ends = left or banned  # nor is an end still on its way to it
            self._leave(player)
            return
        self.start_grace(player)  # also with no live match left, when an end may not have reached it

    def start_grace(self, player: OnlinePlayer) -> None:
        """The player is away from its live matches: it has the reconnect grace to come back."""
        player.grace = Alarm(lambda: self._grace_expired(player), now=self.now)
        player.grace.set(self.now() + self.config.reconnect_grace_s)
        self.lobby.presence(player)
        self.matches.player_left(player, int(self.config.reconnect_grace_s * 1000))

    def _grace_expired(self, player: OnlinePlayer) -> None:
        player.grace = None
        if player.session is None:
            log.info("player did not come back within the grace", extra={"player": player.name})
            self.matches.abandon(player)
            self._leave(player)

    def _leave(self, player: OnlinePlayer) -> None:
        self.roster.remove(player)
        self.lobby.player_offline(player)

    # --- stopping -----------------------------------------------------------------------------------
    async def drain(self, timeout_s: float, hurry: asyncio.Event | None = None) -> None:
        """Stop starting matches, let the live ones finish for up to ``timeout_s`` (less if ``hurry`` is
        set), then end the rest as the restart rule would (``interrupted``), record every end, flush the store.

        Until then everything else goes on: connections stay open and new ones may log in, so a player
        who dropped can come back and finish its match; moves, clocks and reconnect graces run as usual.
        Challenges, accepts and ladder joins are refused with ``unavailable``, and the ladder stops pairing.
        """
        self.draining = True
        for message_class in (Challenge, Accept, LadderJoin):
            self.handlers[message_class] = self._refuse_new_match
        self.ladder.stop_timers()
        self.tournaments.stop_timers()
        log.info("draining", extra={"live_matches": len(self.matches.live), "timeout_s": timeout_s})
        waits: set[asyncio.Future[object]] = {asyncio.ensure_future(self.matches.wait_none_live())}
        if hurry is not None:
            waits.add(asyncio.ensure_future(hurry.wait()))
        await asyncio.wait(waits, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
        for wait in waits:
            wait.cancel()
        if self.matches.live:
            log.info("drain deadline: interrupting the live matches", extra={"live_matches": len(self.matches.live)})
        self.matches.interrupt_all()
        await self.matches.drain()
        started = time.perf_counter()
        try:
            await self.store.flush()
        except StoreError as error:
            log.error("store failed to flush at the end of the drain: %s", error)
        self.metrics.store_write.observe(time.perf_counter() - started)

    def _refuse_new_match(self, session: Session, msg: Request) -> None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "the server is shutting down: no new matches (live ones may finish)")

    def stop_timers(self) -> None:
        """Shutdown: no flag, grace or expiry may fire any more."""
        self.matches.stop_timers()
        self.challenges.stop_timers()
        self.ladder.stop_timers()
        self.tournaments.stop_timers()
        for player in self.roster:
            if player.grace is not None:
                player.grace.cancel()

    # --- small requests ------------------------------------------------------------------------------
    def on_ping(self, session: Session, msg: Ping) -> None:
        session.reply(msg, {"type": "pong", "time_ms": int(time.time() * 1000)})
