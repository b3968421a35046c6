"""The bot client's core: server messages in, requests and decisions to make out. No sockets, no tasks.

``ClientCore`` holds everything a bot knows of its connection and its matches (the live games,
the requests awaiting replies, the send pacing, the drain) as plain data, and reacts to each
input by returning *effects* for its adapter (connection.py) to carry out:

- ``Send``: a request to write to the server (already numbered; pace it with ``core.pacer``);
- ``Think``: a move to find for a match's ply, with the time plan and the request for the pool;
- ``Started`` / ``Over``: a match began, or ended (with its record, or None if it ended away);
- ``Replied``: the reply to a request made through ``core.request`` by someone outside;
- ``Notice``: a message the core has no use for (a subclass hook may);
- ``Retract``: a match was taken back: drop its search (the running Think, the pool's memory of it);
- ``Suggest``: a move to find for the opponent's turn, a hint it asked for, answered with ``hinted``.

Inputs are server messages (typed, from ``arbiter.protocol.server_messages``), the decisions the
adapter found, and the connection's life (``hello``, ``welcomed``, ``disconnected``, the drain).
Every input carries ``now`` (seconds on the adapter's monotonic clock), so the core never reads a
clock and a test drives it with messages and numbers alone.
"""

from __future__ import annotations

import itertools
import logging
import time
import zlib
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from arbiter.engine import EngineError, Game, State, create_game
from arbiter.protocol.ladder import LadderJoin, LadderLeave
from arbiter.protocol.learning import (
    AcceptTakeback,
    DeclineTakeback,
    HintAnswer,
    HintRequest,
    TakebackOffered,
    TakenBack,
)
from arbiter.protocol.messages import (
    PROTOCOL_VERSION,
    Accept,
    Decline,
    DeclineDraw,
    Hello,
    MakeMove,
    Ping,
    Request,
    Resign,
    Swap,
    Sync,
)
from arbiter.protocol.server_messages import (
    ChallengeOffered,
    DrawOffered,
    End,
    Error,
    MatchStart,
    MatchState,
    Moved,
    Ok,
    ServerMessage,
    Swapped,
    Welcome,
)
from arbiter.protocol.tournaments import TournamentEnter

from ..brain import ThinkRequest
from ..timeman import TimePlan, moves_left
from .settings import BotSettings

log = logging.getLogger("arbiter.bots")

SWAP_FEATURE = "swap"  # hello.features: this client plays the swap openings (SPEC.md section 17)
FINISHED_KEPT = 1000  # records of finished games kept in memory (the game log keeps them all)


# --- effects ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Send:
    """A request for the server, numbered: pace it (``ClientCore.pacer``) and write it."""

    message: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Think:
    """Find the move for ``ply`` of ``match``: ``request`` for the pool, by ``deadline`` (adapter clock).

    ``alone`` says no other match is thinking (a root-parallel brain may use every worker);
    ``state`` is the position, the adapter's own copy, to check the answer's legality."""

    match: str
    ply: int
    request: ThinkRequest
    plan: TimePlan
    deadline: float
    latency: float
    state: State
    alone: bool


@dataclass(frozen=True, slots=True)
class Started:
    live: LiveGame


@dataclass(frozen=True, slots=True)
class Over:
    """The match ended: ``record`` is what the bot logs of it, None if it ended while the bot was away."""

    match: str
    record: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class Replied:
    request_id: int
    message: ServerMessage


@dataclass(frozen=True, slots=True)
class Notice:
    message: ServerMessage


@dataclass(frozen=True, slots=True)
class Retract:
    match: str


@dataclass(frozen=True, slots=True)
class Suggest:
    """Find a hint for the opponent's move ``ply`` of ``match`` (``request`` for the pool), then call
    ``ClientCore.hinted``; ``state`` is the position, to check the suggestion's legality."""

    match: str
    ply: int
    request: ThinkRequest
    state: State


