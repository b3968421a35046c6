"""Heavy reads per client address: the HTTP routes that read many games or every rating of a pool.

Each answer costs the store (and a thread) far more than a websocket message, and anyone may ask
without an account, so a client address (an IPv4 address, an IPv6 /64, a trusted proxy's client)
gets ``burst`` of them at once and then one every ``60 / per_minute`` seconds, across these routes
together; past that, 429 with ``Retry-After``. A person browsing the pages stays far below it.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from ..net.client_address import ClientAddress
from ..net.http import HttpRoutes, RouteHandler, json_response
from .attempts import AttemptLimiter

HEAVY_ROUTES = ("/export", "/leaderboard", "/leaderboard.json", "/crosstable.json", "/games.json", "/game.json",
                "/player.json", "/request.json")  # fmt: skip
REFUSAL = "too many requests from your address; try again later"


def limit_heavy_reads(
    routes: HttpRoutes,
    limiter: AttemptLimiter,
    client_of: Callable[[ServerConnection, Request], ClientAddress | None],
) -> None:
    """Put ``limiter`` in front of every heavy route of ``routes``."""

    def gate(handler: RouteHandler) -> RouteHandler:
        def limited(connection: ServerConnection, request: Request) -> Response | Awaitable[Response]:
            client = client_of(connection, request)
            if client is None or limiter.allow(client):
                return handler(connection, request)
            if request.path.partition("?")[0].endswith(".json"):
                response = json_response(connection, HTTPStatus.TOO_MANY_REQUESTS, {"error": REFUSAL})
            else:
                response = connection.respond(HTTPStatus.TOO_MANY_REQUESTS, REFUSAL + "\n")
            response.headers["Retry-After"] = str(max(1, math.ceil(limiter.retry_after(client))))
            return response

        return limited

    for path in HEAVY_ROUTES:
        routes.wrap(path, gate)
