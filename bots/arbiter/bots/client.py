"""The bot client: one connection to an Arbiter server, many matches at once, decisions from the pool.

``BotClient.run`` connects with the bot's token, says hello (with how many matches it plays at
once), accepts the challenges its filter allows (and joins the ladder queue of each of its games
when asked), and plays every match it is in: on its turn it asks the warm pool for a move within
the time manager's budget, with the plan's deadline, and sends what it has by then, so the clock
never runs out because of a slow search. When the search cannot answer in time (its request
waited too long for a worker, or the worker overran), the move is the brain's cheapest sound one
(``BrainPool.fallback``: level 1 on a tiny budget), never a random one; each fallback is counted by
cause and kept in the game's record. A move carries the search's analysis (``move.info``) for
spectators.

It keeps the connection alive with websocket pings (which also measure the round trip the time
manager needs); when the connection drops it reconnects with exponential back-off and jitter, and
the server's full-state resync of each live match puts every game back where it was (a move
already computed for that ply is sent at once). Each finished game is logged, and with
``game_log`` appended to a JSON-lines file by a writer thread, in order, never on the event loop;
``finished`` keeps the last ``FINISHED_KEPT`` records, so a bot that runs for weeks stays small.
A stop drains: no new matches, the live ones played on up to ``drain_timeout``, then resigned, so
no opponent is left waiting for a bot that is gone.

The protocol is the one in ``protocol/arbiter/protocol/SPEC.md``, read through its codec; nothing
here knows any game's rules beyond the engine's ``State``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
import time
import zlib
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from arbiter.engine import EngineError, Game, State, create_game
from arbiter.protocol.codec import decode, encode
from arbiter.protocol.errors import CloseCode, ProtocolError
from arbiter.protocol.messages import PROTOCOL_VERSION

from .brain import ThinkRequest
from .pool import BrainPool, DeadlinePassed, PoolError, ThinkTimeout
from .random_bot import random_move
from .timeman import TimeManager, moves_left

log = logging.getLogger("arbiter.bots")

FATAL_ERRORS = {"auth_failed", "protocol_version"}
MAX_INCOMING_BYTES = 4 * 1024 * 1024  # a resync of a long paper-soccer match is the largest message
MAX_INCOMING_ARRAY = 65536  # its move list, or a paper-soccer turn of many bounces
MAX_INCOMING_MAP = 1024
FINISHED_KEPT = 1000  # records of finished games kept in memory (the game log keeps them all)
HEALTH_INTERVAL = 10.0
END_WAIT = 10.0  # seconds a drain waits for the ends of the matches it resigned before it closes anyway


FIRST_CONNECT_ATTEMPTS = 4  # before the first handshake, a bot gives up after these (about 2 s)


class BotFatal(RuntimeError):
    """A reason to stop instead of reconnecting: a refused token, a protocol mismatch, a replacement."""


class ChallengeRefused(RuntimeError):
    """The server refused a challenge this bot made (the message holds its error code)."""


@dataclass(frozen=True)
class ChallengeFilter:
    """Which challenges to accept: the games, a range of initial clock, rated or not."""

    games: frozenset[str]
    rated: bool | None = None  # None: rated and casual alike
    min_initial_ms: int = 0
    max_initial_ms: int | None = None
    min_move_limit_ms: int = 0  # a per-move limit shorter than this is refused (no limit is fine)

    def refusal(self, challenge: Mapping[str, Any]) -> str | None:
        """Why ``challenge`` (a challenge map from the server) is refused, or None to accept it."""
        clock = challenge.get("clock") or {}
        initial = clock.get("initial_ms", 0)
        limit = clock.get("move_limit_ms")
        if challenge.get("game") not in self.games:
            return f"game {challenge.get('game')!r} is not one of {sorted(self.games)}"
        if self.rated is not None and bool(challenge.get("rated")) != self.rated:
            return "only rated games" if self.rated else "only casual games"
        if initial < self.min_initial_ms or (self.max_initial_ms is not None and initial > self.max_initial_ms):
            return f"initial clock {initial} ms is outside the accepted range"
        if limit is not None and limit < self.min_move_limit_ms:
            return f"move limit {limit} ms is below {self.min_move_limit_ms} ms"
        return None


@dataclass
class BotSettings:
    games: tuple[str, ...]  # announced in hello; the ladder queues joined
    accept: ChallengeFilter
    ladder: bool = False
    max_matches: int = 8  # live matches at once (challenges beyond it are declined)
    capacity: int | None = None  # announced in hello: the ladder's bound across all games (None: max_matches)
    client_name: str = f"arbiter-bot/{version('arbiter-bots')}"
    game_log: Path | None = None
    health_file: Path | None = None  # touched every HEALTH_INTERVAL s while connected (container health checks)
    timeman: TimeManager = field(default_factory=TimeManager)
    backoff_initial: float = 0.25
    backoff_max: float = 15.0
    ping_interval: float = 10.0
    drain_timeout: float = 30.0  # seconds live matches may go on after a stop before they are resigned


class SendPacer:
    """Keeps the client under the server's per-connection rate limit (a token bucket, as in welcome.limits).

    Frames past the server's limit are dropped, and a dropped move would stall its match until
    the clock runs out, so each send waits for a token instead; waiting senders keep their order.
    """

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self.tokens = self.burst
        self.last = time.monotonic()
        self._turn = asyncio.Lock()

    async def wait(self) -> None:
        async with self._turn:
            while True:
                now = time.monotonic()
                self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
                self.last = now
                if self.tokens >= 1.0:
                    self.tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self.tokens) / self.rate)


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
    turn_received: float = 0.0  # loop time at which the message giving the current turn arrived
    thinking: asyncio.Task[None] | None = None
    thinking_ply: int = -1
    ready: dict[int, Any] = field(default_factory=dict)  # ply → a move computed for it
    analyses: dict[int, dict[str, Any]] = field(default_factory=dict)  # ply → its search's analysis (move.info)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    resyncs: int = 0

    @property
    def our_turn(self) -> bool:
        return not self.state.is_terminal and self.state.to_move == self.color

    def replay(self, moves: list[Any]) -> None:
        """Rebuild the position from the server's move list."""
        state = self.game.new_state()
        for move in moves:
            state.play(self.game.decode_move(move))
        self.state = state
        self.moves = list(moves)


