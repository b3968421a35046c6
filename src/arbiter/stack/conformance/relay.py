"""A websocket relay between a bot and the server: it reads every message both ways and can cut the
bot's connection and hold its next one, the way a network drop would, without the bot's cooperation.
It can also play the server itself for a scripted match: messages it injects reach the bot as if the
server sent them, and the bot's messages about that match come to the script instead of the server."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from arbiter.protocol import ProtocolError, decode, parse


class Relay:
    """``sent`` and ``received`` are the bot's messages and the server's to it, each with its connection's number."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.sent: list[tuple[int, dict[str, Any]]] = []
        self.received: list[tuple[int, dict[str, Any]]] = []
        self.violations: list[str] = []  # the bot's messages that are not valid client messages
        self.connections = 0
        self.changed = asyncio.Event()
        self._open = asyncio.Event()
        self._open.set()
        self.scripted: dict[str, asyncio.Queue[dict[str, Any]]] = {}  # match id -> the bot's messages about it
        self._links: list[tuple[ServerConnection, ClientConnection]] = []
        self._server: Server | None = None

    async def start(self) -> str:
        self._server = await serve(self._handle, "127.0.0.1", 0, compression=None, max_size=2**24)
        port = next(iter(self._server.sockets)).getsockname()[1]
        return f"ws://127.0.0.1:{port}/"

    async def stop(self) -> None:
        self.release()  # a connection still held would keep its handler, and so the close, waiting
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def hold(self) -> None:
        """New connections wait (their TCP accepted, nothing forwarded) until release()."""
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    async def cut(self) -> None:
        """Drop the bot's live connections as a dying network would: no close frame to the bot."""
        for bot, server in self._links:
            bot.transport.abort()
            await server.close()
        self._links.clear()

    async def inject(self, message: dict[str, Any]) -> None:
        """Send the bot a message as if from the server (on its live connection)."""
        if not self._links:
            raise ConnectionError("the bot is not connected")
        bot, _ = self._links[-1]
        await bot.send(msgpack.packb(message))

    async def wait_for(self, condition: Any, timeout: float) -> bool:
        """Wait until ``condition()`` holds (re-checked after each message); False on timeout."""
        try:
            async with asyncio.timeout(timeout):
                while not condition():
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            return False
        return True

    async def _handle(self, bot: ServerConnection) -> None:
        await self._open.wait()
        self.connections += 1
        number = self.connections
        try:
            server = await connect(self.upstream, compression=None, max_size=2**24)
        except OSError:
            return
        self._links.append((bot, server))
        pumps = [
            asyncio.create_task(self._from_bot(number, bot, server)),
            asyncio.create_task(self._to_bot(number, server, bot)),
        ]
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for task in pumps:
            task.cancel()
        with contextlib.suppress(Exception):
            await server.close()
        with contextlib.suppress(Exception):
            await bot.close()
        self.changed.set()

    async def _from_bot(self, number: int, bot: ServerConnection, server: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in bot:
                try:
                    message = decode(frame)
                    parse(message)
                except ProtocolError as error:
                    self.violations.append(f"{frame[:120]!r}: {error.code} {error.message}")
                    message = {"type": "(invalid)"}
                self.sent.append((number, message))
                self.changed.set()
                script = self.scripted.get(message.get("match"))  # type: ignore[arg-type]
                if script is not None:
                    script.put_nowait(message)
                else:
                    await server.send(frame)

    async def _to_bot(self, number: int, server: ClientConnection, bot: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in server:
                self.received.append((number, msgpack.unpackb(frame, raw=False)))
                self.changed.set()
                await bot.send(frame)
