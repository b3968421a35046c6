"""The ladder on the server: a queue per game, automatic pairing into rated matches, standings.

A registered player sends ``ladder_join`` for a game and is paired by ``pairing.LadderQueue``
(rating window, randomness, no immediate rematch, alternating colours) into rated matches under
the game's ladder clock, again after every match, until it sends ``ladder_leave`` or goes offline
for good. Pairing runs when someone joins, when a ladder match ends, and every ``retry_s`` while
players wait (their rating window widens meanwhile). Members who are away within their reconnect
grace, or at the server's match limit, are skipped until they can play.

Standings come from the store: ``leaderboard`` and ``crosstable`` messages, and over HTTP
``GET /leaderboard.json?game=G``, ``/crosstable.json?game=G``, ``/leaderboard?game=G`` (HTML) and
``/export?game=G&player=P&match=M&limit=N`` (game records, docs/RECORDS.md).
"""

from __future__ import annotations

import asyncio
import html
import logging
import random
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response

from arbiter.engine import create_game, game_names
from arbiter.protocol.errors import ErrorCode, ProtocolError
from arbiter.protocol.ladder import Crosstable, LadderJoin, LadderLeave, Leaderboard
from arbiter.protocol.messages import Request
from arbiter.server.pairing import LadderQueue
from arbiter.server.records import RecordError, format_record
from arbiter.server.store.base import Rating, Store, StoreError, UnknownPlayer

from .config import LadderConfig
from .http import HttpRoutes, json_response
from .match import Result
from .matches import LiveMatch, Matches
from .players import Roster
from .session import Handler, Session

log = logging.getLogger("arbiter.server")
EXPORT_LIMIT = 1000  # games per HTTP export unless ?limit= says otherwise (at most MAX_EXPORT_LIMIT)
MAX_EXPORT_LIMIT = 10_000

def describe_rating(rating: Rating) -> dict[str, Any]:
    """A rating as the protocol and the JSON pages show it."""
    return {
        "player": rating.player,
        "rating": round(rating.rating, 1),
        "deviation": round(rating.deviation, 1),
        "provisional": rating.provisional,
        "games": rating.games,
        "wins": rating.wins,
        "draws": rating.draws,
        "losses": rating.losses,
    }


