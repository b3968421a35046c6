"""The bot client's websocket adapter: carries ``ClientCore``'s effects out over one connection at a time.

``BotClient.run`` connects with the bot's token, says hello, and feeds every server frame (decoded
through the protocol's codec, with the bounds a client accepts, then typed) to the core; what the
core returns it carries out: requests go through one sender task, paced by the core's token
bucket and in order; each ``Think`` becomes a task that asks the warm pool (``deciding.decide``)
and hands the decision back to the core; each finished game is appended to the game log by a
writer thread, in order, never on the event loop.

It keeps the connection alive with websocket pings (which also measure the round trip the time
manager needs); when the connection drops it reconnects with exponential back-off and jitter, and
the server's full-state resync of each live match puts every game back where it was (a move
already computed for that ply is sent at once). Given several addresses (the nodes of a cluster),
it moves to the next one when a connection cannot be made or a node says it is leaving (1001),
and resumes there. A stop drains: no new matches, the live ones
played on up to ``drain_timeout``, then resigned, so no opponent is left waiting for a bot that is
gone.

Moves come from a ``MovePool``: a ``BrainPool`` of warm workers, or ``arbiter bridge``'s engine
processes. Hooks for a subclass (``arbiter series`` uses them): ``search`` (how a move is found),
``on_match_started``, ``on_match_over`` and ``on_notice`` (messages the core does not act on).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import random
from collections import Counter, deque
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from arbiter.protocol.codec import decode, encode
from arbiter.protocol.errors import CloseCode, ProtocolError
from arbiter.protocol.messages import Challenge, Request
from arbiter.protocol.server_messages import ChallengeCreated, Error, ServerMessage, Welcome, read

from ..brain import Brain, ThinkRequest, ThinkResult
from ..pool import BrainPool
from .core import (
    FINISHED_KEPT,
    ClientCore,
    Effect,
    LiveGame,
    Notice,
    Over,
    Replied,
    Retract,
    Send,
    Started,
    Suggest,
    Think,
)
from .deciding import decide, legal
from .settings import BotSettings

log = logging.getLogger("arbiter.bots")

FATAL_ERRORS = {"auth_failed", "protocol_version", "banned"}
MAX_INCOMING_BYTES = 4 * 1024 * 1024  # a resync of a long paper-soccer match is the largest message
MAX_INCOMING_ARRAY = 65536  # its move list, or a paper-soccer turn of many bounces
MAX_INCOMING_MAP = 1024
HEALTH_INTERVAL = 10.0
END_WAIT = 10.0  # seconds a drain waits for the ends of the matches it resigned before it closes anyway
FIRST_CONNECT_ATTEMPTS = 4  # before the first handshake, a bot gives up after these (about 2 s)
REPLY_TIMEOUT = 30.0


class BotFatal(RuntimeError):
    """A reason to stop instead of reconnecting: a refused token, a protocol mismatch, a replacement."""


class ChallengeRefused(RuntimeError):
    """The server refused a challenge this bot made (the message holds its error code)."""


class MovePool(Protocol):
    """Where moves come from: a ``BrainPool`` of warm workers, or a bridge's engine processes."""

    brain_class: type[Brain]

    async def think(self, request: ThinkRequest) -> ThinkResult: ...

    def fallback(self, request: ThinkRequest) -> ThinkResult: ...

    def forget(self, match_id: str) -> None: ...


