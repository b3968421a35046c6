"""A browser on the server's own page, over real HTTP: cookies, CSRF token, same origin; for the tests of
accounts, sessions and proxies."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
from http.cookies import SimpleCookie
from typing import Any

import websockets

from arbiter.protocol.codec import decode, encode
from arbiter.server import RunningServer


def stopped() -> float:
    return 1000.0


class Browser:
    """An HTTP client that keeps cookies like a browser on the server's own page (same origin)."""

    def __init__(self, server: RunningServer, *, source: str | None = None) -> None:
        self.host, self.port = server.host, server.port
        self.source = source  # the client's own address (127.0.0.x), to count attempts apart
        self.cookies: dict[str, str] = {}
        self.csrf = ""
        self.set_cookie_headers: list[str] = []
        self.response_headers: list[str] = []  # the last response's, as "Name: value" lines

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def call(
        self, method: str, path: str, *, headers: dict[str, str] | None = None, csrf: bool = True
    ) -> tuple[int, dict[str, Any]]:
        sent = {"Host": f"{self.host}:{self.port}", "Origin": self.origin, "Sec-Fetch-Site": "same-origin"}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method == "POST" and csrf:
            sent["X-CSRF-Token"] = self.csrf
        sent.update(headers or {})
        status, headers, body = await asyncio.to_thread(self._request, method, path, sent)
        self.response_headers = [f"{name}: {value}" for name, value in headers]
        set_cookies = [value for name, value in headers if name.lower() == "set-cookie"]
        self.set_cookie_headers = set_cookies
        for header in set_cookies:
            jar: SimpleCookie = SimpleCookie()
            jar.load(header)
            for name, morsel in jar.items():
                if morsel.value and morsel["max-age"] != "0":
                    self.cookies[name] = morsel.value
                else:
                    self.cookies.pop(name, None)
        data = json.loads(body) if body else {}
        if isinstance(data, dict) and data.get("csrf"):
            self.csrf = data["csrf"]
        return status, data

    def _request(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        source = None if self.source is None else (self.source, 0)
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10, source_address=source)
        try:
            conn.request(method, path, headers=headers)
            response = conn.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            conn.close()

    async def state(self) -> dict[str, Any]:
        status, data = await self.call("GET", "/account.json")
        assert status == 200
        return data

    async def sign_up(self, name: str, password: str) -> tuple[int, dict[str, Any]]:
        await self.state()
        return await self.call("POST", "/account/signup", headers=basic(name, password))

    async def sign_in(self, name: str, password: str) -> tuple[int, dict[str, Any]]:
        await self.state()
        return await self.call("POST", "/account/signin", headers=basic(name, password))

    async def websocket_hello(self, *, origin: str | None = None) -> dict[str, Any]:
        """Open the websocket as this browser's page would (its cookies, its origin) and say hello."""
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        async with websockets.connect(
            f"ws://{self.host}:{self.port}/",
            additional_headers=headers,
            origin=origin or self.origin,  # type: ignore[arg-type]
        ) as ws:
            await ws.send(encode({"type": "hello", "id": 1, "protocol": 1, "client": "browser-test/1"}))
            welcome = decode(await asyncio.wait_for(ws.recv(), 10))
            assert welcome["type"] == "welcome", welcome
            return welcome  # type: ignore[no-any-return]


def basic(name: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()}