class Ladder:
    def __init__(
        self,
        config: LadderConfig,
        *,
        max_matches: int,
        roster: Roster,
        matches: Matches,
        store: Store,
        now: Callable[[], float],
    ) -> None:
        self.config = config
        self.max_matches = max_matches  # the server's limit of live matches per player
        self.roster = roster
        self.live_matches = matches
        self.store = store
        self.now = now
        self.queues: dict[str, LadderQueue] = {}
        self.matches: dict[str, tuple[str, str, str]] = {}  # ladder match id → (game, first, second)
        self._rng = random.Random(config.seed)
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._stopped = False

        matches.end_listeners.append(self.match_ended)

    def handlers(self) -> dict[type[Request], Handler]:
        return {
            LadderJoin: self.on_join,
            LadderLeave: self.on_leave,
            Leaderboard: self.on_leaderboard,
            Crosstable: self.on_crosstable,
        }

    # --- requests ----------------------------------------------------------------------------------
    async def on_join(self, session: Session, msg: LadderJoin) -> None:
        player = session.player
        assert player is not None
        if player.identity.guest:
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "the ladder is rated: log in with a player's token")
        _check_game(msg.game)
        try:
            rating = await self.store.get_rating(player.name, msg.game)
        except UnknownPlayer:
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "this player is no longer registered") from None
        except StoreError:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot read ratings right now") from None
        queue = self.queues.get(msg.game)
        if queue is None:
            queue = self.queues[msg.game] = LadderQueue(
                msg.game,
                rng=self._rng,
                window=self.config.window,
                widen_per_s=self.config.widen_per_s,
                rematch_after_s=self.config.rematch_after_s,
            )
        queue.join(player.name, rating.rating, self.now(), capacity=msg.max_matches)
        session.reply(
            msg,
            {
                "type": "ladder_joined",
                "game": msg.game,
                "clock": self.config.clock_for(msg.game).describe(),
                "rating": describe_rating(rating),
                "waiting": len(queue.waiting()),
            },
        )
        self.kick()

    def on_leave(self, session: Session, msg: LadderLeave) -> None:
        assert session.player is not None
        queue = self.queues.get(msg.game)
        if queue is not None:
            queue.leave(session.player.name)
        session.ok(msg)

    async def on_leaderboard(self, session: Session, msg: Leaderboard) -> None:
        _check_game(msg.game)
        ratings = await _read(self.store.leaderboard(msg.game))
        session.reply(msg, {"type": "leaderboard", "game": msg.game, "ratings": [describe_rating(r) for r in ratings]})

    async def on_crosstable(self, session: Session, msg: Crosstable) -> None:
        _check_game(msg.game)
        table = await _read(self.store.crosstable(msg.game))
        session.reply(msg, {"type": "crosstable", "game": msg.game, "table": table})

    def queue_sizes(self) -> dict[str, int]:
        """Players waiting for a ladder match, by game (for /metrics)."""
        return {game: len(queue.waiting()) for game, queue in self.queues.items()}

    # --- pairing -----------------------------------------------------------------------------------
    def kick(self) -> None:
        """Pair now (or right after the pairing under way)."""
        if self._stopped:
            return
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._pair_until_settled())
        else:
            self._again = True

    async def _pair_until_settled(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._again = True
        while self._again and not self._stopped:
            self._again = False
            await self._pair_once()
        if not self._stopped and any(len(q.waiting()) >= 2 for q in self.queues.values()):
            self._timer = asyncio.get_running_loop().call_later(self.config.retry_s, self.kick)

    async def _pair_once(self) -> None:
        roster = self.roster
        limit = self.max_matches

        def can_play(name: str) -> bool:
            player = roster.get(name)
            return player is not None and player.connected and len(player.matches) < limit

        for game, queue in list(self.queues.items()):
            for name in queue.members():
                if roster.get(name) is None:  # offline past its grace: off the ladder
                    queue.leave(name)
            for first, second in queue.pair(self.now(), can_play=can_play):
                await self._start(game, queue, first, second)

    async def _start(self, game: str, queue: LadderQueue, first: str, second: str) -> None:
        players = (self.roster.get(first), self.roster.get(second))
        if players[0] is None or players[1] is None or self._stopped:
            queue.match_over(first, second, self.now())
            return
        try:
            live = await self.live_matches.start(
                (players[0], players[1]), create_game(game), self.config.clock_for(game), rated=True
            )
        except ProtocolError as error:
            log.warning("ladder match not started: %s", error.message,
                        extra={"game": game, "players": [first, second], "code": error.code.value})
            queue.match_over(first, second, self.now())
            return
        self.matches[live.id] = (game, first, second)

    def match_ended(self, live: LiveMatch, result: Result, changes: dict[str, float]) -> None:
        """Every end: ratings in the queues follow the store; a ladder match frees its players."""
        queue = self.queues.get(live.match.game.name)
        if queue is not None:
            for name, change in changes.items():
                rating = queue.rating_of(name)
                if rating is not None:
                    queue.set_rating(name, rating + change)
        entry = self.matches.pop(live.id, None)
        if entry is not None:
            game, first, second = entry
            self.queues[game].match_over(first, second, self.now())
            self.kick()

    def stop_timers(self) -> None:
        """No more pairing (a drain, then shutdown)."""
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # --- HTTP --------------------------------------------------------------------------------------
    def add_routes(self, routes: HttpRoutes) -> None:
        routes.add("/leaderboard.json", self._leaderboard_json)
        routes.add("/crosstable.json", self._crosstable_json)
        routes.add("/leaderboard", self._leaderboard_html)
        routes.add("/export", self._export)

    def _leaderboard_json(self, connection: ServerConnection, request: HttpRequest) -> Awaitable[Response]:
        async def respond(game: str) -> Response:
            ratings = await self.store.leaderboard(game)
            return json_response(
                connection, HTTPStatus.OK, {"game": game, "ratings": [describe_rating(r) for r in ratings]}
            )

        return _with_game(connection, request, respond)

    def _crosstable_json(self, connection: ServerConnection, request: HttpRequest) -> Awaitable[Response]:
        async def respond(game: str) -> Response:
            table = await self.store.crosstable(game)
            return json_response(connection, HTTPStatus.OK, {"game": game, "table": table})

        return _with_game(connection, request, respond)

    async def _leaderboard_html(self, connection: ServerConnection, request: HttpRequest) -> Response:
        query = _query(request)
        game = query.get("game")
        if game is None or game not in game_names():
            links = "".join(f'<li><a href="/leaderboard?{urlencode({"game": g})}">{g}</a></li>' for g in game_names())
            return _text(connection, HTTPStatus.OK, _page("Arbiter ladders", f"<ul>{links}</ul>"), "text/html")
        try:
            ratings = await self.store.leaderboard(game)
            table = await self.store.crosstable(game)
        except StoreError:
            return _text(connection, HTTPStatus.SERVICE_UNAVAILABLE, "the store is not available\n", "text/plain")
        return _text(connection, HTTPStatus.OK, _standings_page(game, ratings, table), "text/html")

    async def _export(self, connection: ServerConnection, request: HttpRequest) -> Response:
        query = _query(request)
        game, player, match_id = query.get("game"), query.get("player"), query.get("match")
        if game is not None and game not in game_names():
            return _text(connection, HTTPStatus.NOT_FOUND, f"no game {game!r}\n", "text/plain")
        try:
            limit = min(int(query.get("limit", EXPORT_LIMIT)), MAX_EXPORT_LIMIT)
        except ValueError:
            return _text(connection, HTTPStatus.BAD_REQUEST, "limit must be an integer\n", "text/plain")
        try:
            if match_id is not None:
                found = await self.store.get_game(match_id)
                records = [] if found is None else [found]
            else:
                records = (await self.store.list_games(player=player, game=game, limit=limit))[::-1]
        except StoreError:
            return _text(connection, HTTPStatus.SERVICE_UNAVAILABLE, "the store is not available\n", "text/plain")
        texts = []
        for record in records:
            try:
                texts.append(format_record(record))
            except RecordError as error:
                log.warning("export skipped a game: %s", error, extra={"match": record.start.match_id})
        return _text(connection, HTTPStatus.OK, "\n".join(texts), "text/plain")


# --- helpers -----------------------------------------------------------------------------------------
def _check_game(game: str) -> None:
    if game not in game_names():
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game!r}; see welcome.games")


