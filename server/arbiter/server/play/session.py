"""One client connection: rate limit, decode, parse, dispatch to the hub, encode the replies.

``Session`` knows nothing about websockets: it talks to a ``Transport`` (send bytes, close), so
the dispatcher can be driven in-process by tests and fuzzers. ``serve_connection`` is the thin
websocket adapter: it waits for hello, then has the connection call the session with each message
(``connection.py``) until the end, and reports the disconnect.

Slow requests (those whose handler returns a coroutine: they wait for the store) never hold up the
reading of frames. They run one after another in the session's *lane*, in the order they came, and
every later request that is not about a match waits its turn in the lane too, so a ``ladder_join``
is never overtaken by the ``ladder_leave`` sent after it. Match requests (moves, resignations, draw
offers, spectating) do not wait: they touch only their match, so a store that stalls an ``accept``
or a leaderboard read does not stall the connection's moves in its other matches.
What a session needs of the server is the narrow ``SessionHost`` (settings, the clock, the dispatch
table, the handshake and the disconnect), which the hub provides; nothing here imports the hub.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from websockets.exceptions import ConnectionClosed

from arbiter.protocol.codec import decode, encode
from arbiter.protocol.errors import CloseCode, ErrorCode, ProtocolError
from arbiter.protocol.messages import Hello, MakeMove, MatchRequest, Request, parse
from arbiter.protocol.move_frames import MoveFrame, decode_move_frame

from ..access.account_routes import same_origin, session_cookie
from ..config import ServerConfig
from ..metrics import ServerMetrics
from ..net.client_address import ClientAddress
from ..net.connection import SessionConnection
from .players import OnlinePlayer
from .ratelimit import TokenBucket, Verdict

log = logging.getLogger("arbiter.server")
SERVER_SIDE_CODES = frozenset({ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL})
MAX_WAITING = 64  # requests of one connection waiting in its lane; more are refused (rate_limited)
# How a refused hello closes the connection (any other refusal: 4001).
REFUSAL_CLOSE_CODES = {ErrorCode.BANNED: CloseCode.BANNED}

# A request's handler: done when it returns None, or a coroutine the session awaits (slow requests).
# It refuses a request by raising ProtocolError before changing anything.
Handler = Callable[["Session", Any], Awaitable[None] | None]
# What a frame becomes: a parsed request, or a move straight from the fast path (move_frames.py).
Incoming = Request | MoveFrame


class Transport(Protocol):
    def send(self, data: bytes) -> None:
        """Queue one binary frame without waiting."""

    def confirm(self, on_confirmed: Callable[[], None]) -> None:
        """Call ``on_confirmed`` once the client has read every frame sent so far (never, if it drops first)."""

    def close(self, code: int, reason: str) -> None:
        """Start closing the connection with a close code."""

    @property
    def latency(self) -> float:
        """The connection's last measured round trip, in seconds (0 before the first measurement)."""

    @property
    def closed_by_client(self) -> bool:
        """Whether the client closed the connection itself, with a websocket closing handshake."""


class SessionHost(Protocol):
    """What a session needs of the server (the hub is one)."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def metrics(self) -> ServerMetrics: ...

    @property
    def handlers(self) -> Mapping[type[Request], Handler]: ...

    def now(self) -> float:
        """The server's monotonic clock, in seconds."""

    async def greet(self, session: Session, hello: Hello) -> OnlinePlayer:
        """Identify the client of ``session`` from its hello and welcome it; ProtocolError to refuse."""

    def opened(self, session: Session) -> bool:
        """A websocket session begins; False if it must be closed at once (its address is banned)."""

    def disconnected(self, session: Session) -> None:
        """The session's connection is gone."""


