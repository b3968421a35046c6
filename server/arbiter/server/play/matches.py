"""Live matches: starting them, routing match requests, fanning out events, flag and grace timers,
and finishing each with the store (ratings computed by ``rate_result``) before its end is announced.

``LiveMatch`` binds one pure ``Match`` to its two players, its spectators and its flag alarm.
Each event is encoded once and the same bytes go to every recipient. What the matches need of the
rest of the server is passed in: settings, the store, the metrics, the lobby to tell, the clock.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from arbiter.engine import Game, create_game
from arbiter.protocol.codec import encode
from arbiter.protocol.errors import ErrorCode, ProtocolError
from arbiter.protocol.messages import (
    Abort,
    AcceptDraw,
    DeclineDraw,
    MakeMove,
    MatchRequest,
    OfferDraw,
    Request,
    Resign,
    Spectate,
    Swap,
    Sync,
    Unspectate,
)
from arbiter.protocol.move_frames import MoveFrame
from arbiter.server.store.base import (
    GameRecord,
    GameStart,
    MoveRecord,
    RefusedMove,
    Store,
    StoreError,
    resignation_code,
)

from ..basics.clock import Alarm, ClockSpec
from ..config import ServerConfig
from ..metrics import ServerMetrics
from ..results.rating_updates import rate_result
from ..results.unread_ends import UnreadEnds
from .lobby import Lobby
from .match import Match, MatchError, Result
from .players import OnlinePlayer
from .session import Handler, Session
from .swap_opening import SWAP_FEATURE, SwapOpening, choose, opening_of, place, stored_choices, stored_seats
from .swap_opening import resume as resume_swap

log = logging.getLogger("arbiter.server")
GUEST_LABEL = "guest"  # registered names cannot take it: check_player_name refuses guest-like names


def metric_label(player: OnlinePlayer) -> str:
    """A player as a metric's label: registered players by name, every guest as one ``guest`` (a
    label per generated guest name would grow the metrics page without bound)."""
    return GUEST_LABEL if player.identity.guest else player.name


class LiveMatch:
    __slots__ = (
        "alarm", "analysis_delay", "announced", "infos", "levels", "match", "players", "pool", "spectators", "swap",
    )  # fmt: skip

    def __init__(
        self,
        match: Match,
        players: tuple[OnlinePlayer, OnlinePlayer],
        on_flag: Callable[[LiveMatch], None],
        now: Callable[[], float],
    ) -> None:
        self.match = match
        self.players = players
        self.spectators: set[Session] = set()
        self.alarm = Alarm(lambda: on_flag(self), now=now)
        self.announced = False  # match_start has been sent
        self.levels: list[int | None] = [None, None]  # by colour: the level a challenge asked of a bot
        self.pool = ""  # its rating pool (pools.py), set when it starts
        self.infos: list[dict[str, Any] | None] = []  # each move's analysis (move.info), for spectators
        # Plies spectators wait for a move's analysis (None: until the game is over): rated matches only.
        self.analysis_delay: int | None = 0
        # A swap opening's phase (swap_opening.py): until it is done, colours are seats.
        self.swap: SwapOpening | None = opening_of(match)

    @property
    def id(self) -> str:
        return self.match.id

    def color_of(self, player: OnlinePlayer | None) -> int | None:
        if self.players[0] is player:
            return 0
        if self.players[1] is player:
            return 1
        return None

    def broadcast(self, data: bytes, spectators_data: bytes | None = None) -> None:
        """Send to both players (if connected) and every spectator (``spectators_data`` instead, if given)."""
        for player in self.players:
            if player.session is not None:
                player.session.send(data)
        for spectator in self.spectators:
            spectator.send(data if spectators_data is None else spectators_data)

    def summary(self) -> dict[str, Any]:
        """The match as listed in the lobby."""
        match = self.match
        return {
            "match": match.id,
            "game": match.game.name,
            "params": match.game.params,
            "players": [p.name for p in self.players],
            "clock": match.clock_spec.describe(),
            "rated": match.rated,
        }

    def state_message(self, color: int | None, now: float) -> dict[str, Any]:
        """A full snapshot: what a spectator or a returning player needs to carry on."""
        match = self.match
        return {
            "type": "match_state",
            "match": match.id,
            "game": match.game.name,
            "params": match.game.params,
            "players": [p.identity.describe() for p in self.players],
            "color": color,
            "clock": match.clock_spec.describe(),
            "clocks": match.clocks_ms(now),
            "rated": match.rated,
            "moves": list(match.moves),
            "ply": match.ply,
            "opening": match.opening,
            "to_move": match.to_move,
            "draw_offer": match.draw_offer,
            "connected": [p.connected for p in self.players],
            "levels": self.levels,
            **({"forbidden": forbidden} if (forbidden := match.forbidden()) else {}),
            **({} if self.swap is None else {"swap": self.swap.describe()}),
            **({} if color is not None or not any(released := self.released_infos()) else {"infos": released}),
        }

    def released_infos(self) -> list[dict[str, Any] | None]:
        """The analyses spectators may see by now: every move's but the last ``analysis_delay``."""
        delay = self.analysis_delay
        if delay is None:
            return []
        return self.infos if delay == 0 else self.infos[: max(0, len(self.infos) - delay)]