async def _read(pending: Awaitable[Any]) -> Any:
    try:
        return await pending
    except StoreError:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot read the standings right now") from None


def _query(request: HttpRequest) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(request.path).query).items()}


async def _with_game(
    connection: ServerConnection, request: HttpRequest, respond: Callable[[str], Awaitable[Response]]
) -> Response:
    game = _query(request).get("game")
    if game is None:
        return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": "add ?game=NAME"})
    if game not in game_names():
        return json_response(connection, HTTPStatus.NOT_FOUND, {"error": f"no game {game!r}"})
    try:
        return await respond(game)
    except StoreError:
        return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})


def _text(connection: ServerConnection, status: HTTPStatus, body: str, content_type: str) -> Response:
    response = connection.respond(status, body)
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = f"{content_type}; charset=utf-8"
    return response


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}td:first-child,th:first-child{text-align:left}"
        f"</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _standings_page(game: str, ratings: list[Rating], table: dict[str, dict[str, list[int]]]) -> str:
    rows = "".join(
        f"<tr><td>{rank}. {html.escape(r.player)}</td><td>{r.rating:.0f}{'?' if r.provisional else ''}</td>"
        f"<td>{r.deviation:.0f}</td><td>{r.games}</td><td>{r.wins}</td><td>{r.draws}</td><td>{r.losses}</td></tr>"
        for rank, r in enumerate(ratings, 1)
    )
    standings = (
        "<h2>Leaderboard</h2><table><tr><th>player</th><th>rating</th><th>RD</th><th>games</th>"
        f"<th>W</th><th>D</th><th>L</th></tr>{rows}</table><p>? = provisional (RD above 110)</p>"
    )
    names = [r.player for r in ratings] + sorted(set(table) - {r.player for r in ratings})
    header = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    cells = ""
    for a in names:
        line = "".join(
            "<td>—</td>" if a == b else f"<td>{'/'.join(map(str, table.get(a, {}).get(b, [0, 0, 0])))}</td>"
            for b in names
        )
        cells += f"<tr><td>{html.escape(a)}</td>{line}</tr>"
    crosstable = f"<h2>Crosstable (W/D/L of the row's player)</h2><table><tr><th></th>{header}</tr>{cells}</table>"
    query = html.escape(urlencode({"game": game}))
    links = (
        f'<p><a href="/leaderboard.json?{query}">leaderboard JSON</a> · <a href="/crosstable.json?{query}">'
        f'crosstable JSON</a> · <a href="/export?{query}">game records</a></p>'
    )
    return _page(f"{game} ladder", standings + crosstable + links)