class Session:
    __slots__ = ("_lane", "_lane_task", "bucket", "client", "closing", "cookie", "hub", "max_frame_bytes", "player",
                 "received_at", "refusal", "spectating", "transport")  # fmt: skip

    def __init__(
        self, hub: SessionHost, transport: Transport, client: ClientAddress | None = None, *, cookie: str | None = None
    ) -> None:
        self.hub = hub
        self.transport = transport
        self.client = client  # where the connection comes from (None: not over IP, or not a socket)
        self.refusal: ErrorCode | None = None  # why its hello was refused
        self.cookie = cookie  # a browser's session cookie from the handshake: a hello without token signs in
        self.player: OnlinePlayer | None = None
        self.spectating: set[str] = set()
        self.closing = False
        config = hub.config
        self.max_frame_bytes = config.max_frame_bytes
        self.received_at = hub.now()  # when the frame being handled arrived (the move-latency metric)
        self.bucket = TokenBucket(config.rate_per_s, config.rate_burst, config.flood_tolerance, self.received_at)
        # Slow requests and those queued behind them: (request, start, done); ``start`` calls the handler.
        self._lane: deque[tuple[Incoming, Callable[[], Awaitable[None] | None], asyncio.Future[None]]] = deque()
        self._lane_task: asyncio.Task[None] | None = None

    # --- output --------------------------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        if not self.closing:
            self.transport.send(data)

    def send_confirmed(self, data: bytes, on_confirmed: Callable[[], None]) -> None:
        """Send ``data``; ``on_confirmed`` once the client has read it (a match's end: kept until then)."""
        if not self.closing:
            self.transport.send(data)
            self.transport.confirm(on_confirmed)

    def reply(self, request: Request, message: dict[str, Any]) -> None:
        """Send ``message`` as the reply to ``request`` (echoing its id as ``re``)."""
        if request.id is not None:
            message["re"] = request.id
        self.send(encode(message))

    def ok(self, request: Request, **fields: Any) -> None:
        self.reply(request, {"type": "ok", **fields})

    def close(self, code: CloseCode, reason: str) -> None:
        if not self.closing:
            self.closing = True
            self.transport.close(code, reason)

    @property
    def latency(self) -> float:
        """The round trip of this connection (websocket pings), in seconds; 0 until measured."""
        return self.transport.latency

    @property
    def closed_by_client(self) -> bool:
        """The client left on purpose (a close handshake it began), rather than its socket dying."""
        return self.transport.closed_by_client

    def close_replaced(self) -> None:
        """A newer connection took over this session's player."""
        self.close(CloseCode.REPLACED, "the same player connected again")

    def close_credentials_ended(self) -> None:
        """The player's token was rotated or revoked, or its password changed."""
        self.close(CloseCode.CREDENTIALS_ENDED, "the token or password this connection signed in with has ended")

    def _error(self, error: ProtocolError, request: Incoming | None = None) -> None:
        if error.re is None and request is not None:
            error.re = request.request_id if type(request) is MoveFrame else request.id
        # A client's mistakes are its own business (debug); the server failing to serve is not.
        level = logging.WARNING if error.code in SERVER_SIDE_CODES else logging.DEBUG
        if log.isEnabledFor(level):
            player = None if self.player is None else self.player.name
            log.log(level, "error reply: %s", error.message, extra={"code": error.code.value, "player": player})
        self.hub.metrics.errors.labels(error.code.value).inc()
        self.send(encode(error.to_message()))

    # --- input ---------------------------------------------------------------------------------------
    async def handshake(self, frame: bytes | str) -> bool:
        """Handle the first frame, which must be a hello; False (after an error reply) when rejected."""
        request = None
        try:
            request = parse(decode(frame, max_bytes=self.hub.config.max_frame_bytes))
            if not isinstance(request, Hello):
                raise ProtocolError(ErrorCode.HELLO_FIRST, "the first message must be hello")
            await self.hub.greet(self, request)
            return True
        except ProtocolError as error:
            self.refusal = error.code
            self._error(error, request)
            return False

    def receive(self, frame: bytes | str) -> Awaitable[None] | None:
        """Handle one frame after the handshake: at once, or in the lane (module docstring).

        Returns None when the request is done, else an awaitable that completes when it is (tests
        and fuzzers await it; the websocket adapter goes on reading).
        """
        self.received_at = now = self.hub.now()
        verdict = self.bucket.take(now)
        if verdict is not Verdict.ALLOW:
            self._over_limit(verdict)
            return None
        request: Incoming | None = None
        try:
            if type(frame) is bytes and len(frame) <= self.max_frame_bytes:
                request = decode_move_frame(frame)  # most frames are moves: checked in one C call
            if request is None:
                request = parse(decode(frame, max_bytes=self.max_frame_bytes))
                handler = self.hub.handlers.get(type(request))
            else:
                handler = self.hub.handlers.get(MakeMove)  # a MoveFrame has MakeMove's fields
            if handler is None:
                raise ProtocolError(ErrorCode.ALREADY_GREETED, "hello was already accepted on this connection")
            if self._lane and not isinstance(request, (MatchRequest, MoveFrame)):
                return self._wait_in_lane(request, lambda: handler(self, request))
            pending = handler(self, request)
        except ProtocolError as error:
            self._error(error, request)
            return None
        except Exception:
            log.exception("handler failed on %r", request, extra={"code": ErrorCode.INTERNAL.value})
            self._error(ProtocolError(ErrorCode.INTERNAL, "the server failed on this request"), request)
            return None
        if pending is None:
            return None
        return self._wait_in_lane(request, lambda: pending)

    def _wait_in_lane(self, request: Incoming, start: Callable[[], Awaitable[None] | None]) -> Awaitable[None] | None:
        if len(self._lane) >= MAX_WAITING:
            self._error(ProtocolError(ErrorCode.RATE_LIMITED, "too many requests waiting for the server"), request)
            return None
        done = asyncio.get_running_loop().create_future()
        self._lane.append((request, start, done))
        if self._lane_task is None:
            self._lane_task = asyncio.get_running_loop().create_task(self._run_lane())
        return done

    async def _run_lane(self) -> None:
        while self._lane:
            request, start, done = self._lane[0]
            try:
                pending = start()
                if pending is not None:
                    await pending
            except ProtocolError as error:
                self._error(error, request)
            except Exception:
                log.exception("handler failed on %r", request, extra={"code": ErrorCode.INTERNAL.value})
                self._error(ProtocolError(ErrorCode.INTERNAL, "the server failed on this request"), request)
            finally:
                self._lane.popleft()
                done.set_result(None)
        self._lane_task = None

    async def settled(self) -> None:
        """Wait until every request received so far is done (the connection is going)."""
        while (task := self._lane_task) is not None and not task.done():
            await asyncio.shield(task)

    def _over_limit(self, verdict: Verdict) -> None:
        if verdict is Verdict.DROP_AND_WARN:
            self._error(ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; slow down or be disconnected"))
        elif verdict is Verdict.CLOSE:
            self.close(CloseCode.FLOOD, "rate limit exceeded")


class WebSocketTransport:
    """Frames out through one websocket connection, never waiting; a reader that falls too far behind is closed."""

    __slots__ = ("_closing", "_confirming", "_connection", "_limit")

    def __init__(self, connection: SessionConnection, max_buffer: int) -> None:
        self._connection = connection
        self._limit = max_buffer
        self._closing: asyncio.Task[None] | None = None
        self._confirming: set[asyncio.Task[None]] = set()

    def send(self, data: bytes) -> None:
        connection = self._connection
        connection.send_binary(data)
        transport = connection.transport
        if transport is not None and transport.get_write_buffer_size() > self._limit:
            self.close(CloseCode.TOO_SLOW, "not reading fast enough")

    def confirm(self, on_confirmed: Callable[[], None]) -> None:
        """A ping now: its pong comes back only after the client read every frame sent before it (TCP keeps order)."""
        task = asyncio.get_running_loop().create_task(self._confirm(on_confirmed))
        self._confirming.add(task)
        task.add_done_callback(self._confirming.discard)

    async def _confirm(self, on_confirmed: Callable[[], None]) -> None:
        try:
            pong = await self._connection.ping()
            await pong
        except ConnectionClosed:
            return  # the client may not have read it: the caller keeps it for its next welcome
        on_confirmed()

    @property
    def latency(self) -> float:
        return self._connection.latency

    @property
    def closed_by_client(self) -> bool:
        return bool(self._connection.protocol.close_rcvd_then_sent)

    def close(self, code: int, reason: str) -> None:
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._connection.close(code, reason))


