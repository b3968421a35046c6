"""One connection of the conformance tool: every message read into a backlog and held to the schema."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from arbiter.protocol import PROTOCOL_VERSION, check_server_message

from .report import Mismatch, verify

CLIENT_NAME = "arbiter-conformance/1"
_ABSENT = object()


def summary(message: dict[str, Any]) -> str:
    """A message in one short line, for the table's "seen" column."""
    text = repr({k: v for k, v in message.items() if k not in ("games", "limits", "params", "players")})
    return text if len(text) <= 160 else text[:157] + "..."


class Peer:
    """A client connection; ``violations`` collects every server message that breaks the schema."""

    def __init__(self, ws: ClientConnection, label: str, violations: list[str], timeout_s: float) -> None:
        self.ws = ws
        self.label = label
        self.violations = violations
        self.timeout_s = timeout_s
        self.backlog: list[dict[str, Any]] = []
        self.seen: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] = {}
        self._arrived = asyncio.Event()
        self._closed = asyncio.Event()
        self._ids = itertools.count(1)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, url: str, label: str, violations: list[str], timeout_s: float) -> Peer:
        return cls(
            await connect(url, compression=None, max_size=2**24, open_timeout=timeout_s), label, violations, timeout_s
        )

    async def hello(self, token: str | None = None, **fields: Any) -> dict[str, Any]:
        """Say hello; the welcome (a Mismatch if anything else answers)."""
        hello: dict[str, Any] = {"protocol": PROTOCOL_VERSION, "client": CLIENT_NAME, **fields}
        if token is not None:
            hello["token"] = token
        reply = await self.request("hello", **hello)
        verify(reply["type"] == "welcome", "welcome", summary(reply))
        self.welcome = reply
        return reply

    @property
    def name(self) -> str:
        return str(self.welcome["player"]["name"])

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                message = msgpack.unpackb(frame, raw=False) if isinstance(frame, bytes) else {"type": f"text {frame!r}"}
                try:
                    check_server_message(message)
                except AssertionError as error:
                    self.violations.append(f"{summary(message)}: {error}")
                if isinstance(message, dict):
                    self.backlog.append(message)
                    self.seen.append(message)
                self._arrived.set()
        except (ConnectionClosed, ValueError):
            pass
        finally:
            self._closed.set()
            self._arrived.set()

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(msgpack.packb(message))

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request with a fresh id; the reply or error that echoes it."""
        rid = next(self._ids)
        await self.send({"type": kind, "id": rid, **fields})
        return await self.expect(re=rid)

    async def refused(self, code: str, kind: str, **fields: Any) -> str:
        """Send a request that SPEC.md says is refused with ``code``; Mismatch unless it is, with ``re``."""
        reply = await self.request(kind, **fields)
        expected = f"error {code} to {kind}"
        verify(reply["type"] == "error" and reply.get("code") == code, expected, summary(reply))
        return f"{code}: {reply.get('message')}"

    async def expect(self, kind: str | None = None, *, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """The first message (in arrival order) of type ``kind`` with these field values; Mismatch on timeout."""

        def wanted(message: dict[str, Any]) -> bool:
            return (kind is None or message["type"] == kind) and all(
                message.get(k, _ABSENT) == v for k, v in fields.items()
            )

        return await self.first(
            wanted, " ".join([kind or "a message", *(f"{k}={v!r}" for k, v in fields.items())]), timeout
        )

    async def first(
        self, wanted: Callable[[dict[str, Any]], bool], what: str, timeout: float | None = None
    ) -> dict[str, Any]:
        """The first message ``wanted`` accepts, taken from the backlog; Mismatch (saying ``what``) on timeout."""
        wait = self.timeout_s if timeout is None else timeout
        try:
            async with asyncio.timeout(wait):
                while True:
                    for i, message in enumerate(self.backlog):
                        if wanted(message):
                            return self.backlog.pop(i)
                    if self._closed.is_set():
                        break
                    self._arrived.clear()
                    await self._arrived.wait()
        except TimeoutError:
            pass
        last = ", ".join(summary(m) for m in self.backlog[-3:]) or "nothing"
        where = f"connection closed ({self.ws.close_code})" if self._closed.is_set() else f"nothing within {wait:g} s"
        raise Mismatch(f"{self.label} to get {what}", f"{where}; unread: {last}")

    def unread(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.backlog if m["type"] == kind]

    async def closed(self, timeout: float | None = None) -> int | None:
        """Wait for the server to close the connection; its close code (None if it did not close in time)."""
        try:
            async with asyncio.timeout(self.timeout_s if timeout is None else timeout):
                await self._closed.wait()
        except TimeoutError:
            return None
        return self.ws.close_code

    async def close(self) -> None:
        await self.ws.close()
        await self._reader
