"""The browser client on the server's own port: its files, its msgpack library, and finished games as JSON.

The client is plain ES modules in ``web/`` beside this module with no build step. Its one library,
``@msgpack/msgpack``, is installed by ``npm ci`` into ``node_modules`` (never copied into the
repository); the server finds the library's ESM build at start-up and serves it under
``/vendor/msgpack/``, where ``connection.js`` imports it from (a path, not an import map: the page
has no inline script, as its Content-Security-Policy allows none). Without it the server
still runs for bots, logs how to install it, and ``/`` answers a page saying the same.

Every file is read once at start-up and answered from memory, as ``http.py`` asks of its routes.
Replays read finished games from the store: ``GET /games.json?game=G&player=P&limit=N`` lists them,
``GET /game.json?match=M`` gives one with its moves in the wire encoding. A player's page reads
``GET /player.json?name=N&games=K&match=M`` (player_report.py); ``/player/NAME`` opens that page.
Its failure report links each failure's turn as a file to download, ``GET /request.json?match=M&ply=P``
(``failure_request``), which ``arbiter bridge stdio --replay`` feeds to a bot's program.
"""

from __future__ import annotations

import hashlib
import html
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from arbiter.server.store.base import GameRecord, Store, StoreError, UnknownPlayer

from .net.http import BadQuery, HttpRoutes, int_param, json_response, query_params, text_response
from .results.player_report import MAX_RECENT_GAMES, RECENT_GAMES, failure_request, player_report, unix_ms

log = logging.getLogger("arbiter.server")

WEB_ROOT = Path(__file__).resolve().parent / "web"
PART_ROOT = Path(__file__).resolve().parents[2]  # server/ in a checkout, where its package.json is
MSGPACK_ESM = Path("@msgpack/msgpack/dist.esm")
VENDOR_PREFIX = "/vendor/msgpack/"
NODE_MODULES_ENV = "ARBITER_NODE_MODULES"  # a node_modules folder elsewhere (an image, a shared install)
INSTALL_HINT = "run `npm ci` in server/ (or `make install`, which does it too)"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
PLAYER_PAGE = "/player/"  # /player/NAME: the client's page of NAME (#/player/NAME)
GAMES_LIMIT = 50  # finished games listed by /games.json unless ?limit= says otherwise
MAX_GAMES_LIMIT = 500


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: str
    etag: str


def node_modules_candidates() -> list[Path]:
    """Where ``npm ci`` may have put node_modules: the env override, the working folder, server/."""
    candidates = []
    override = os.environ.get(NODE_MODULES_ENV)
    if override:
        candidates.append(Path(override))
    candidates += [Path.cwd() / "node_modules", PART_ROOT / "node_modules"]
    return candidates


def find_msgpack_esm(node_modules: Iterable[Path]) -> Path | None:
    """The first folder holding the library's ESM entry point ``index.mjs``, or None."""
    for folder in node_modules:
        candidate = folder / MSGPACK_ESM
        if (candidate / "index.mjs").is_file():
            return candidate
    return None


def load_files(root: Path, prefix: str) -> dict[str, StaticFile]:
    """Every servable file under ``root`` by its URL path (``prefix`` + relative path)."""
    files = {}
    for path in sorted(root.rglob("*")):
        content_type = CONTENT_TYPES.get(path.suffix)
        if content_type is None or not path.is_file():
            continue
        body = path.read_bytes()
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        files[prefix + path.relative_to(root).as_posix()] = StaticFile(body, content_type, etag)
    return files


def unavailable_page(heading: str, body_html: str) -> str:
    """A small page saying why the browser client cannot start (the server itself runs on)."""
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Arbiter: browser client unavailable</title>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'></head>"
        f"<body><h1>{html.escape(heading)}</h1>{body_html}</body></html>\n"
    )


def missing_library_page(searched: list[Path]) -> str:
    places = "".join(f"<li><code>{html.escape(str(p / MSGPACK_ESM))}</code></li>" for p in searched)
    return unavailable_page(
        "The browser client is not installed",
        "<p>The server runs, but the page needs its msgpack library, <code>@msgpack/msgpack</code>, "
        f"from npm. To install it, {html.escape(INSTALL_HINT)}, then restart the server.</p>"
        f"<p>Looked in:</p><ul>{places}</ul>",
    )