async def serve_connection(
    hub: SessionHost, connection: SessionConnection, client: ClientAddress | None = None
) -> None:
    """The websocket handler: hello within the timeout, then every frame to the session until the end."""
    config = hub.config
    request = connection.request
    # A session cookie counts only from this site's own pages (no cross-site websocket hijacking).
    cookie = session_cookie(request) if request is not None and same_origin(request) else None
    session = Session(hub, WebSocketTransport(connection, config.max_send_buffer_bytes), client, cookie=cookie)
    hub.metrics.connections.inc()
    try:
        if not hub.opened(session):
            await connection.close(CloseCode.BANNED, "your address is banned from this server")
            return
        try:
            async with asyncio.timeout(config.hello_timeout_s):
                first = await connection.first_message()
        except TimeoutError:
            await connection.close(CloseCode.HANDSHAKE_TIMEOUT, "no hello")
            return
        if first is None:
            return
        if not await session.handshake(first):
            connection.discard()  # read on, for the client's close frame
            code = REFUSAL_CLOSE_CODES.get(session.refusal, CloseCode.HANDSHAKE_FAILED)  # type: ignore[arg-type]
            await connection.close(code, "hello rejected")
            return
        connection.attach(session.receive)  # every later message straight to the session (connection.py)
        await connection.wait_closed()
    finally:
        try:
            await session.settled()  # what the client asked for is done before its disconnect is
        finally:
            hub.metrics.connections.dec()
            hub.disconnected(session)