class BotClient:
    """A bot on a server: ``await BotClient(url, token, pool, settings).run(stop=event)``."""

    def __init__(self, url: str, token: str, pool: BrainPool, settings: BotSettings) -> None:
        self.url = url
        self.token = token
        self.pool = pool
        self.settings = settings
        self.name: str | None = None
        self.games: dict[str, LiveGame] = {}
        self.finished: deque[dict[str, Any]] = deque(maxlen=FINISHED_KEPT)  # the last games' records, as logged
        self.finished_count = 0  # games finished since the client was made
        self.fallbacks: Counter[str] = Counter()  # moves that were not the search's, by cause
        self._log_writer: ThreadPoolExecutor | None = None  # appends game-log lines off the loop, in order
        self.connections = 0  # successful handshakes so far
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._replies: dict[int, Callable[[dict[str, Any]], None]] = {}
        self._move_requests: dict[tuple[str, int], int] = {}  # (match, ply) → the id of the move sent
        self._background: set[asyncio.Task[Any]] = set()
        self._accepting = 0
        self._draining = False
        self._drain_deadline: float | None = None  # loop time at which a drain resigns what is still live
        self._drained = False  # the drain is over: resigned matches ended (or END_WAIT passed)
        self._no_games = asyncio.Event()  # set while no match is live
        self._no_games.set()
        self._rng = random.Random()
        self._ended = asyncio.Event()
        self._pacer = SendPacer(100.0, 100.0)  # replaced by the server's own limits at each welcome
        self.connected = asyncio.Event()  # set while a welcomed connection is up

    # --- the connection loop --------------------------------------------------------------------
    async def run(self, *, stop: asyncio.Event | None = None, stop_now: asyncio.Event | None = None) -> None:
        """Play until ``stop`` has drained the live matches (see ``_drain``), or until ``stop_now``.

        Raises BotFatal when the server refuses the bot for good.
        """
        try:
            await self._run(stop or asyncio.Event(), stop_now or asyncio.Event())
        finally:
            if self._log_writer is not None:  # every line written before run returns
                writer, self._log_writer = self._log_writer, None
                await asyncio.to_thread(writer.shutdown, wait=True)

    async def _run(self, stop: asyncio.Event, stop_now: asyncio.Event) -> None:
        attempt = 0
        while not stop_now.is_set():
            if stop.is_set():
                self._begin_drain()
            try:
                async with connect(
                    self.url,
                    compression=None,
                    max_size=MAX_INCOMING_BYTES,
                    ping_interval=self.settings.ping_interval,
                    ping_timeout=max(2 * self.settings.ping_interval, 20.0),
                    open_timeout=10,
                    close_timeout=2,
                ) as ws:
                    if await self._serve(ws, stop, stop_now):
                        return
                    attempt = 0
            except BotFatal:
                raise
            except InvalidURI as error:
                raise BotFatal(f"bad server address {self.url!r}: {error}") from None
            except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake) as error:
                if self.connections == 0 and attempt + 1 >= FIRST_CONNECT_ATTEMPTS:
                    # Never connected: a wrong address or a server not started, not a network blip.
                    raise BotFatal(
                        f"cannot reach the server at {self.url} ({_reason(error)}): "
                        "check the address and that `arbiter serve` is running there"
                    ) from None
                log.warning("connection lost", extra={"server": self.url, "error": repr(error), "attempt": attempt})
            finally:
                self._ws = None
            # Live matches are worth reconnecting for during a drain, until its deadline.
            if stop.is_set() and (not self.games or self._drain_left() == 0):
                if self.games:
                    log.warning("drain deadline passed while disconnected", extra={"matches": sorted(self.games)})
                return
            delay = min(self.settings.backoff_max, self.settings.backoff_initial * 2**attempt)
            attempt += 1
            pause = delay * (0.5 + self._rng.random() / 2)
            if stop.is_set():
                await _first_set((stop_now,), min(pause, self._drain_left()))
            else:
                await _first_set((stop_now, stop), pause)

    @contextlib.asynccontextmanager
    async def running(self, *, connect_timeout: float = 30.0) -> AsyncIterator[BotClient]:
        """Play in the background while the block runs: welcomed on entry, stopped at once on exit.

        For a bot embedded in another asyncio program (tests, tools); ``arbiter bot`` calls ``run``.
        Raises BotFatal if the bot gives up before it is welcomed, TimeoutError past ``connect_timeout``.
        """
        stop_now = asyncio.Event()
        task = asyncio.ensure_future(self.run(stop_now=stop_now))
        welcomed = asyncio.ensure_future(self.connected.wait())
        try:
            done, _ = await asyncio.wait({task, welcomed}, timeout=connect_timeout,
                                         return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
            if task in done:
                task.result()  # BotFatal, or the reason it stopped
                raise BotFatal(f"the bot stopped before it was welcomed by {self.url}")
            if not done:
                raise TimeoutError(f"the bot was not welcomed by {self.url} within {connect_timeout:.0f} s")
            yield self
        finally:
            welcomed.cancel()
            stop_now.set()
            await asyncio.wait_for(task, 30)

    async def _serve(self, ws: ClientConnection, stop: asyncio.Event, stop_now: asyncio.Event) -> bool:
        """One connection's life; True when the bot is done (drained or stopped), False to reconnect."""
        await self._handshake(ws)
        self._ws = ws
        self.connected.set()
        loop = asyncio.get_running_loop()
        watcher = loop.create_task(self._watch(ws, stop, stop_now))
        heartbeat = loop.create_task(self._heartbeat()) if self.settings.health_file is not None else None
        try:
            async for frame in ws:
                try:
                    self.handle_message(_decode(frame))
                except ProtocolError as error:
                    log.error("unreadable server message", extra={"error": error.message})
                except Exception:  # a message this client does not understand must not end its other games
                    log.exception("could not handle a server message")
        except ConnectionClosed:
            pass
        finally:
            watcher.cancel()
            if heartbeat is not None:
                heartbeat.cancel()
            self.connected.clear()
            self._ws = None
            self._replies.clear()
            self._move_requests.clear()
            self._accepting = 0
        code = ws.close_code
        if code == CloseCode.REPLACED:
            raise BotFatal("another connection with this token replaced this one")
        if self._draining and code == CloseCode.GOING_AWAY:
            # The server is shutting down: its own drain decides the live matches; nothing is left to do.
            log.info("the server is shutting down: the drain ends", extra={"matches": sorted(self.games)})
            self._drained = True
        return stop_now.is_set() or self._drained

    async def _handshake(self, ws: ClientConnection) -> None:
        rid = next(self._ids)
        hello = {
            "type": "hello",
            "id": rid,
            "protocol": PROTOCOL_VERSION,
            "client": self.settings.client_name,
            "token": self.token,
            "games": list(self.settings.games),
            "levels": self.pool.brain_class.levels,
            "capacity": self.settings.capacity or self.settings.max_matches,
        }
        await ws.send(encode(hello))
        reply = _decode(await asyncio.wait_for(ws.recv(), 30))
        if reply.get("type") == "error":
            message = f"the server refused the bot: {reply.get('code')}: {reply.get('message')}"
            if reply.get("code") in FATAL_ERRORS:
                raise BotFatal(message)
            raise ConnectionError(message)
        if reply.get("type") != "welcome":
            raise ConnectionError(f"expected welcome, got {reply.get('type')!r}")
        self.name = reply["player"]["name"]
        self.connections += 1
        limits = reply.get("limits", {})
        self._pacer = SendPacer(0.8 * limits.get("rate_per_s", 100.0), 0.5 * limits.get("rate_burst", 100.0))
        resumed = set(reply.get("resumed", []))
        log.info("connected", extra={"server": self.url, "player": self.name, "resumed": sorted(resumed)})
        ended_away = [m for m in self.games if m not in resumed]
        if ended_away:
            # Their ends, kept by the server, come right after welcome; a ping's pong comes after them.
            await self._request(ws, {"type": "ping"}, lambda _: self._drop_ended_away(ended_away))
        with contextlib.suppress(TimeoutError, ConnectionClosed):
            await asyncio.wait_for(await ws.ping(), 5)  # a first round-trip figure for the time manager
        if self.settings.ladder and not self._draining:
            for game in self.settings.games:
                await self._request(
                    ws,
                    {
                        "type": "ladder_join",
                        "game": game,
                        "max_matches": self.settings.capacity or self.settings.max_matches,
                    },
                    self._on_ladder_reply,
                )

    async def _heartbeat(self) -> None:
        """Touch the health file while connected: its age says whether the bot is online and its loop alive."""
        path = self.settings.health_file
        assert path is not None
        while True:
            try:
                path.touch()
            except OSError as error:
                log.warning("cannot touch the health file", extra={"path": str(path), "error": str(error)})
            await asyncio.sleep(HEALTH_INTERVAL)

    async def _watch(self, ws: ClientConnection, stop: asyncio.Event, stop_now: asyncio.Event) -> None:
        """Turn ``stop`` into a drain and ``stop_now`` into a close at once."""
        await _first_set((stop, stop_now))
        if not stop_now.is_set():
            await self._drain(ws, stop_now)
        await ws.close()

    async def _drain(self, ws: ClientConnection, stop_now: asyncio.Event) -> None:
        """Leave without leaving anyone waiting: no new matches, off the ladder, the live matches
        played on until ``drain_timeout`` after the stop, then resigned, and their ends awaited.

        The deadline counts from the stop, not from this connection, so a reconnection during a
        drain does not extend it. ``stop_now`` cuts any wait short.
        """
        self._begin_drain()
        if self.settings.ladder:
            for game in self.settings.games:
                await self._request(ws, {"type": "ladder_leave", "game": game}, self._on_ladder_reply)
        await self._until_no_games(self._drain_left(), stop_now)
        if self.games and not stop_now.is_set():
            for match_id in list(self.games):
                log.info("resigning at the drain deadline", extra={"match": match_id})
                await self._request(ws, {"type": "resign", "match": match_id}, _ignore)
            await self._until_no_games(END_WAIT, stop_now)
            if self.games:
                log.warning("resigned matches did not end in time", extra={"matches": sorted(self.games)})
        self._drained = True

    def _begin_drain(self) -> None:
        """Take no new match from now on; the drain deadline counts from the first call."""
        if self._drain_deadline is None:
            self._drain_deadline = asyncio.get_running_loop().time() + self.settings.drain_timeout
            log.info("draining", extra={"matches": sorted(self.games), "timeout_s": self.settings.drain_timeout})
        self._draining = True

    def _drain_left(self) -> float:
        """Seconds until the drain deadline (0 once it has passed)."""
        assert self._drain_deadline is not None
        return max(0.0, self._drain_deadline - asyncio.get_running_loop().time())

    async def _until_no_games(self, seconds: float, stop_now: asyncio.Event) -> None:
        """Wait until no match is live, ``seconds`` have passed, or ``stop_now``."""
        if self.games and seconds > 0:
            await _first_set((self._no_games, stop_now), seconds)

    async def _request(self, ws: ClientConnection, message: dict[str, Any], on_reply: Callable[..., None]) -> int:
        rid = next(self._ids)
        self._replies[rid] = on_reply
        await self._pacer.wait()
        await ws.send(encode({**message, "id": rid}))
        return rid

    def _send_soon(self, message: dict[str, Any], on_reply: Callable[..., None]) -> int | None:
        """Send a request from a synchronous handler; returns its id (None while disconnected)."""
        ws = self._ws
        if ws is None:
            return None
        rid = next(self._ids)
        self._replies[rid] = on_reply
        self._in_background(self._paced_send(ws, {**message, "id": rid}))
        return rid

    async def _paced_send(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        await self._pacer.wait()
        await ws.send(encode(message))

    def _in_background(self, coroutine: Any) -> None:
        """Run a send or a close as a task kept until done (a lost connection is the read loop's to handle)."""
        task = asyncio.get_running_loop().create_task(_quietly(coroutine))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- outgoing requests ----------------------------------------------------------------------
    async def challenge(
        self,
        opponent: str,
        game: str,
        clock: dict[str, Any],
        *,
        params: dict[str, Any] | None = None,
        color: str = "random",
        rated: bool = False,
        level: int | None = None,
    ) -> dict[str, Any]:
        """Challenge ``opponent`` (a match starts if it accepts), a bot at ``level`` if given; the
        challenge map, or ChallengeRefused."""
        ws = self._ws
        if ws is None:
            raise ConnectionError("the bot is not connected")
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        message = {"type": "challenge", "to": opponent, "game": game, "clock": clock, "color": color, "rated": rated}
        if params:
            message["params"] = params
        if level is not None:
            message["level"] = level
        await self._request(ws, message, reply.set_result)
        answer = await asyncio.wait_for(reply, 30)
        if answer["type"] == "error":
            raise ChallengeRefused(f"{answer['code']}: {answer['message']}")
        return answer["challenge"]

    async def flush_game_log(self) -> None:
        """Wait until every game finished so far is written to the game log (it is written off the loop)."""
        if self._log_writer is not None:
            await asyncio.wrap_future(self._log_writer.submit(lambda: None))

    async def wait_finished(self, count: int) -> list[dict[str, Any]]:
        """Wait until ``count`` games have finished since the client was made; their records."""
        if count > FINISHED_KEPT:
            raise ValueError(f"only the last {FINISHED_KEPT} records are kept")
        while self.finished_count < count:
            self._ended.clear()
            await self._ended.wait()
        return list(self.finished)[:count]

    # --- incoming messages ----------------------------------------------------------------------
    def handle_message(self, message: dict[str, Any]) -> None:
        """React to one decoded server message: a reply to a request, then its type's handler.

        Everything the server says reaches the client through here, so a test can drive the client
        with messages alone, no socket needed."""
        re = message.get("re")
        if re is not None and re in self._replies:
            self._replies.pop(re)(message)
            if message.get("type") in ("error", "ok"):
                return
        handler = getattr(self, f"_on_{message.get('type')}", None)
        if handler is not None:
            handler(message)

    def _on_error(self, message: dict[str, Any]) -> None:
        log.warning("server error", extra={"code": message.get("code"), "error": message.get("message")})
        if message.get("code") == "rate_limited":  # some request was dropped: make sure no move was
            for live in self.games.values():
                if live.our_turn:
                    self._send_soon({"type": "sync", "match": live.id}, _ignore)

    def _on_challenge_offered(self, message: dict[str, Any]) -> None:
        challenge = message["challenge"]
        refusal = self.settings.accept.refusal(challenge)
        level, levels = challenge.get("level"), self.pool.brain_class.levels
        if refusal is None and level is not None and not (type(level) is int and 1 <= level <= levels):
            refusal = f"level {level!r} is not one of 1 to {levels}"
        if refusal is None and self._draining:
            refusal = "the bot is shutting down"
        if refusal is None and len(self.games) + self._accepting >= self.settings.max_matches:
            refusal = f"already playing {self.settings.max_matches} matches"
        if refusal is not None:
            log.info(
                "challenge declined",
                extra={"challenge": challenge["id"], "from": challenge.get("from"), "why": refusal},
            )
            self._send_soon({"type": "decline", "challenge": challenge["id"]}, _ignore)
            return
        self._accepting += 1
        log.info(
            "challenge accepted",
            extra={
                "challenge": challenge["id"],
                "from": challenge.get("from"),
                "game": challenge.get("game"),
                "level": challenge.get("level"),
            },
        )
        self._send_soon({"type": "accept", "challenge": challenge["id"]}, self._on_accept_reply)

    def _on_accept_reply(self, message: dict[str, Any]) -> None:
        self._accepting = max(0, self._accepting - 1)
        if message.get("type") == "error":
            log.info("accept failed", extra={"code": message.get("code"), "error": message.get("message")})

    def _on_ladder_reply(self, message: dict[str, Any]) -> None:
        if message.get("type") == "error":
            log.warning("ladder request refused", extra={"code": message.get("code"), "error": message.get("message")})
        else:
            log.info(message["type"], extra={"game": message.get("game"), "waiting": message.get("waiting")})

    def _on_match_start(self, message: dict[str, Any]) -> None:
        game = create_game(message["game"], message["params"])
        live = LiveGame(
            message["match"],
            game,
            message["color"],
            [p["name"] for p in message["players"]],
            message["clock"],
            message["rated"],
            game.new_state(),
            _level_of(message),
        )
        live.clocks = list(message["clocks"])
        live.turn_received = asyncio.get_running_loop().time()
        self._add(live)
        log.info(
            "match started", extra={"match": live.id, "game": game.name, "players": live.players, "color": live.color}
        )
        self._play_if_our_turn(live)

    def _on_match_state(self, message: dict[str, Any]) -> None:
        if message.get("color") is None:
            return  # a spectator's snapshot
        live = self.games.get(message["match"])
        if live is None:
            game = create_game(message["game"], message["params"])
            live = LiveGame(
                message["match"],
                game,
                message["color"],
                [p["name"] for p in message["players"]],
                message["clock"],
                message["rated"],
                game.new_state(),
                _level_of(message),
            )
            self._add(live)
        live.replay(message["moves"])
        live.clocks = list(message["clocks"])
        live.turn_received = asyncio.get_running_loop().time()
        live.resyncs += 1
        log.info("match resynced", extra={"match": live.id, "ply": len(live.moves)})
        self._play_if_our_turn(live)

    def _on_moved(self, message: dict[str, Any]) -> None:
        live = self.games.get(message["match"])
        if live is None:
            return
        ply = message["ply"]
        rid = self._move_requests.pop((live.id, ply), None)
        if rid is not None:
            self._replies.pop(rid, None)  # accepted: no error will come for it
        if ply < len(live.moves):
            return  # already known (a resync overtook it)
        if ply > len(live.moves):
            self._send_soon({"type": "sync", "match": live.id}, _ignore)  # a gap: ask for the full state
            return
        try:
            live.state.play(live.game.decode_move(message["move"]))
        except EngineError as error:
            log.error("the server's move does not replay here", extra={"match": live.id, "error": str(error)})
            self._send_soon({"type": "sync", "match": live.id}, _ignore)
            return
        live.moves.append(message["move"])
        live.clocks = list(message["clocks"])
        live.turn_received = asyncio.get_running_loop().time()
        self._play_if_our_turn(live)

    def _on_end(self, message: dict[str, Any]) -> None:
        live = self.games.get(message["match"])
        if live is None:
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
            "result": message.get("result"),
            "winner": message.get("winner"),
            "reason": message.get("reason"),
            "clocks": message.get("clocks"),
            "moves": live.moves,
            "decisions": live.decisions,
            "resyncs": live.resyncs,
            "rating_changes": message.get("rating_changes"),
            "ended": time.time(),
        }
        self.finished.append(record)
        self.finished_count += 1
        self._ended.set()
        outcome = "draw" if message.get("winner") is None else ("win" if message["winner"] == live.color else "loss")
        log.info(
            "match over",
            extra={
                "match": live.id,
                "game": live.game.name,
                "outcome": outcome,
                "reason": message.get("reason"),
                "plies": len(live.moves),
            },
        )
        if self.settings.game_log is not None:
            if self._log_writer is None:
                self._log_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="game-log")
            self._log_writer.submit(_append_line, self.settings.game_log, json.dumps(record, default=str))
        self._drop(live.id)

    def _on_draw_offered(self, message: dict[str, Any]) -> None:
        live = self.games.get(message["match"])
        if live is not None and message.get("by") != live.color:
            self._send_soon({"type": "decline_draw", "match": live.id}, _ignore)

    def _drop_ended_away(self, match_ids: list[str]) -> None:
        for match_id in match_ids:
            if match_id in self.games:
                log.warning("match ended while away; its end was not received", extra={"match": match_id})
                self._drop(match_id)

    def _add(self, live: LiveGame) -> None:
        self.games[live.id] = live
        self._no_games.clear()

    def _drop(self, match_id: str) -> None:
        live = self.games.pop(match_id, None)
        if live is None:
            return
        if not self.games:
            self._no_games.set()
        if live.thinking is not None:
            live.thinking.cancel()
        self.pool.forget(match_id)

    # --- playing --------------------------------------------------------------------------------
    def _play_if_our_turn(self, live: LiveGame) -> None:
        if not live.our_turn:
            return
        ply = len(live.moves)
        if ply in live.ready:
            self._send_move(live, ply)
        elif live.thinking_ply != ply or live.thinking is None or live.thinking.done():
            live.thinking_ply = ply
            live.thinking = asyncio.get_running_loop().create_task(self._decide(live, ply))

    async def _decide(self, live: LiveGame, ply: int) -> None:
        """Ask the pool within the plan; if no sound answer comes by the deadline, the brain's own
        cheapest move (``BrainPool.fallback``); send it, with the search's analysis."""
        loop = asyncio.get_running_loop()
        latency = self._ws.latency if self._ws is not None else 0.0
        clock = live.clock
        plan = self.settings.timeman.plan(
            remaining_ms=live.clocks[live.color],
            increment_ms=clock.get("increment_ms") or 0,
            move_limit_ms=clock.get("move_limit_ms"),
            latency=latency,
            moves_left=moves_left(live.state),
        )
        request = ThinkRequest(
            live.id,
            live.game.name,
            dict(live.game.params),
            list(live.moves),
            plan.budget,
            seed=zlib.crc32(f"{live.id}/{ply}".encode()),
            level=live.level,
            deadline=live.turn_received + plan.deadline,  # loop time is time.monotonic, as the pool's
        )
        began = loop.time()
        source, info, cause = "brain", {}, ""
        analysis: dict[str, Any] | None = None
        try:
            answer = await asyncio.wait_for(self._ask(request), max(0.0, live.turn_received + plan.deadline - began))
            move, info = answer.move, answer.info
            if _legal(live.state, move):
                analysis = self.pool.brain_class.analysis(answer)
            else:
                cause, source = "illegal", f"fallback: the brain's move {move!r} is illegal"
        except (TimeoutError, DeadlinePassed, ThinkTimeout) as error:
            cause, source = "deadline", f"fallback: {error or 'the deadline came first'}".splitlines()[0]
        except PoolError as error:
            cause, source = "pool", f"fallback: {error}".splitlines()[0]
        if cause:
            self.fallbacks[cause] += 1
            log.warning("fallback move", extra={"match": live.id, "ply": ply, "cause": cause, "why": source})
            move, cause = self._fallback_move(live, request, cause)
            analysis = {"fallback": cause}  # the server counts it (/metrics), spectators see it
        live.decisions.append(
            {
                "ply": ply,
                "budget": round(plan.budget, 4),
                "deadline": round(plan.deadline, 4),
                "used": round(loop.time() - began, 4),
                "latency": round(latency, 4),
                "source": source,
                "info": info,
            }
        )
        live.ready[ply] = move
        if analysis is not None:
            live.analyses[ply] = analysis
        if self.games.get(live.id) is live and len(live.moves) == ply:
            self._send_move(live, ply)

    def _fallback_move(self, live: LiveGame, request: ThinkRequest, cause: str) -> tuple[Any, str]:
        """The brain's cheapest sound move from the pool's warm brain, with ``cause``; a random legal
        move only if the brain itself fails (cause ``random``, counted too)."""
        try:
            move = self.pool.fallback(request).move
            if _legal(live.state, move):
                return move, cause
        except Exception:
            log.exception("the fallback move failed", extra={"match": live.id})
        self.fallbacks["random"] += 1
        return live.game.encode_move(random_move(live.state, np.random.default_rng(request.seed))), "random"

    async def _ask(self, request: ThinkRequest) -> Any:
        thinking = sum(1 for g in self.games.values() if g.thinking is not None and not g.thinking.done())
        if self.pool.brain_class.root_parallel and thinking <= 1:
            return await self.pool.think_merged(request)
        return await self.pool.think(request)

    def _send_move(self, live: LiveGame, ply: int) -> None:
        move = live.ready[ply]
        message: dict[str, Any] = {"type": "move", "match": live.id, "ply": ply, "move": move}
        if ply in live.analyses:
            message["info"] = live.analyses[ply]
        rid = self._send_soon(message, lambda reply: self._on_move_reply(live.id, ply, reply))
        if rid is not None:
            self._move_requests[(live.id, ply)] = rid

    def _on_move_reply(self, match_id: str, ply: int, reply: dict[str, Any]) -> None:
        self._move_requests.pop((match_id, ply), None)
        if reply.get("type") != "error":
            return
        live = self.games.get(match_id)
        log.warning(
            "move refused",
            extra={"match": match_id, "ply": ply, "code": reply.get("code"), "error": reply.get("message")},
        )
        if live is not None and reply.get("code") not in ("match_over", "unknown_match"):
            live.ready.pop(ply, None)
            self._send_soon({"type": "sync", "match": match_id}, _ignore)


