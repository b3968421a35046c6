"""Plain HTTP on the websocket port: a small route table consulted before the websocket handshake.

A request with ``Upgrade: websocket`` becomes a websocket connection whatever its path; any other
request is answered from the route table (``GET /healthz`` now; the leaderboard, metrics and the
browser client's files are added with ``add``), or 404. This is not a web server: routes answer
small, quick responses from memory. Every response gets SECURITY_HEADERS (``add_security_headers``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

# A handler may be a coroutine function (websockets awaits what process_request returns): store reads.
RouteHandler = Callable[[ServerConnection, Request], Response | Awaitable[Response]]

# On every response (pages, JSON, errors, the handshake's): the page runs only this origin's own
# scripts and styles, connects only to it (CSP3's 'self' covers its ws: and wss:), is framed by no
# one and sends no Referer; no response is sniffed as another type than it says.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def add_security_headers(connection: ServerConnection, request: Request, response: Response) -> None:
    """``process_response`` for websockets' ``serve``: SECURITY_HEADERS on whatever is answered."""
    for name, value in SECURITY_HEADERS.items():
        if name not in response.headers:
            response.headers[name] = value


def text_response(connection: ServerConnection, status: HTTPStatus, body: str, content_type: str) -> Response:
    """A response of ``content_type`` (the handshake API only builds text/plain ones; the type is swapped)."""
    response = connection.respond(status, body)
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = content_type
    return response


def json_response(connection: ServerConnection, status: HTTPStatus, body: Any) -> Response:
    """A JSON response."""
    return text_response(connection, status, json.dumps(body, separators=(",", ":")), "application/json")


def query_params(request: Request) -> dict[str, str]:
    """The request's query string as a dict: the first value of each key (``?game=gomoku&limit=5``)."""
    return {key: values[0] for key, values in parse_qs(urlsplit(request.path).query).items()}


class BadQuery(ValueError):
    """A query parameter out of its range: the route answers 400 with the message."""


_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,12}")


def int_param(query: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    """The whole number ``query[name]`` (``default`` when absent), from ``low`` to ``high``; BadQuery
    otherwise. Every numeric parameter is bounded: SQL's ``LIMIT -1`` means no limit at all."""
    text = query.get(name)
    if text is None:
        return default
    value = int(text) if _WHOLE_NUMBER.fullmatch(text) else None
    if value is None or not low <= value <= high:
        raise BadQuery(f"{name} must be a whole number from {low} to {high}")
    return value


class HttpRoutes:
    """``process_request`` for websockets' ``serve``: exact paths → handlers, then path prefixes
    (``/player/`` for ``/player/NAME``) → handlers."""

    def __init__(self) -> None:
        self._routes: dict[str, RouteHandler] = {}
        self._prefixes: dict[str, RouteHandler] = {}

    def add(self, path: str, handler: RouteHandler) -> None:
        self._routes[path] = handler

    def wrap(self, path: str, wrapper: Callable[[RouteHandler], RouteHandler]) -> None:
        """Replace the handler of ``path`` by ``wrapper(handler)`` (a limit in front of a route)."""
        self._routes[path] = wrapper(self._routes[path])

    def add_prefix(self, prefix: str, handler: RouteHandler) -> None:
        """Answer every path that starts with ``prefix`` (and has no exact route) with ``handler``."""
        self._prefixes[prefix] = handler

    def __call__(self, connection: ServerConnection, request: Request) -> Response | Awaitable[Response] | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        path = request.path.partition("?")[0]
        handler = self._routes.get(path)
        if handler is None:
            handler = next((h for prefix, h in self._prefixes.items() if path.startswith(prefix)), None)
        if handler is None:
            return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
        return handler(connection, request)