class BotClient:
    """A bot on a server: ``await BotClient(url, token=…, pool=…, settings=…).run(stop=event)``."""

    def __init__(self, url: str | Sequence[str], *, token: str, pool: MovePool, settings: BotSettings) -> None:
        self.urls = [url] if isinstance(url, str) else list(url)  # a cluster's nodes: any of them will do
        if not self.urls:
            raise ValueError("a bot needs a server address")
        self._at = 0  # the address in use
        self.pool = pool
        self.settings = settings
        # Hints come from the warm pool's search; a bridged engine is asked only for its own moves.
        announced = dataclasses.replace(settings, hints=settings.hints and isinstance(pool, BrainPool))
        self.core = ClientCore(announced, levels=pool.brain_class.levels, token=token)
        self.connected = asyncio.Event()  # set while a welcomed connection is up
        self._ws: ClientConnection | None = None
        self._outbox: asyncio.Queue[dict[str, Any]] | None = None
        self._thinking: dict[str, asyncio.Task[None]] = {}  # match → the task finding its move
        self._hinting: set[asyncio.Task[None]] = set()  # tasks finding hints for opponents (SPEC section 15)
        self._replies: dict[int, asyncio.Future[ServerMessage]] = {}
        self._log_writer: ThreadPoolExecutor | None = None  # appends game-log lines off the loop, in order
        self._ended = asyncio.Event()
        self._no_games = asyncio.Event()  # set while no match is live
        self._no_games.set()
        self._rng = random.Random()

    @property
    def url(self) -> str:
        """The server address in use (of ``urls``)."""
        return self.urls[self._at]

    def _next_address(self) -> None:
        self._at = (self._at + 1) % len(self.urls)

    # --- what the core knows ------------------------------------------------------------------
    @property
    def name(self) -> str | None:
        return self.core.name

    @property
    def games(self) -> dict[str, LiveGame]:
        return self.core.games

    @property
    def finished(self) -> deque[dict[str, Any]]:
        """The last FINISHED_KEPT finished games' records, as logged."""
        return self.core.finished

    @property
    def finished_count(self) -> int:
        return self.core.finished_count

    @property
    def fallbacks(self) -> Counter[str]:
        return self.core.fallbacks

    @property
    def connections(self) -> int:
        return self.core.connections

    def drop_connection(self) -> bool:
        """Cut the connection at once, as a network failure would (soaks and tests); whether one was
        up. The client connects again and resyncs its matches, as after any lost connection."""
        transport = None if self._ws is None else self._ws.transport
        if transport is None:
            return False
        transport.abort()
        return True

    # --- hooks ----------------------------------------------------------------------------------
    async def search(self, request: ThinkRequest, *, alone: bool = False) -> ThinkResult:
        """Find a move: the pool (every worker at once for a root-parallel brain when ``alone``)."""
        if alone and isinstance(self.pool, BrainPool) and self.pool.brain_class.root_parallel:
            return await self.pool.think_merged(request)
        return await self.pool.think(request)

    def on_match_started(self, live: LiveGame) -> None:
        """A match began (or was first seen in a resync)."""

    def on_match_over(self, match_id: str, record: dict[str, Any] | None) -> None:
        """A match ended: its record, or None if it ended while the bot was away."""

    def on_notice(self, message: ServerMessage) -> None:
        """A server message the core does not act on (a challenge closed, presence, a watched move)."""

    # --- running --------------------------------------------------------------------------------
    async def run(self, *, stop: asyncio.Event | None = None, stop_now: asyncio.Event | None = None) -> None:
        """Play until ``stop`` has drained the live matches, or until ``stop_now``.

        Raises BotFatal when the server refuses the bot for good.
        """
        try:
            await self._run(stop or asyncio.Event(), stop_now or asyncio.Event())
        finally:
            for task in [*self._thinking.values(), *self._hinting]:
                task.cancel()
            if self._log_writer is not None:  # every line written before run returns
                writer, self._log_writer = self._log_writer, None
                await asyncio.to_thread(writer.shutdown, wait=True)

    async def _run(self, stop: asyncio.Event, stop_now: asyncio.Event) -> None:
        attempt = 0
        while not stop_now.is_set():
            if stop.is_set():
                self._apply(self.core.begin_drain(self._now()))
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
                    if ws.close_code == CloseCode.GOING_AWAY:
                        self._next_address()  # that node is leaving (a cluster's node hands its matches over)
            except BotFatal:
                raise
            except InvalidURI as error:
                raise BotFatal(f"bad server address {self.url!r}: {error}") from None
            except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake) as error:
                if self.core.connections == 0 and attempt + 1 >= FIRST_CONNECT_ATTEMPTS * len(self.urls):
                    # Never connected: a wrong address or a server not started, not a network blip.
                    raise BotFatal(
                        f"cannot reach the server at {', '.join(self.urls)} ({_reason(error)}): "
                        "check the address and that `arbiter serve` is running there"
                    ) from None
                log.warning("connection lost", extra={"server": self.url, "error": repr(error), "attempt": attempt})
                self._next_address()
            # Live matches are worth reconnecting for during a drain, until its deadline.
            if stop.is_set() and (not self.games or self.core.drain_left(self._now()) == 0):
                if self.games:
                    log.warning("drain deadline passed while disconnected", extra={"matches": sorted(self.games)})
                return
            delay = min(self.settings.backoff_max, self.settings.backoff_initial * 2**attempt)
            attempt += 1
            pause = delay * (0.5 + self._rng.random() / 2)
            if stop.is_set():
                await _first_set((stop_now,), min(pause, self.core.drain_left(self._now())))
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
        welcome = await self._handshake(ws)
        self._ws, self._outbox = ws, asyncio.Queue()
        loop = asyncio.get_running_loop()
        sender = loop.create_task(self._send_all(ws, self._outbox))
        self._apply(self.core.welcomed(welcome, self._now()))
        self.connected.set()
        with contextlib.suppress(TimeoutError, ConnectionClosed):
            await asyncio.wait_for(await ws.ping(), 5)  # a first round-trip figure for the time manager
        watcher = loop.create_task(self._watch(ws, stop, stop_now))
        heartbeat = loop.create_task(self._heartbeat()) if self.settings.health_file is not None else None
        try:
            async for frame in ws:
                self.core.latency = ws.latency
                try:
                    message = read(_decode(frame))
                except ProtocolError as error:
                    log.error("unreadable server message", extra={"code": error.code, "error": error.message})
                    continue
                self.handle_message(message)
        except ConnectionClosed:
            pass
        finally:
            for task in (watcher, heartbeat, sender):
                if task is not None:
                    task.cancel()
            self.connected.clear()
            self._ws = self._outbox = None
            self.core.disconnected()
            for reply in self._replies.values():
                if not reply.done():
                    reply.set_exception(ConnectionError("the connection was lost before the reply came"))
            self._replies.clear()
        code = ws.close_code
        if code == CloseCode.REPLACED:
            raise BotFatal("another connection with this token replaced this one")
        if code == CloseCode.BANNED:
            raise BotFatal("the server banned this bot (or its address): banned")
        if self.core.draining and code == CloseCode.GOING_AWAY:
            # The server is shutting down: its own drain decides the live matches; nothing is left to do.
            log.info("the server is shutting down: the drain ends", extra={"matches": sorted(self.games)})
            self.core.drained = True
        return stop_now.is_set() or self.core.drained

    async def _handshake(self, ws: ClientConnection) -> Welcome:
        await ws.send(encode(self.core.hello()))
        try:
            reply = read(_decode(await asyncio.wait_for(ws.recv(), 30)))
        except ProtocolError as error:
            raise ConnectionError(f"the server's first message is unreadable: {error.message}") from None
        if isinstance(reply, Error):
            message = f"the server refused the bot: {reply.code}: {reply.message}"
            if reply.code in FATAL_ERRORS:
                raise BotFatal(message)
            raise ConnectionError(message)
        if not isinstance(reply, Welcome):
            raise ConnectionError(f"expected welcome, got {type(reply).__name__}")
        log.info("welcomed", extra={"server": self.url})
        return reply

    async def _send_all(self, ws: ClientConnection, outbox: asyncio.Queue[dict[str, Any]]) -> None:
        """The one writer of a connection: each request in order, each after its token."""
        with contextlib.suppress(ConnectionClosed, OSError):
            while True:
                message = await outbox.get()
                delay = self.core.pacer.delay(self._now())
                if delay > 0:
                    await asyncio.sleep(delay)
                await ws.send(encode(message))

    # --- carrying out the core's effects ---------------------------------------------------------
    def handle_message(self, message: ServerMessage) -> None:
        """Feed one typed server message to the core and carry out what it says (no socket needed)."""
        self._apply(self.core.receive(message, self._now()))

    def _apply(self, effects: list[Effect]) -> None:
        for effect in effects:
            match effect:
                case Send(message):
                    if self._outbox is not None:  # while disconnected, resyncs repair what is not sent
                        self._outbox.put_nowait(message)
                case Think():
                    self._start_thinking(effect)
                case Started(live):
                    self._no_games.clear()
                    self.on_match_started(live)
                case Over(match_id, record):
                    self._match_over(match_id, record)
                case Replied(request_id, message):
                    reply = self._replies.pop(request_id, None)
                    if reply is not None and not reply.done():
                        reply.set_result(message)
                case Notice(message):
                    self.on_notice(message)
                case Retract(match_id):
                    task = self._thinking.pop(match_id, None)
                    if task is not None:
                        task.cancel()
                    self.pool.forget(match_id)  # a search tree kept for the match belongs to the old line
                case Suggest():
                    self._suggest(effect)

    def _suggest(self, suggest: Suggest) -> None:
        """Find a hint on the pool, and answer it if it is legal (no answer otherwise: the person goes without)."""

        async def think_and_answer() -> None:
            try:
                answer = await asyncio.wait_for(self.pool.think(suggest.request), 4 * suggest.request.budget + 1)
            except Exception as error:  # a hint is a courtesy: its failure costs the match nothing
                log.warning("no hint", extra={"match": suggest.match, "error": repr(error)})
                return
            finally:
                self.pool.forget(suggest.request.match_id)
                self._hinting.discard(task)
            if legal(suggest.state, answer.move):
                self._apply(self.core.hinted(suggest.match, suggest.ply, answer.move))

        task = asyncio.get_running_loop().create_task(think_and_answer())
        self._hinting.add(task)

    def _start_thinking(self, think: Think) -> None:
        async def think_and_move() -> None:
            decision = await decide(think, lambda request: self.search(request, alone=think.alone), self.pool)
            if self._thinking.get(think.match) is task:
                del self._thinking[think.match]
            effects = self.core.decided(think.match, think.ply, decision)
            self._apply(effects)
            if effects and not decision.fallback and not decision.resign:
                self._ponder(think, decision.move)

        previous = self._thinking.get(think.match)
        if previous is not None:
            previous.cancel()
        task = asyncio.get_running_loop().create_task(think_and_move())
        self._thinking[think.match] = task

    def _ponder(self, think: Think, move: Any) -> None:
        """Once our move is sent, let the pool think on the opponent's time, if this is our only match."""
        if not self.settings.ponder or not isinstance(self.pool, BrainPool) or list(self.games) != [think.match]:
            return
        self.pool.ponder(dataclasses.replace(think.request, moves=[*think.request.moves, move], deadline=None))

    def _match_over(self, match_id: str, record: dict[str, Any] | None) -> None:
        task = self._thinking.pop(match_id, None)
        if task is not None:
            task.cancel()
        self.pool.forget(match_id)
        if not self.games:
            self._no_games.set()
        if record is not None:
            self._ended.set()
            if self.settings.game_log is not None:
                if self._log_writer is None:
                    self._log_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="game-log")
                self._log_writer.submit(_append_line, self.settings.game_log, json.dumps(record, default=str))
        self.on_match_over(match_id, record)

    # --- the drain ------------------------------------------------------------------------------
    async def _watch(self, ws: ClientConnection, stop: asyncio.Event, stop_now: asyncio.Event) -> None:
        """Turn ``stop`` into a drain and ``stop_now`` into a close at once."""
        await _first_set((stop, stop_now))
        if not stop_now.is_set():
            await self._drain(stop_now)
        await self._flush_outbox()
        await ws.close()

    async def _drain(self, stop_now: asyncio.Event) -> None:
        """Leave without leaving anyone waiting: no new matches, off the ladder, the live matches
        played on until ``drain_timeout`` after the stop, then resigned, and their ends awaited."""
        self._apply(self.core.begin_drain(self._now()))
        await self._until_no_games(self.core.drain_left(self._now()), stop_now)
        if self.games and not stop_now.is_set():
            self._apply(self.core.resign_all())
            await self._until_no_games(END_WAIT, stop_now)
            if self.games:
                log.warning("resigned matches did not end in time", extra={"matches": sorted(self.games)})
        self.core.drained = True

    async def _until_no_games(self, seconds: float, stop_now: asyncio.Event) -> None:
        """Wait until no match is live, ``seconds`` have passed, or ``stop_now``."""
        if self.games and seconds > 0:
            await _first_set((self._no_games, stop_now), seconds)

    async def _flush_outbox(self) -> None:
        """Let the sender write what is queued (a drain's last leave requests) before the close."""
        outbox = self._outbox
        while outbox is not None and not outbox.empty() and self._ws is not None:
            await asyncio.sleep(0.01)

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

    # --- requests from outside ------------------------------------------------------------------
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
        request = Challenge(to=opponent, game=game, params=params or None, clock=clock, color=color, rated=rated,
                            level=level)  # fmt: skip
        answer = await self._request(request)
        if isinstance(answer, Error):
            raise ChallengeRefused(f"{answer.code}: {answer.message}")
        assert isinstance(answer, ChallengeCreated)
        return answer.challenge

    async def _request(self, request: Request) -> ServerMessage:
        if self._outbox is None:
            raise ConnectionError("the bot is not connected")
        send = self.core.request(request)
        reply: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        rid = send.message["id"]
        self._replies[rid] = reply
        self._outbox.put_nowait(send.message)
        try:
            return await asyncio.wait_for(reply, REPLY_TIMEOUT)
        finally:
            self._replies.pop(rid, None)

    async def flush_game_log(self) -> None:
        """Wait until every game finished so far is written to the game log (it is written off the loop)."""
        if self._log_writer is not None:
            await asyncio.wrap_future(self._log_writer.submit(lambda: None))

    async def wait_finished(self, count: int) -> list[dict[str, Any]]:
        """Wait until ``count`` games have finished since the client was made; their records."""
        if count > FINISHED_KEPT:
            raise ValueError(f"only the last {FINISHED_KEPT} records are kept")
        while self.core.finished_count < count:
            self._ended.clear()
            await self._ended.wait()
        return list(self.core.finished)[:count]

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()


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


def _reason(error: BaseException) -> str:
    """A failed connection's cause in a few words (``connection refused``, ``timed out``…)."""
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__


async def _first_set(events: tuple[asyncio.Event, ...], timeout: float | None = None) -> None:
    """Return once any of ``events`` is set, or after ``timeout`` seconds."""
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
