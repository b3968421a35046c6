"""A websocket connection that hands each message to its session as soon as it is parsed.

Stock websockets queues every incoming message and wakes the handler's task to read it: a future,
a task switch and a few coroutine frames per message, several µs of the move path (docs/PERFORMANCE.md,
issue 18) that buy nothing here, because ``Session.receive`` never blocks (slow requests go on in the
session's own lane). So once the hello is accepted, ``SessionConnection`` calls the session from
``data_received`` itself. Until then messages wait in a short queue, read by ``first_message``, and
the session takes what queued up behind the hello before anything that comes later.

Messages are still websocket messages as RFC 6455 says: fragments are joined (websockets' limit on
their count and on the whole message's size applies), and a text message that is not UTF-8 fails
the connection with 1007, as websockets' own reader does.

On the way out, ``send_binary`` writes a message as one frame straight to the transport. websockets
builds the same bytes through a ``Frame`` object and its serializer, 2.7 µs a frame in Python, twice
a move (both players); a server frame is unmasked and, with compression off, is its payload behind a
two- to ten-byte header (RFC 6455 §5.2), so the header is all there is to build.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections import deque
from collections.abc import Callable

from websockets.asyncio.messages import MAX_FRAGMENTS  # websockets' own reader's limit
from websockets.asyncio.server import ServerConnection
from websockets.frames import BINARY, CONT, TEXT, Frame
from websockets.protocol import OPEN, Event

from arbiter.protocol.errors import CloseCode

log = logging.getLogger("arbiter.server")
Receiver = Callable[[bytes | str], object]
EARLY_HIGH = 16  # messages queued before the hello is answered: reading pauses beyond this
FIN_BINARY = 0x82  # the first byte of a whole binary message's frame: FIN set, opcode 2
SHORT_HEADERS = tuple(bytes((FIN_BINARY, length)) for length in range(126))  # payloads under 126 bytes
MEDIUM_HEADER = struct.Struct("!BBH")  # 126 and a 16-bit length
LONG_HEADER = struct.Struct("!BBQ")  # 127 and a 64-bit length


class SessionConnection(ServerConnection):
    """A ``ServerConnection`` that delivers messages by call instead of by ``recv`` (module docstring)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._receiver: Receiver | None = None
        self._early: deque[bytes | str] = deque()
        self._early_waiter: asyncio.Future[None] | None = None
        self._lost = False
        self._fragments: list[Frame] = []

    async def first_message(self) -> bytes | str | None:
        """The first message, or None when the connection is lost before one comes."""
        if not self._early and not self._lost:
            self._early_waiter = self.loop.create_future()
            try:
                await self._early_waiter
            finally:
                self._early_waiter = None
        if not self._early:
            return None
        message = self._early.popleft()
        self._resume_if_paused()
        return message

    def attach(self, receiver: Receiver) -> None:
        """From now on every message goes to ``receiver``, those already queued first, in order."""
        while self._early:
            receiver(self._early.popleft())
        self._receiver = receiver
        self._resume_if_paused()

    def discard(self) -> None:
        """Drop what is queued and what comes later (the hello was refused), reading on for the closing handshake."""
        self._early.clear()
        self._receiver = _ignore
        self._resume_if_paused()

    def send_binary(self, data: bytes) -> None:
        """Send ``data`` as one binary message now, never waiting (module docstring); nothing once closing.

        Like websockets' ``broadcast``, it skips a connection that is not open. (No fragmented
        message can be half sent: the server never sends one.) With an extension negotiated or frame
        logging on, websockets frames the message itself.
        """
        protocol = self.protocol
        if protocol.state is not OPEN:
            return
        if protocol.extensions or protocol.debug:
            protocol.send_binary(data)
            self.send_data()
            return
        self.transport.write(binary_frame(data))

    def process_event(self, event: Event) -> None:
        if self.request is None or not isinstance(event, Frame) or event.opcode not in (TEXT, BINARY, CONT):
            super().process_event(event)  # the handshake request, pongs (pings and closes: the protocol)
            return
        if not event.fin or self._fragments:
            self._fragments.append(event)
            if len(self._fragments) > MAX_FRAGMENTS:
                self._fragments.clear()
                self._fail(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
                return
            if not event.fin:
                return
            first, data = self._fragments[0], b"".join(frame.data for frame in self._fragments)
            self._fragments.clear()
        else:
            first, data = event, event.data
        message: bytes | str
        if first.opcode is TEXT:
            try:
                message = bytes(data).decode()
            except UnicodeDecodeError as exc:
                self._fail(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
                return
        else:
            message = bytes(data)
        receiver = self._receiver
        if receiver is None:
            self._queue_early(message)
            return
        try:
            receiver(message)
        except Exception:  # the session answers its own errors; anything else is a bug, kept to this connection
            log.exception("session failed on a message")
            self._fail(CloseCode.INTERNAL_ERROR, "internal error")

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._lost = True
        self._wake()

    def _queue_early(self, message: bytes | str) -> None:
        self._early.append(message)
        self._wake()
        if len(self._early) > EARLY_HIGH:
            self.transport.pause_reading()

    def _wake(self) -> None:
        if self._early_waiter is not None and not self._early_waiter.done():
            self._early_waiter.set_result(None)

    def _resume_if_paused(self) -> None:
        if len(self._early) <= EARLY_HIGH and not self.transport.is_reading() and not self.transport.is_closing():
            self.transport.resume_reading()

    def _fail(self, code: CloseCode, reason: str) -> None:
        """Fail the websocket connection as websockets' reader does, from inside ``data_received``.

        Frames parsed in the same read as the bad one reach nobody.
        """
        self._receiver = _ignore
        self._early.clear()
        self.protocol.fail(code, reason)
        self.send_data()


def binary_frame(data: bytes) -> bytes:
    """``data`` as a server's whole binary message on the wire: one unmasked frame, no extension."""
    length = len(data)
    if length < 126:
        return SHORT_HEADERS[length] + data
    if length < 65536:
        return MEDIUM_HEADER.pack(FIN_BINARY, 126, length) + data
    return LONG_HEADER.pack(FIN_BINARY, 127, length) + data


def _ignore(message: bytes | str) -> None:
    """The receiver of a connection whose hello was refused, or that failed."""