Effect = Send | Think | Started | Over | Replied | Notice | Retract | Suggest


@dataclass(frozen=True, slots=True)
class Decision:
    """What the adapter found for a Think: the move, its analysis for ``move.info``, and the
    decision's entry in the game's record (budget, time used, source)."""

    move: Any
    analysis: dict[str, Any] | None
    entry: dict[str, Any]
    fallback: str = ""  # "" for the search's own move, else the cause (deadline, pool, illegal, random)
    resign: str = ""  # a cause (crash, timeout, illegal_move, protocol_error): no move, the match is resigned


# --- pacing -----------------------------------------------------------------------------------
@dataclass
class TokenBucket:
    """The server's per-connection rate limit (welcome.limits) as a token bucket, kept from below.

    Frames past the server's limit are dropped, and a dropped move stalls its match until the
    clock runs out, so each send first takes a token: ``delay(now)`` reserves one and says how long
    to wait for it. Reservations queue up (the bucket goes negative), so sends keep their order.
    """

    rate: float = 100.0
    burst: float = 100.0
    tokens: float = 100.0
    last: float = 0.0

    def delay(self, now: float) -> float:
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.last) * self.rate)
        self.last = now
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


# --- the matches ------------------------------------------------------------------------------
@dataclass
class LiveGame:
    """What the client knows of one of its matches; the server's messages are the only truth."""

    id: str
    game: Game
    color: int
    players: list[str]
    clock: dict[str, Any]
    rated: bool
    state: State
    level: int | None = None  # the level its challenge asked of this bot (None: the pool's own)
    moves: list[Any] = field(default_factory=list)
    clocks: list[int] = field(default_factory=lambda: [0, 0])
    turn_received: float = 0.0  # adapter time at which the message giving the current turn arrived
    thinking_ply: int = -1  # the ply a Think is out for (-1: none)
    ready: dict[int, Any] = field(default_factory=dict)  # ply → a move computed for it
    analyses: dict[int, dict[str, Any]] = field(default_factory=dict)  # ply → its search's analysis (move.info)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    resyncs: int = 0
    resigned: str | None = None  # the cause, once the bot resigned it for one
    swap: dict[str, Any] | None = None  # a swap opening's phase (the protocol's swap field); color is a seat until done

    @property
    def in_swap(self) -> bool:
        return self.swap is not None and self.swap["phase"] != "done"

    @property
    def our_turn(self) -> bool:
        if self.state.is_terminal:
            return False
        if self.in_swap:
            assert self.swap is not None
            return self.swap["to_act"] == self.color
        return self.state.to_move == self.color

    @property
    def turn_key(self) -> int:
        """What a decision is kept under: the ply of a move, or minus the ply for a swap choice."""
        choosing = self.in_swap and self.swap is not None and self.swap["phase"] == "choose"
        return -len(self.moves) if choosing else len(self.moves)

    def replay(self, moves: list[Any]) -> None:
        """Rebuild the position from the server's move list."""
        state = self.game.new_state()
        for move in moves:
            state.play(self.game.decode_move(move))
        self.state = state
        self.moves = list(moves)


@dataclass(frozen=True, slots=True)
class _Pending:
    """What a numbered request was, so its reply finds its way: a kind and what it concerned."""

    kind: str  # accept, ladder, tournament, move, plain, external, ended_away
    match: str = ""
    ply: int = -1
    matches: tuple[str, ...] = ()