class WebClient:
    """The routes of the browser client; ``add_routes`` registers them in the server's table."""

    def __init__(self, store: Store, *, web_root: Path = WEB_ROOT, node_modules: list[Path] | None = None) -> None:
        self.store = store
        searched = node_modules_candidates() if node_modules is None else node_modules
        self.files = load_files(web_root, "/")
        index = self.files.get("/index.html")
        self.library = find_msgpack_esm(searched)
        self.missing_page: str | None = None
        if index is None:
            log.error("browser client disabled: its files are missing from %s", web_root)
            self.missing_page = unavailable_page(
                "The browser client is missing",
                f"<p>This installation has no client files in <code>{html.escape(str(web_root))}</code>.</p>",
            )
        elif self.library is None:
            log.error("browser client disabled: @msgpack/msgpack is not installed; %s", INSTALL_HINT)
            self.missing_page = missing_library_page(searched)
        else:
            self.files.update(load_files(self.library, VENDOR_PREFIX))
            self.files["/"] = index

    def add_routes(self, routes: HttpRoutes) -> None:
        for path in self.files:
            routes.add(path, self._static)
        if self.missing_page is not None:
            routes.add("/", self._missing)
            routes.add(VENDOR_PREFIX + "index.mjs", self._missing)
        routes.add("/games.json", self._games_json)
        routes.add("/game.json", self._game_json)
        routes.add("/player.json", self._player_json)
        routes.add("/request.json", self._request_json)
        routes.add_prefix(PLAYER_PAGE, self._player_page)

    # --- files ---------------------------------------------------------------------------------------
    def _static(self, connection: ServerConnection, request: Request) -> Response:
        found = self.files[urlsplit(request.path).path]
        headers = Headers(
            [
                ("Content-Type", found.content_type),
                ("Cache-Control", "no-cache"),
                ("ETag", found.etag),
                ("Connection", "close"),
            ]
        )
        if request.headers.get("If-None-Match") == found.etag:
            return Response(HTTPStatus.NOT_MODIFIED.value, HTTPStatus.NOT_MODIFIED.phrase, headers, b"")
        headers["Content-Length"] = str(len(found.body))
        return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, found.body)

    def _missing(self, connection: ServerConnection, request: Request) -> Response:
        assert self.missing_page is not None
        return text_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, self.missing_page, "text/html; charset=utf-8")

    # --- finished games ------------------------------------------------------------------------------
    async def _games_json(self, connection: ServerConnection, request: Request) -> Response:
        query = query_params(request)
        try:
            limit = int_param(query, "limit", GAMES_LIMIT, 1, MAX_GAMES_LIMIT)
        except BadQuery as error:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": str(error)})
        try:
            records = await self.store.list_games(
                player=query.get("player"), game=query.get("game"), limit=limit, finished=True
            )
        except StoreError:
            return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})
        return json_response(connection, HTTPStatus.OK, {"games": [summary(r) for r in records]})

    async def _game_json(self, connection: ServerConnection, request: Request) -> Response:
        match_id = query_params(request).get("match")
        if not match_id:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": "add ?match=ID"})
        try:
            record = await self.store.get_game(match_id)
        except StoreError:
            return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})
        if record is None:
            return json_response(connection, HTTPStatus.NOT_FOUND, {"error": f"no game {match_id!r}"})
        if record.ended is None:
            return json_response(
                connection, HTTPStatus.CONFLICT, {"error": f"game {match_id!r} is not over; spectate it instead"}
            )
        body = {
            **summary(record),
            "clock": record.start.clock,
            "moves": [
                {"move": m.move, "elapsed_ms": m.elapsed_ms, **({"info": m.info} if m.info else {})}
                for m in record.moves
            ],
            "rating_changes": record.rating_changes,
            **({"swap": record.swap} if record.swap else {}),  # a swap opening's choices, by player name
        }
        return json_response(connection, HTTPStatus.OK, body)

    # --- players -------------------------------------------------------------------------------------
    async def _player_json(self, connection: ServerConnection, request: Request) -> Response:
        query = query_params(request)
        name = query.get("name")
        if not name:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": "add ?name=PLAYER"})
        try:
            games = int_param(query, "games", RECENT_GAMES, 1, MAX_RECENT_GAMES)
        except BadQuery as error:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": str(error)})
        try:
            report = await player_report(self.store, name, games=games, match=query.get("match"))
        except UnknownPlayer:
            return json_response(connection, HTTPStatus.NOT_FOUND, {"error": f"no player named {name!r}"})
        except ValueError as error:
            return json_response(connection, HTTPStatus.NOT_FOUND, {"error": str(error)})
        except StoreError:
            return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})
        return json_response(connection, HTTPStatus.OK, report)

    async def _request_json(self, connection: ServerConnection, request: Request) -> Response:
        """A finished game's turn at ``ply`` as a file: what its mover was given (player_report.failure_request)."""
        query = query_params(request)
        match_id = query.get("match")
        if not match_id or "ply" not in query:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": "add ?match=ID&ply=N"})
        try:
            ply = int(query["ply"])
        except ValueError:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": "ply must be an integer"})
        try:
            record = await self.store.get_game(match_id)
        except StoreError:
            return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})
        if record is None or record.ended is None:
            return json_response(connection, HTTPStatus.NOT_FOUND, {"error": f"no finished game {match_id!r}"})
        try:
            body = failure_request(record, ply)
        except ValueError as error:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": str(error)})
        response = json_response(connection, HTTPStatus.OK, body)
        filename = f"arbiter-request-{match_id}-{ply}.json".replace('"', "")
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def _player_page(self, connection: ServerConnection, request: Request) -> Response:
        """``/player/NAME``: the client's page of NAME, which lives under the page's hash router."""
        name = unquote(urlsplit(request.path).path[len(PLAYER_PAGE) :])
        response = connection.respond(HTTPStatus.FOUND, "")
        response.headers["Location"] = "/#/player/" + quote(name, safe="")
        return response


def summary(record: GameRecord) -> dict[str, Any]:
    """A finished game as the replay list shows it."""
    start = record.start
    return {
        "match": start.match_id,
        "game": start.game,
        "params": start.params,
        "players": list(start.players),
        "rated": start.rated,
        "result": record.result,
        "reason": record.reason,
        "plies": len(record.moves),
        "opening": start.opening,  # the first plies were a balanced opening, not the players' moves
        "levels": list(start.levels),
        "pool": start.pool,
        "started": start.started,  # Unix seconds (float), kept for older clients: prefer the *_ms fields
        "ended": record.ended,
        "started_ms": unix_ms(start.started),
        "ended_ms": unix_ms(record.ended),
    }