def _decode(frame: bytes | str) -> dict[str, Any]:
    """A server message through the protocol's codec, with the bounds a client accepts from a server."""
    return decode(frame, max_bytes=MAX_INCOMING_BYTES, max_array_len=MAX_INCOMING_ARRAY, max_map_len=MAX_INCOMING_MAP)


def _append_line(path: Path, line: str) -> None:
    """On the game-log thread: one record, one line, appended."""
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
    except OSError as error:
        log.error("cannot write the game log", extra={"path": str(path), "error": str(error)})


def _level_of(message: dict[str, Any]) -> int | None:
    """The level a match_start or match_state asks of the receiving player (servers without levels: None)."""
    levels = message.get("levels") or [None, None]
    return levels[message["color"]]


def _legal(state: State, move: Any) -> bool:
    trial = state.copy()
    try:
        trial.play(state.game.decode_move(move))
    except EngineError:
        return False
    return True


def _reason(error: BaseException) -> str:
    """A failed connection's cause in a few words (``connection refused``, ``timed out``…)."""
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__


def _ignore(message: dict[str, Any]) -> None:
    """A reply nobody waits for (an error still reaches the log through the dispatcher's caller)."""
    if message.get("type") == "error":
        log.info("request refused", extra={"code": message.get("code"), "error": message.get("message")})


async def _first_set(events: tuple[asyncio.Event, ...], timeout: float | None = None) -> None:
    """Return once any of ``events`` is set, or after ``timeout`` seconds."""
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


async def _quietly(coroutine: Any) -> None:
    with contextlib.suppress(ConnectionClosed, OSError):
        await coroutine