class ClientCore:
    """The bot's state and its reactions (see the module docstring). ``levels`` are the brain's."""

    def __init__(self, settings: BotSettings, *, levels: int, token: str) -> None:
        self.settings = settings
        self.levels = levels
        self.token = token
        self.name: str | None = None
        self.games: dict[str, LiveGame] = {}
        self.finished: deque[dict[str, Any]] = deque(maxlen=FINISHED_KEPT)  # the last games' records, as logged
        self.finished_count = 0  # games finished since the core was made
        self.fallbacks: Counter[str] = Counter()  # moves that were not the search's, by cause
        self.resignations: Counter[str] = Counter()  # matches the bot gave up, by cause (resign.cause)
        self.connections = 0  # welcomed connections so far
        self.connected = False
        self.latency = 0.0  # the last measured round trip, seconds (the adapter keeps it current)
        self.pacer = TokenBucket()
        self.draining = False
        self.drain_deadline: float | None = None  # when a drain resigns what is still live
        self.drained = False  # the drain is over: resigned matches ended (or their wait passed)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._move_requests: dict[tuple[str, int], int] = {}  # (match, ply) → the id of the move sent
        self._accepting = 0

    # --- the connection -----------------------------------------------------------------------
    def hello(self) -> dict[str, Any]:
        """The first message of a connection."""
        return (
            Hello(
                id=next(self._ids),
                protocol=PROTOCOL_VERSION,
                client=self.settings.client_name,
                token=self.token,
                games=list(self.settings.games),
                levels=self.levels,
                capacity=self.settings.announced_capacity,
                takebacks=self.settings.takebacks,
                hints=self.settings.hints,
                features=[SWAP_FEATURE],
            )
        ).wire()

    def welcomed(self, welcome: Welcome, now: float) -> list[Effect]:
        """The server took the bot: rate limits, the matches that ended while away, the ladder."""
        self.name = welcome.player["name"]
        self.connections += 1
        self.connected = True
        limits = welcome.limits
        rate, burst = 0.8 * limits.get("rate_per_s", 100.0), max(1.0, 0.5 * limits.get("rate_burst", 100.0))
        self.pacer = TokenBucket(rate, burst, burst, now)
        resumed = set(welcome.resumed)
        log.info("connected", extra={"player": self.name, "resumed": sorted(resumed)})
        effects: list[Effect] = []
        ended_away = tuple(m for m in self.games if m not in resumed)
        if ended_away:
            # Their ends, kept by the server, come right after welcome; a ping's pong comes after them.
            effects.append(self._send(Ping(), _Pending("ended_away", matches=ended_away)))
        if self.settings.ladder and not self.draining:
            for game in self.settings.games:
                join = LadderJoin(game=game, max_matches=self.settings.announced_capacity)
                effects.append(self._send(join, _Pending("ladder")))
        if not self.draining:
            for tournament in self.settings.tournaments:
                effects.append(self._send(TournamentEnter(tournament=tournament), _Pending("tournament")))
        return effects

    def disconnected(self) -> None:
        """The connection is gone: no reply to anything sent on it will come."""
        self.connected = False
        self._pending.clear()
        self._move_requests.clear()
        self._accepting = 0

    def request(self, message: Request) -> Send:
        """A request made from outside (a challenge, a lobby query): its reply comes back as Replied."""
        return self._send(message, _Pending("external"))

    # --- the drain ----------------------------------------------------------------------------
    def begin_drain(self, now: float) -> list[Effect]:
        """Take no new match from now on, and leave the ladder queues; the deadline counts from the
        first call, so a reconnection during a drain does not extend it."""
        if self.drain_deadline is None:
            self.drain_deadline = now + self.settings.drain_timeout
            log.info("draining", extra={"matches": sorted(self.games), "timeout_s": self.settings.drain_timeout})
        self.draining = True
        if not (self.settings.ladder and self.connected):
            return []
        return [self._send(LadderLeave(game=game), _Pending("ladder")) for game in self.settings.games]

    def drain_left(self, now: float) -> float:
        """Seconds until the drain deadline (0 once it has passed)."""
        assert self.drain_deadline is not None
        return max(0.0, self.drain_deadline - now)

    def resign_all(self) -> list[Effect]:
        """At the drain deadline: resign every live match (their ends still come as ``end``)."""
        return [effect for match_id in list(self.games) for effect in self.resign(match_id, "drain")]

    def resign(self, match_id: str, cause: str) -> list[Effect]:
        """Give ``match_id`` up for ``cause`` (kept in its record, counted, and told the server)."""
        live = self.games.get(match_id)
        if live is None or live.resigned is not None:
            return []
        live.resigned = cause
        self.resignations[cause] += 1
        log.warning("resigning", extra={"match": match_id, "cause": cause})
        if not self.connected:
            return []  # the resync after reconnecting resigns it
        return [self._send(Resign(match=match_id, cause=cause), _Pending("plain"))]

    # --- server messages ----------------------------------------------------------------------
    def receive(self, message: ServerMessage, now: float) -> list[Effect]:
        """React to one server message: a reply to a request first, then its type's handler."""
        effects: list[Effect] = []
        re = getattr(message, "re", None)
        if type(re) is int and re in self._pending:
            pending = self._pending.pop(re)
            self._on_reply(pending, re, message, now, effects)
            if pending.kind == "external" or isinstance(message, Error | Ok):
                return effects  # else the reply is news too (a sync's match_state)
        match message:
            case Moved():
                self._on_moved(message, now, effects)
            case MatchStart():
                self._on_match_start(message, now, effects)
            case MatchState():
                self._on_match_state(message, now, effects)
            case End():
                self._on_end(message, effects)
            case ChallengeOffered():
                self._on_challenge_offered(message, effects)
            case Swapped():
                self._on_swapped(message, now, effects)
            case DrawOffered():
                live = self.games.get(message.match)
                if live is not None and message.by != live.color:
                    effects.append(self._send(DeclineDraw(match=live.id), _Pending("plain")))
            case TakebackOffered():
                self._on_takeback_offered(message, effects)
            case TakenBack():
                self._on_taken_back(message, now, effects)
            case HintRequest():
                self._on_hint_request(message, effects)
            case Error():
                self._on_error(message, effects)
            case _:
                effects.append(Notice(message))
        return effects

    def _on_reply(self, pending: _Pending, re: int, message: ServerMessage, now: float, out: list[Effect]) -> None:
        error = message if isinstance(message, Error) else None
        match pending.kind:
            case "external":
                out.append(Replied(re, message))
            case "accept":
                self._accepting = max(0, self._accepting - 1)
                if error is not None:
                    log.info("accept failed", extra={"code": error.code, "error": error.message})
            case "tournament":
                if error is not None:
                    log.warning("tournament entry refused", extra={"code": error.code, "error": error.message})
                else:
                    log.info("tournament entered")
            case "ladder":
                if error is not None:
                    log.warning("ladder request refused", extra={"code": error.code, "error": error.message})
                else:
                    log.info(message.__struct_config__.tag, extra={"game": getattr(message, "game", None)})
            case "move":
                self._move_requests.pop((pending.match, pending.ply), None)
                if error is not None:
                    self._on_move_refused(pending.match, pending.ply, error, out)
            case "ended_away":
                for match_id in pending.matches:
                    if match_id in self.games:
                        log.warning("match ended while away; its end was not received", extra={"match": match_id})
                        self._drop(match_id, None, out)
            case _:
                if error is not None:
                    log.info("request refused", extra={"code": error.code, "error": error.message})

    def _on_error(self, message: Error, out: list[Effect]) -> None:
        log.warning("server error", extra={"code": message.code, "error": message.message})
        if message.code == "rate_limited":  # some request was dropped: make sure no move was
            for live in self.games.values():
                if live.our_turn:
                    out.append(self._send(Sync(match=live.id), _Pending("plain")))

    def _on_challenge_offered(self, message: ChallengeOffered, out: list[Effect]) -> None:
        challenge = message.challenge
        refusal = self.settings.challenge_filter.refusal(challenge)
        level = challenge.get("level")
        if refusal is None and level is not None and not (type(level) is int and 1 <= level <= self.levels):
            refusal = f"level {level!r} is not one of 1 to {self.levels}"
        if refusal is None and self.draining:
            refusal = "the bot is shutting down"
        if refusal is None and len(self.games) + self._accepting >= self.settings.max_matches:
            refusal = f"already playing {self.settings.max_matches} matches"
        if refusal is not None:
            log.info(
                "challenge declined",
                extra={"challenge": challenge["id"], "from": challenge.get("from"), "why": refusal},
            )
            out.append(self._send(Decline(challenge=challenge["id"]), _Pending("plain")))
            return
        self._accepting += 1
        log.info(
            "challenge accepted",
            extra={"challenge": challenge["id"], "from": challenge.get("from"), "game": challenge.get("game"),
                   "level": level},
        )  # fmt: skip
        out.append(self._send(Accept(challenge=challenge["id"]), _Pending("accept")))

    def _new_live(self, message: MatchStart | MatchState, color: int) -> LiveGame:
        game = create_game(message.game, message.params)
        return LiveGame(
            message.match,
            game,
            color,
            [p["name"] for p in message.players],
            message.clock,
            message.rated,
            game.new_state(),
            message.levels[color],
        )

    def _on_match_start(self, message: MatchStart, now: float, out: list[Effect]) -> None:
        live = self._new_live(message, message.color)
        live.replay(message.moves)  # a balanced opening the server played (ladder bot games)
        live.swap = message.swap if isinstance(message.swap, dict) else None
        live.clocks = list(message.clocks)
        live.turn_received = now
        self.games[live.id] = live
        out.append(Started(live))
        log.info(
            "match started", extra={"match": live.id, "game": live.game.name, "players": live.players,
                                    "color": live.color}
        )  # fmt: skip
        self._play_if_our_turn(live, out)

    def _on_match_state(self, message: MatchState, now: float, out: list[Effect]) -> None:
        if message.color is None:
            out.append(Notice(message))  # a spectator's snapshot
            return
        live = self.games.get(message.match)
        if live is None:
            live = self._new_live(message, message.color)
            self.games[live.id] = live
            out.append(Started(live))
        live.replay(message.moves)
        live.color = message.color  # a seat, or the colour a swap opening settled
        live.players = [p["name"] for p in message.players]
        live.swap = message.swap if isinstance(message.swap, dict) else None
        live.clocks = list(message.clocks)
        live.turn_received = now
        live.resyncs += 1
        log.info("match resynced", extra={"match": live.id, "ply": len(live.moves)})
        self._play_if_our_turn(live, out)

    def _on_moved(self, message: Moved, now: float, out: list[Effect]) -> None:
        live = self.games.get(message.match)
        if live is None:
            out.append(Notice(message))  # a match the bot watches
            return
        ply = message.ply
        rid = self._move_requests.pop((live.id, ply), None)
        if rid is not None:
            self._pending.pop(rid, None)  # accepted: no error will come for it
        if ply < len(live.moves):
            return  # already known (a resync overtook it)
        if ply > len(live.moves):
            out.append(self._send(Sync(match=live.id), _Pending("plain")))  # a gap: ask for the full state
            return
        try:
            live.state.play(live.game.decode_move(message.move))
        except EngineError as error:
            log.error("the server's move does not replay here", extra={"match": live.id, "error": str(error)})
            out.append(self._send(Sync(match=live.id), _Pending("plain")))
            return
        live.moves.append(message.move)
        if isinstance(message.swap, dict):
            live.swap = message.swap
        live.clocks = list(message.clocks)
        live.turn_received = now
        self._play_if_our_turn(live, out)

    def _on_swapped(self, message: Swapped, now: float, out: list[Effect]) -> None:
        """A swap opening's decision: settled colours make this bot's seat its colour."""
        live = self.games.get(message.match)
        if live is None:
            out.append(Notice(message))
            return
        rid = self._move_requests.pop((live.id, -len(live.moves)), None)
        if rid is not None:
            self._pending.pop(rid, None)
        if live.in_swap and message.swap["phase"] == "done":
            live.color = message.swap["colors"][live.color]
        live.swap = message.swap
        live.players = [p["name"] for p in message.players]
        live.clocks = list(message.clocks)
        live.turn_received = now
        log.info("swap", extra={"match": live.id, "by": message.by, "choice": message.choice, "color": live.color})
        self._play_if_our_turn(live, out)

    def _on_end(self, message: End, out: list[Effect]) -> None:
        live = self.games.get(message.match)
        if live is None:
            out.append(Notice(message))
            return
        record = {
            "match": live.id,
            "game": live.game.name,
            "params": live.game.params,
            "players": live.players,
            "color": live.color,
            "clock": live.clock,
            "rated": live.rated,
            "level": live.level,
            "result": message.result,
            "winner": message.winner,
            "reason": message.reason,
            "clocks": message.clocks,
            "moves": live.moves,
            "swap": live.swap,
            "decisions": live.decisions,
            "resyncs": live.resyncs,
            "resigned": live.resigned,
            "rating_changes": message.rating_changes,
            "ended": time.time(),
        }
        self.finished.append(record)
        self.finished_count += 1
        outcome = "draw" if message.winner is None else ("win" if message.winner == live.color else "loss")
        log.info(
            "match over",
            extra={"match": live.id, "game": live.game.name, "outcome": outcome, "reason": message.reason,
                   "plies": len(live.moves)},
        )  # fmt: skip
        self._drop(live.id, record, out)

    def _drop(self, match_id: str, record: dict[str, Any] | None, out: list[Effect]) -> None:
        self.games.pop(match_id, None)
        for key in [key for key in self._move_requests if key[0] == match_id]:
            self._pending.pop(self._move_requests.pop(key), None)
        out.append(Over(match_id, record))

    # --- takebacks and hints (SPEC.md section 15) -----------------------------------------------
    def _on_takeback_offered(self, message: TakebackOffered, out: list[Effect]) -> None:
        live = self.games.get(message.match)
        if live is None or message.by == live.color:
            return
        grant = self.settings.takebacks == "casual" and not live.rated
        answer = AcceptTakeback(match=live.id) if grant else DeclineTakeback(match=live.id)
        log.info("takeback " + ("granted" if grant else "declined"), extra={"match": live.id, "ply": message.ply})
        out.append(self._send(answer, _Pending("plain")))

    def _on_taken_back(self, message: TakenBack, now: float, out: list[Effect]) -> None:
        """The position goes back: the moves, the clocks, and the search, which starts again from it."""
        live = self.games.get(message.match)
        if live is None:
            out.append(Notice(message))
            return
        live.replay(live.moves[: message.ply])
        live.clocks = list(message.clocks)
        live.turn_received = now
        live.thinking_ply = -1
        for ply in [ply for ply in live.ready if ply >= message.ply]:
            live.ready.pop(ply)
            live.analyses.pop(ply, None)
        out.append(Retract(live.id))
        self._play_if_our_turn(live, out)

    def _on_hint_request(self, message: HintRequest, out: list[Effect]) -> None:
        live = self.games.get(message.match)
        if live is None or live.rated or not self.settings.hints or live.our_turn or message.ply != len(live.moves):
            return
        request = ThinkRequest(
            f"{live.id}:hint", live.game.name, dict(live.game.params), list(live.moves), self.settings.hint_budget,
            seed=zlib.crc32(f"{live.id}/hint/{message.ply}".encode()),
        )  # fmt: skip
        out.append(Suggest(live.id, message.ply, request, live.state.copy()))

    def hinted(self, match_id: str, ply: int, move: Any) -> list[Effect]:
        """The adapter found the hint for ``ply``: send it if the match is still there."""
        live = self.games.get(match_id)
        if live is None or not self.connected or len(live.moves) != ply:
            return []
        return [self._send(HintAnswer(match=match_id, ply=ply, move=move), _Pending("plain"))]

    # --- playing ------------------------------------------------------------------------------
    def _play_if_our_turn(self, live: LiveGame, out: list[Effect]) -> None:
        if live.resigned is not None:
            if self.connected:  # resigned while away, or refused: say it again
                out.append(self._send(Resign(match=live.id, cause=live.resigned), _Pending("plain")))
            return
        if not live.our_turn:
            return
        ply = live.turn_key
        if ply in live.ready:
            out.append(self._move(live, ply))
        elif live.thinking_ply != ply:
            live.thinking_ply = ply
            out.append(self._think(live, ply))

    def _think(self, live: LiveGame, ply: int) -> Think:
        clock = live.clock
        plan = self.settings.timeman.plan(
            remaining_ms=live.clocks[live.color],
            increment_ms=clock.get("increment_ms") or 0,
            move_limit_ms=clock.get("move_limit_ms"),
            latency=self.latency,
            moves_left=moves_left(live.state),
        )
        deciding = live.swap if live.in_swap else None
        deadline = live.turn_received + plan.deadline
        request = ThinkRequest(
            live.id,
            live.game.name,
            dict(live.game.params),
            list(live.moves),
            plan.budget,
            seed=zlib.crc32(f"{live.id}/{ply}".encode()),
            swap=deciding,
            level=live.level,
            deadline=deadline,  # the adapter's clock is time.monotonic, as the pool's
            clock={
                "remaining_ms": live.clocks[live.color],
                "opponent_ms": live.clocks[1 - live.color],
                "initial_ms": clock.get("initial_ms") or 0,
                "increment_ms": clock.get("increment_ms") or 0,
                **({"move_limit_ms": clock["move_limit_ms"]} if clock.get("move_limit_ms") else {}),
            },
        )
        alone = not any(g.thinking_ply >= 0 for g in self.games.values() if g is not live)
        return Think(live.id, ply, request, plan, deadline, self.latency, live.state.copy(), alone)

    def decided(self, match_id: str, ply: int, decision: Decision) -> list[Effect]:
        """The adapter's answer to a Think: keep it for the ply, and send it if the turn is still ours."""
        live = self.games.get(match_id)
        if live is None:
            return []
        if live.thinking_ply == ply:
            live.thinking_ply = -1
        if decision.fallback:
            self.fallbacks[decision.fallback] += 1
        live.decisions.append(decision.entry)
        if decision.resign:
            return self.resign(match_id, decision.resign)
        live.ready[ply] = decision.move
        if decision.analysis is not None:
            live.analyses[ply] = decision.analysis
        if self.connected and live.turn_key == ply and live.our_turn:  # else the resync sends it
            return [self._move(live, ply)]
        return []

    def _move(self, live: LiveGame, ply: int) -> Send:
        if ply < 0:  # a swap opening's choice
            send = self._send(Swap(match=live.id, choice=live.ready[ply]), _Pending("move", live.id, ply))
            self._move_requests[(live.id, ply)] = send.message["id"]
            return send
        send = self._send(
            MakeMove(match=live.id, ply=ply, move=live.ready[ply], info=live.analyses.get(ply)),
            _Pending("move", live.id, ply),
        )
        self._move_requests[(live.id, ply)] = send.message["id"]
        return send

    def _on_move_refused(self, match_id: str, ply: int, error: Error, out: list[Effect]) -> None:
        log.warning("move refused", extra={"match": match_id, "ply": ply, "code": error.code, "error": error.message})
        live = self.games.get(match_id)
        if live is not None and error.code not in ("match_over", "unknown_match"):
            live.ready.pop(ply, None)
            out.append(self._send(Sync(match=match_id), _Pending("plain")))

    # --- requests -----------------------------------------------------------------------------
    def _send(self, message: Request, pending: _Pending) -> Send:
        rid = next(self._ids)
        self._pending[rid] = pending
        return Send({**message.wire(), "id": rid})