def check_features(game: Game, players: tuple[OnlinePlayer, ...]) -> None:
    """ProtocolError(feature_needed) if ``game`` needs a protocol feature one of ``players`` lacks."""
    if game.params.get("opening", "none") == "none":
        return
    for player in players:
        if SWAP_FEATURE not in player.features:
            raise ProtocolError(
                ErrorCode.FEATURE_NEEDED,
                f'{player.name}\'s client does not announce the swap openings (hello.features: ["swap"])',
            )


# Writes an accepted move outside this node, then calls back to announce it (a cluster's: node.py).
MoveJournal = Callable[[LiveMatch, MoveRecord, Callable[[], None]], None]


class Matches:
    """Every live match by id, and the ids of recently ended ones."""

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        metrics: ServerMetrics,
        lobby: Lobby,
        unread: UnreadEnds,
        *,
        now: Callable[[], float],
    ) -> None:
        self.config = config
        self.store = store
        self.unread = unread
        self.metrics = metrics
        self.lobby = lobby
        self.now = now
        self._move_meter = metrics.moves  # counted on every move: one lookup fewer
        self._max_lag_credit = config.max_lag_credit_ms / 1000
        self.live: dict[str, LiveMatch] = {}
        self._ended: OrderedDict[str, None] = OrderedDict()
        self._finishing: set[asyncio.Task[None]] = set()
        self._none_live: asyncio.Future[None] | None = None  # set when the last live match ends (drain)
        # Called after each end is recorded and announced (the ladder frees its players there).
        self.end_listeners: list[Callable[[LiveMatch, Result, dict[str, float]], None]] = []
        # Called when a match goes live here, before anyone hears of it (a cluster records its owner).
        self.live_listeners: list[Callable[[LiveMatch], None]] = []
        # A cluster's (``join_cluster``): writes an accepted move outside this node, then calls back
        # to announce it, so a move any player has seen survives the node (None: announced at once).
        self.move_journal: MoveJournal | None = None

    def join_cluster(self, move_journal: MoveJournal) -> None:
        """This server is a node of a cluster: each accepted move is announced once ``move_journal`` has it."""
        self.move_journal = move_journal

    def handlers(self) -> dict[type[Request], Handler]:
        return {
            MakeMove: self.on_move,
            Resign: self.on_resign,
            Abort: self.on_abort,
            OfferDraw: self.on_offer_draw,
            AcceptDraw: self.on_accept_draw,
            DeclineDraw: self.on_decline_draw,
            Spectate: self.on_spectate,
            Unspectate: self.on_unspectate,
            Sync: self.on_sync,
            Swap: self.on_swap,
        }

    def of(self, player: OnlinePlayer) -> list[LiveMatch]:
        """The player's live matches, oldest first."""
        return [self.live[match_id] for match_id in player.matches]

    def summaries(self) -> list[dict[str, Any]]:
        """The live matches as the lobby lists them (announced ones only)."""
        return [live.summary() for live in self.live.values() if live.announced]

    # --- starting ----------------------------------------------------------------------------------
    async def start(
        self,
        players: tuple[OnlinePlayer, OnlinePlayer],
        game: Game,
        clock: ClockSpec,
        *,
        rated: bool,
        levels: tuple[int | None, int | None] = (None, None),
        challenge: str | None = None,
        opening: list[Any] | None = None,
    ) -> LiveMatch:
        """Create a match (players[0] moves first), record its start, then announce it and start the clock.

        The caller has checked both players' match limits. ProtocolError(unavailable) if the store fails.
        """
        check_features(game, players)
        match_id = secrets.token_urlsafe(6)
        while match_id in self.live or match_id in self._ended:
            match_id = secrets.token_urlsafe(6)
        match = Match(match_id, game, clock, rated=rated)
        match.open_with(opening or [])
        live = LiveMatch(match, players, self._on_flag, self.now)
        live.infos = [None] * match.opening  # book moves carry no analysis
        live.analysis_delay = self.config.analysis_delay_plies if rated else 0
        live.levels = list(levels)
        self.live[match_id] = live
        for player in players:
            player.matches.append(match_id)
        start = GameStart(match_id, game.name, dict(game.params), (players[0].name, players[1].name),
                          clock.describe(), rated, time.time(), levels=levels, opening=match.opening)  # fmt: skip
        live.pool = start.pool
        try:
            await self.store.start_game(start)
            for ply, wire in enumerate(match.moves):  # the opening, stored like any move (no time spent)
                self.store.record_move(match_id, MoveRecord(ply, wire, 0))
            if self.config.cluster_url is not None:
                # A node of a cluster announces a match only once it is stored: were the node to
                # die, another would find the match there and go on with it.
                await self.store.flush()
        except StoreError as error:
            log.error("store failed to start the match: %s", error, extra={"match": match_id})
            self._forget(live)
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot record games right now") from None
        if match.over or match_id not in self.live:
            return live
        now = self.now()
        self._credit_lag(live, 0)
        self._credit_lag(live, 1)
        match.start(now)
        live.announced = True
        for listener in self.live_listeners:
            listener(live)
        message: dict[str, Any] = {
            "type": "match_start",
            "match": match_id,
            "game": game.name,
            "params": game.params,
            "players": [p.identity.describe() for p in players],
            "color": 0,
            "clock": clock.describe(),
            "clocks": match.clocks_ms(now),
            "rated": rated,
            "to_move": match.to_move,
            "levels": live.levels,
            "challenge": challenge,  # the challenge or seek it came from (None: the ladder)
            "moves": list(match.moves),  # a balanced opening already played (ladder bot games), else []
        }
        if live.swap is not None:
            message["swap"] = live.swap.describe()
        for color, player in enumerate(players):
            message["color"] = color
            player.send(encode(message))
        self._arm(live)
        self.lobby.match_listed(live.summary())
        self._counts_changed(live)
        log.info(
            "match started",
            extra={"match": match_id, "game": game.name, "players": [p.name for p in players], "rated": rated},
        )
        return live

    def adopt(
        self, record: GameRecord, players: tuple[OnlinePlayer, OnlinePlayer], *, charged_s: float = 0.0
    ) -> LiveMatch:
        """Take over a live match from its stored record (a cluster's failover: the node playing
        it died or left). Its moves replay with the time each took; the side to move is charged
        ``charged_s`` of its turn so far. A record whose moves already end the game is ended (and
        recorded) at once. MatchError if the record does not replay."""
        start = record.start
        match, swap = self._replayed(record, charged_s)
        live = LiveMatch(match, players, self._on_flag, self.now)
        live.swap = swap  # the phase as the replay left it
        live.infos = [move.info for move in record.moves]
        live.analysis_delay = self.config.analysis_delay_plies if start.rated else 0
        live.levels = list(start.levels)
        live.pool = start.pool
        live.announced = True
        self.live[match.id] = live
        for listener in self.live_listeners:
            listener(live)
        for player in players:
            player.matches.append(match.id)
        if match.over:
            self.end(live)
            return live
        self._arm(live)
        self.lobby.match_listed(live.summary())
        self._counts_changed(live)
        log.info("match adopted", extra={"match": match.id, "ply": match.ply, "players": [p.name for p in players]})
        return live

    def _replayed(self, record: GameRecord, charged_s: float = 0.0) -> tuple[Match, SwapOpening | None]:
        """The match of a stored record, its moves (and a swap opening's choices) replayed with the
        time each took, and its swap opening's phase (MatchError if they do not replay)."""
        start = record.start
        game = create_game(start.game, start.params)
        match = Match(start.match_id, game, ClockSpec.from_description(start.clock), rated=start.rated)
        stored = [(move.move, move.elapsed_ms) for move in record.moves]
        match.open_with([wire for wire, _ in stored[: start.opening]])
        swap = opening_of(match)
        if swap is None:
            match.resume(stored[start.opening :], self.now(), charged_s=charged_s)
        else:
            choices = stored_choices(record.swap, stored_seats(record.swap, start.players))
            resume_swap(match, swap, stored, choices, self.now(), charged_s=charged_s)
        return match, swap

    def stored_end(self, record: GameRecord) -> bytes:
        """The ``end`` of a match that ended on a node that died before its players heard it."""
        return encode(
            {
                "type": "end",
                "match": record.start.match_id,
                "result": record.result,
                "winner": {"1-0": 0, "0-1": 1}.get(record.result or ""),
                "reason": record.reason or "interrupted",
                "clocks": self._replayed(record)[0].clocks_ms(self.now()),
                "ply": len(record.moves),
                "rating_changes": record.rating_changes,
            }
        )

    # --- requests from clients ---------------------------------------------------------------------
    def on_move(self, session: Session, msg: MakeMove | MoveFrame) -> None:
        # The server's hottest path (benchmarks/move_path.py): locals, and nothing built that is not sent or kept.
        live = self.live.get(msg.match)
        if live is None or not live.announced:
            raise self._missing(msg.match)
        color = live.color_of(session.player)
        if color is None:
            raise ProtocolError(ErrorCode.NOT_A_PLAYER, "only the match's players may move")
        match = live.match
        self._credit_lag(live, 1 - color)  # moves alternate: the opponent's clock is the next to start
        swap = live.swap
        try:
            if swap is None or swap.done:
                played = match.play(color, msg.ply, msg.move, session.received_at)
            else:  # a swap opening's stone: the placer may move again
                self._credit_lag(live, color)
                played = place(match, swap, color, msg.ply, msg.move, session.received_at)
        except MatchError as error:
            self._record_refusal(live, color, msg.move, error.code.value)
            if match.over:  # the move came after the flag fell: the match ended on time
                self.end(live)
            raise
        moved = {
            "type": "moved",
            "match": match.id,
            "ply": played.ply,
            "move": played.move,
            "by": color,
            "clocks": played.clocks_ms,
            "elapsed_ms": played.elapsed_ms,
        }
        if match.renju and (forbidden := match.forbidden()):  # black to move next: what its board marks
            moved["forbidden"] = forbidden
        if swap is not None and played.ply < swap.stones:
            moved["swap"] = swap.describe()
        info = msg.info
        live.infos.append(info)
        if info is not None and "fallback" in info:
            self.metrics.fallbacks.labels(metric_label(live.players[color]), info["fallback"]).inc()
        # The analysis is for spectators; the opponent sees it after the game, in the record. Any
        # connection may watch, the opponent's second one too: in a rated match spectators get each
        # analysis only ``analysis_delay`` plies later (as broadcasts delay a game against side channels).
        delay = live.analysis_delay
        if delay == 0:
            frames: tuple[bytes, ...] = (
                (encode(moved),) if info is None else (encode(moved), encode({**moved, "info": info}))
            )
        elif delay is not None and played.ply >= delay and (earlier := live.infos[played.ply - delay]) is not None:
            frames = (encode(moved), encode({**moved, "analysis": {"ply": played.ply - delay, "info": earlier}}))
        else:
            frames = (encode(moved),)
        record = MoveRecord(played.ply, played.move, played.elapsed_ms, info)
        if self.move_journal is None:
            live.broadcast(*frames)
        else:
            self.move_journal(live, record, lambda: self._announce(live, frames))
        now = self.now()
        self._move_meter.accepted(now - session.received_at, now)
        if log.isEnabledFor(logging.DEBUG):  # nothing built for a record nobody keeps
            log.debug(
                "move",
                extra={
                    "match": live.id,
                    "player": live.players[color].name,
                    "ply": played.ply,
                    "move": played.move,
                    "elapsed_ms": played.elapsed_ms,
                },
            )
        try:
            self.store.record_move(match.id, record)
        except Exception:  # the store must never block play; its own error handling reports the failure
            log.exception("store failed to queue a move", extra={"match": live.id})
        if not match.over:
            self._arm(live)
        elif self.move_journal is None:
            self.end(live)  # (journaled: once the last move is announced, so `moved` comes before `end`)

    def _record_refusal(self, live: LiveMatch, color: int, wire: Any, code: str) -> None:
        """Queue a refused move for its player's failure report (bounded per game by the store)."""
        try:
            self.store.record_refusal(live.id, RefusedMove.of(live.match.ply, color, wire, code, time.time()))
        except Exception:  # the store must never block play; its own error handling reports the failure
            log.exception("store failed to queue a refused move", extra={"match": live.id})

    def _announce(self, live: LiveMatch, frames: tuple[bytes, ...]) -> None:
        """A journaled move is safe outside this node: its ``moved`` goes out (and the end, if it ended the match)."""
        live.broadcast(*frames)
        if live.match.over and self.live.get(live.id) is live:
            self.end(live)

    def on_resign(self, session: Session, msg: Resign) -> None:
        live, color = self._acting(session, msg)
        live.match.resign(color, self.now())
        if msg.cause is not None:
            self.metrics.resignations.labels(metric_label(live.players[color]), msg.cause).inc()
            if msg.cause != "drain":  # an engine's failure: its player's failure report says which
                self._record_refusal(live, color, None, resignation_code(msg.cause))
        session.ok(msg)
        self.end(live)

    def on_abort(self, session: Session, msg: Abort) -> None:
        live, color = self._acting(session, msg)
        live.match.abort(color, self.now())
        session.ok(msg)
        self.end(live)

    def on_offer_draw(self, session: Session, msg: OfferDraw) -> None:
        live, color = self._acting(session, msg)
        result = live.match.offer_draw(color, self.now())
        session.ok(msg)
        if result is not None:
            self.end(live)
        else:
            live.broadcast(encode({"type": "draw_offered", "match": live.id, "by": color}))

    def on_accept_draw(self, session: Session, msg: AcceptDraw) -> None:
        live, color = self._acting(session, msg)
        live.match.accept_draw(color, self.now())
        session.ok(msg)
        self.end(live)

    def on_decline_draw(self, session: Session, msg: DeclineDraw) -> None:
        live, color = self._acting(session, msg)
        live.match.decline_draw(color)
        session.ok(msg)
        live.broadcast(encode({"type": "draw_declined", "match": live.id, "by": color}))

    async def on_swap(self, session: Session, msg: Swap) -> None:
        """A decision of a swap opening: announced to all as ``swapped``; settling the colours puts
        the players in colour order. Each choice is recorded (on a cluster's node durably before it
        is announced, as a move is journaled: another node adopting the match replays the phase)."""
        live, seat = self._acting(session, msg)
        swap = live.swap
        if swap is None:
            raise ProtocolError(ErrorCode.SWAP_PHASE, f"{live.match.game.name} here has no swap opening")
        self._credit_lag(live, 0)
        self._credit_lag(live, 1)
        match = live.match
        try:
            choose(match, swap, seat, msg.choice, session.received_at)
        except MatchError:
            if match.over:  # the choice came after the flag fell
                self.end(live)
            raise
        if swap.swapped:
            live.players = (live.players[1], live.players[0])
            live.levels.reverse()
        seats = live.players[::-1] if swap.swapped else live.players
        choices = [{**c.describe(), "by": seats[c.by].name} for c in swap.choices]
        try:
            self.store.record_swap(live.id, choices, swapped=swap.swapped)
            if self.config.cluster_url is not None:
                await self.store.flush()
        except Exception:  # the store must never block play; its own error handling reports the failure
            log.exception("store failed to record a swap opening's choice", extra={"match": live.id})
        session.ok(msg)
        if self.live.get(live.id) is not live:  # it ended while the choice was being written
            return
        now = self.now()
        live.broadcast(
            encode(
                {
                    "type": "swapped",
                    "match": live.id,
                    "by": seat,
                    "choice": msg.choice,
                    "swap": swap.describe(),
                    "players": [p.identity.describe() for p in live.players],
                    "levels": live.levels,
                    "clocks": match.clocks_ms(now),
                    "to_move": match.to_move,
                }
            )
        )
        if swap.done:
            self.lobby.match_listed(live.summary())  # the players in their colours' order
        self._arm(live)

    def on_spectate(self, session: Session, msg: Spectate) -> None:
        live = self._find(msg.match)
        color = live.color_of(session.player)
        if color is None and live.id not in session.spectating:
            if len(session.spectating) >= self.config.max_spectated:
                raise ProtocolError(ErrorCode.TOO_MANY_SPECTATED, "this connection watches too many matches")
            if len(live.spectators) >= self.config.max_spectators:
                raise ProtocolError(ErrorCode.TOO_MANY_SPECTATED, "this match has as many spectators as it takes")
            live.spectators.add(session)
            session.spectating.add(live.id)
        session.reply(msg, live.state_message(color, self.now()))

    def on_unspectate(self, session: Session, msg: Unspectate) -> None:
        live = self.live.get(msg.match)
        if live is not None:
            live.spectators.discard(session)
        session.spectating.discard(msg.match)
        session.ok(msg)

    def on_sync(self, session: Session, msg: Sync) -> None:
        live = self._find(msg.match)
        color = live.color_of(session.player)
        if color is None and session not in live.spectators:
            raise ProtocolError(ErrorCode.NOT_A_PLAYER, "sync is for players and spectators; spectate first")
        session.reply(msg, live.state_message(color, self.now()))

    # --- connections coming and going ----------------------------------------------------------------
    def drop_spectator(self, session: Session) -> None:
        for match_id in session.spectating:
            live = self.live.get(match_id)
            if live is not None:
                live.spectators.discard(session)
        session.spectating.clear()

    def player_left(self, player: OnlinePlayer, grace_ms: int) -> None:
        for live in self.of(player):
            if live.announced:
                color = live.color_of(player)
                live.broadcast(encode({"type": "player_left", "match": live.id, "color": color, "grace_ms": grace_ms}))

    def player_returned(self, player: OnlinePlayer) -> None:
        """Resync the returning player's matches, and tell everyone in them it is back."""
        now = self.now()
        for live in self.of(player):
            if live.announced:
                color = live.color_of(player)
                player.send(encode(live.state_message(color, now)))
                live.broadcast(encode({"type": "player_returned", "match": live.id, "color": color}))

    def abandon(self, player: OnlinePlayer) -> None:
        """The player's grace ran out: each of its live matches is adjudicated."""
        now = self.now()
        for live in self.of(player):
            color = live.color_of(player)
            assert color is not None
            if live.match.flag(now) is None:
                opponent = live.players[1 - color]
                live.match.abandon(color, now, opponent_present=opponent.connected)
            self.end(live)

    def end_banned(self, player: OnlinePlayer, banned: Callable[[OnlinePlayer], bool]) -> None:
        """``player`` was banned: each of its live matches ends now as its loss (``banned``), unless its flag fell."""
        now = self.now()
        for live in self.of(player):
            color = live.color_of(player)
            assert color is not None
            if live.match.flag(now) is None:
                live.match.ban(color, now, opponent_banned=banned(live.players[1 - color]))
            self.end(live)

    # --- ending ---------------------------------------------------------------------------------------
    def end(self, live: LiveMatch) -> None:
        """The match is over: stop its timers, unlist it, then record and announce its end."""
        result = live.match.result
        assert result is not None
        self._forget(live)
        self.lobby.match_unlisted(live.id, result.result, result.reason)
        self._counts_changed(live)
        for player in live.players:
            player.ending += 1  # it stays known while away until its end is sent (hub.disconnected)
        task = asyncio.get_running_loop().create_task(self._finish(live, result, time.time()))
        self._finishing.add(task)
        task.add_done_callback(self._finishing.discard)

    async def _finish(self, live: LiveMatch, result: Result, ended: float) -> None:
        started = time.perf_counter()
        stored = True  # the store keeps the end unread for each registered player (unread_ends.py)
        try:
            changes = await self.store.finish_game(live.id, result.result, result.reason, ended, rate_result)
        except StoreError as error:
            # The store keeps the end and writes (and rates) it later, or the restart rule does:
            # announcing it now loses nothing, only the rating changes are not known yet.
            log.error("store failed to record the end: %s", error, extra={"match": live.id})
            changes = {}
            stored = False
        # finish_game commits the queued moves with the end: the store's write latency as the server sees it.
        self.metrics.store_write.observe(time.perf_counter() - started)
        if result.reason == "abort" and any(p.identity.guest for p in live.players):
            # Guests may start and abort games as fast as they like: such a game is not kept.
            stored = False
            try:
                await self.store.discard_game(live.id)
            except StoreError as error:
                log.warning("store kept an aborted guest game: %s", error, extra={"match": live.id})
        log.info(
            "match ended",
            extra={
                "match": live.id,
                "players": [p.name for p in live.players],
                "result": result.result,
                "reason": result.reason,
                "ply": live.match.ply,
                "rating_changes": changes,
            },
        )
        data = encode(
            {
                "type": "end",
                "match": live.id,
                "result": result.result,
                "winner": result.winner,
                "reason": result.reason,
                "clocks": live.match.clocks_ms(self.now()),
                "ply": live.match.ply,
                "rating_changes": changes,
            }
        )
        for player in live.players:
            player.ending -= 1
            if stored and not player.identity.guest:
                player.send_unread(live.id, data, functools.partial(self.unread.read, player.name, live.id))
            else:
                player.send_or_keep(data)
        for spectator in live.spectators:
            spectator.send(data)
            spectator.spectating.discard(live.id)
        live.spectators.clear()
        for listener in self.end_listeners:
            listener(live, result, changes)

    async def drain(self) -> None:
        """Wait for every end being recorded (server shutdown)."""
        while self._finishing:
            await asyncio.gather(*self._finishing)

    async def wait_none_live(self) -> None:
        """Return once no match is live (a drain: no new one starts meanwhile)."""
        while self.live:
            self._none_live = asyncio.get_running_loop().create_future()
            await self._none_live

    def interrupt_all(self) -> None:
        """End every live match now: on time if its flag is down, else voided as ``interrupted`` (what the
        restart rule would make of it after a crash: a live match's moves never end it)."""
        now = self.now()
        for live in list(self.live.values()):
            if live.match.flag(now) is None:
                live.match.interrupt(now)
            self.end(live)

    def stop_timers(self) -> None:
        for live in self.live.values():
            live.alarm.cancel()

    # --- helpers --------------------------------------------------------------------------------------
    def _arm(self, live: LiveMatch) -> None:
        deadline = live.match.deadline()
        if deadline is not None:
            live.alarm.set(deadline)

    def _credit_lag(self, live: LiveMatch, color: int) -> None:
        """The network allowance of ``color`` for its next turn: its round trip, up to the server's bound."""
        session = live.players[color].session
        rtt = 0.0 if session is None else session.latency
        bound = self._max_lag_credit
        live.match.lag[color] = bound if rtt > bound else rtt if rtt > 0.0 else 0.0

    def _on_flag(self, live: LiveMatch) -> None:
        if live.match.flag(self.now()) is not None:
            self.end(live)
        elif not live.match.over:
            self._arm(live)

    def _counts_changed(self, live: LiveMatch) -> None:
        """The match was listed or unlisted: its players' entries count their matches again."""
        for player in live.players:
            self.lobby.playing_changed(player)

    def _forget(self, live: LiveMatch) -> None:
        live.alarm.cancel()
        if self.live.pop(live.id, None) is not None:
            self._ended[live.id] = None
            if len(self._ended) > self.config.finished_ids_kept:
                self._ended.popitem(last=False)
            if not self.live and self._none_live is not None and not self._none_live.done():
                self._none_live.set_result(None)
        for player in live.players:
            if live.id in player.matches:
                player.matches.remove(live.id)

    def _missing(self, match_id: str) -> ProtocolError:
        if match_id in self._ended:
            return ProtocolError(ErrorCode.MATCH_OVER, f"match {match_id} is over")
        return ProtocolError(ErrorCode.UNKNOWN_MATCH, f"no match {match_id!r}")

    def _find(self, match_id: str) -> LiveMatch:
        live = self.live.get(match_id)
        if live is None or not live.announced:
            raise self._missing(match_id)
        return live

    def _acting(self, session: Session, msg: MatchRequest) -> tuple[LiveMatch, int]:
        live = self._find(msg.match)
        color = live.color_of(session.player)
        if color is None:
            raise ProtocolError(ErrorCode.NOT_A_PLAYER, "only the match's players may do that")
        return live, color
