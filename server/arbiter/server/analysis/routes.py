"""``GET /review.json?match=ID``: a finished game's kept review (SPEC.md section 14), one store read."""

from __future__ import annotations

from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from arbiter.server.store.base import Store, StoreError

from ..net.http import HttpRoutes, json_response, query_params


class ReviewRoutes:
    def __init__(self, store: Store) -> None:
        self.store = store

    def add_routes(self, routes: HttpRoutes) -> None:
        routes.add("/review.json", self._review_json)

    async def _review_json(self, connection: ServerConnection, request: Request) -> Response:
        match_id = query_params(request).get("match")
        if not match_id:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": "add ?match=ID"})
        try:
            review = await self.store.get_review(match_id)
        except StoreError:
            return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})
        if review is None:
            body = {"error": f"no review of {match_id!r} is kept: ask for one (`review`)", "code": "no_review"}
            return json_response(connection, HTTPStatus.NOT_FOUND, body)
        return json_response(connection, HTTPStatus.OK, review)
