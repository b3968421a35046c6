"""The ladder's standings over HTTP: leaderboards and crosstables as JSON and HTML, and game records.

``GET /leaderboard.json?game=G``, ``/crosstable.json?game=G``, ``/leaderboard?game=G`` (HTML, or the
list of ladders without ``game``), each for the game's ladder pool or, with ``&pool=P``, another
of its rating pools (pools.py); the JSON routes also take the pool a game would be rated in from its
rules, ``&params=P&initial_ms=I&increment_ms=N`` (P a JSON object, as a challenge has them), so the
browser never computes a pool key itself; and ``/export?game=G&player=P&match=M&limit=N&after=A&format=F``
(finished games' records: ``text``, docs/RECORDS.md; ``sgf``; ``psq``, one game, so with ``match``),
a page at a time, written in a thread. Each answer is one or two store reads (three for a JSON
route without ``game``: it answers for the first game whose ladder has ratings, so the browser's
leaderboard opens on standings that exist); a store that fails answers 503. The HTML page's
BayesElo fit and crosstable, made from every rated game of the pool, are kept per pool
(``PoolFits``), not made again at every request.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from http import HTTPStatus
from typing import Any
from urllib.parse import urlencode

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request as HttpRequest
from websockets.http11 import Response

from arbiter.engine import EngineError, create_game, game_names
from arbiter.server.basics.pools import game_of, pool_key
from arbiter.server.ranking.bayeselo import SCORES, Game, PoolFit, fit
from arbiter.server.results.game_files import FORMATS, Format, GameFileError
from arbiter.server.store.base import GameRecord, Rating, Store, StoreError
from arbiter.server.store.rows import crosstable_of

from ..net.http import BadQuery, HttpRoutes, int_param, json_response, query_params, text_response
from ..play.match import Result
from ..play.matches import LiveMatch

log = logging.getLogger("arbiter.server")

# Games per page of an HTTP export (?limit= asks for fewer; ?after= goes on): a page is read and
# written in threads, and a bounded page keeps each request's share of the GIL small.
EXPORT_LIMIT = 1000
MAX_EXPORT_LIMIT = 1000
CLUSTER_FIT_AGE_S = 60.0  # on a cluster's node a fit is made again after this long (games end on every node)
HTML = "text/html; charset=utf-8"
PLAIN = "text/plain; charset=utf-8"
CONTENT_TYPES = {"text": PLAIN, "psq": PLAIN, "sgf": "application/x-go-sgf; charset=utf-8"}


def _rules_pool(game: str, query: dict[str, str]) -> str | None:
    """The pool a game of ``game`` with the query's params and clock is rated in (None: the query names no clock),
    by the rule its match would follow: the game made with the params, then pools.pool_key."""
    if "initial_ms" not in query:
        return None
    clock = {name: int_param(query, name, 0, 0, 10**12) for name in ("initial_ms", "increment_ms")}
    try:
        params = json.loads(query.get("params", "{}"))
        if not isinstance(params, dict):
            raise BadQuery("params must be a JSON object of the game's parameters")
        return pool_key(game, dict(create_game(game, params).params), clock)
    except json.JSONDecodeError as error:
        raise BadQuery(f"params is not JSON: {error}") from None
    except EngineError as error:
        raise BadQuery(f"params: {error}") from None


def describe_rating(rating: Rating) -> dict[str, Any]:
    """A rating as the protocol and the JSON pages show it."""
    return {
        "player": rating.player,
        "level": rating.level,
        "label": rating.label,
        "pool": rating.pool,
        "rating": round(rating.rating, 1),
        "deviation": round(rating.deviation, 1),
        "provisional": rating.provisional,
        "games": rating.games,
        "wins": rating.wins,
        "draws": rating.draws,
        "losses": rating.losses,
    }


class StandingsPages:
    """The standings routes; ``add_routes`` registers them in the server's table."""

    def __init__(self, store: Store, ladder_pool: Callable[[str], str], *, max_fit_age_s: float | None = None) -> None:
        self.store = store
        self.ladder_pool = ladder_pool  # a game's default pool: its ladder's
        self.fits = PoolFits(store, max_fit_age_s)

    def add_routes(self, routes: HttpRoutes) -> None:
        routes.add("/leaderboard.json", self._leaderboard_json)
        routes.add("/crosstable.json", self._crosstable_json)
        routes.add("/leaderboard", self._leaderboard_html)
        routes.add("/export", self._export)

    def _leaderboard_json(self, connection: ServerConnection, request: HttpRequest) -> Awaitable[Response]:
        async def respond(game: str, pool: str) -> Response:
            ratings = await self.store.leaderboard(pool)
            pools = await self.store.rating_pools(game)
            body = {"game": game, "pool": pool, "pools": pools, "ratings": [describe_rating(r) for r in ratings]}
            return json_response(connection, HTTPStatus.OK, body)

        return self._with_pool(connection, request, respond)

    def _crosstable_json(self, connection: ServerConnection, request: HttpRequest) -> Awaitable[Response]:
        async def respond(game: str, pool: str) -> Response:
            table = await self.store.crosstable(pool)
            return json_response(connection, HTTPStatus.OK, {"game": game, "pool": pool, "table": table})

        return self._with_pool(connection, request, respond)

    async def _leaderboard_html(self, connection: ServerConnection, request: HttpRequest) -> Response:
        query = query_params(request)
        game = query.get("game")
        if game is None or game not in game_names():
            links = "".join(f'<li><a href="/leaderboard?{urlencode({"game": g})}">{g}</a></li>' for g in game_names())
            return text_response(connection, HTTPStatus.OK, _page("Arbiter ladders", f"<ul>{links}</ul>"), HTML)
        pool = query.get("pool") or self.ladder_pool(game)
        if game_of(pool) != game:
            return text_response(connection, HTTPStatus.NOT_FOUND, f"no pool {pool!r} of {game}\n", PLAIN)
        try:
            ratings = await self.store.leaderboard(pool)
            fitted, table = await self.fits.get(pool)
            pools = await self.store.rating_pools(game)
        except StoreError:
            return text_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, "the store is not available\n", PLAIN)
        page = _standings_page(game, pool, pools, ratings, table, fitted)
        return text_response(connection, HTTPStatus.OK, page, HTML)

    def game_ended(self, live: LiveMatch, result: Result, changes: dict[str, float]) -> None:
        """A match ended here: a rated result makes its pool's fit out of date (``Matches.end_listeners``)."""
        if live.match.rated and result.result is not None:
            self.fits.outdated(live.pool)

    async def _with_pool(
        self, connection: ServerConnection, request: HttpRequest, respond: Callable[[str, str], Awaitable[Response]]
    ) -> Response:
        query = query_params(request)
        game = query.get("game")
        if game is not None and game not in game_names():
            return json_response(connection, HTTPStatus.NOT_FOUND, {"error": f"no game {game!r}"})
        try:
            if game is None:
                game = await self._first_rated_game()
            pool = query.get("pool") or _rules_pool(game, query) or self.ladder_pool(game)
            if game_of(pool) != game:
                return json_response(connection, HTTPStatus.NOT_FOUND, {"error": f"no pool {pool!r} of {game}"})
            return await respond(game, pool)
        except BadQuery as error:
            return json_response(connection, HTTPStatus.BAD_REQUEST, {"error": str(error)})
        except StoreError:
            return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})

    async def _first_rated_game(self) -> str:
        """The first game, in the server's order, whose ladder pool holds ratings (else the first game)."""
        rated = set(await self.store.rating_pools())
        return next((game for game in game_names() if self.ladder_pool(game) in rated), game_names()[0])

    async def _export(self, connection: ServerConnection, request: HttpRequest) -> Response:
        query = query_params(request)
        game, player, match_id, after = query.get("game"), query.get("player"), query.get("match"), query.get("after")
        if game is not None and game not in game_names():
            return text_response(connection, HTTPStatus.NOT_FOUND, f"no game {game!r}\n", PLAIN)
        fmt = FORMATS.get(query.get("format", "text"))
        if fmt is None:
            return text_response(connection, HTTPStatus.BAD_REQUEST, f"format is one of {', '.join(FORMATS)}\n", PLAIN)
        try:
            limit = int_param(query, "limit", EXPORT_LIMIT, 1, MAX_EXPORT_LIMIT)
        except BadQuery as error:
            return text_response(connection, HTTPStatus.BAD_REQUEST, f"{error}\n", PLAIN)
        if fmt.one_game_per_file and match_id is None:
            return text_response(
                connection, HTTPStatus.BAD_REQUEST, f"a {fmt.suffix} file holds one game: add &match=ID\n", PLAIN
            )
        page: list[GameRecord] = []  # a listing's page, newest first
        reviews: dict[str, dict[str, Any]] = {}
        try:
            if match_id is not None:
                found = await self.store.get_game(match_id)
                if found is not None and found.ended is None:  # its analysis is not for the opponent yet
                    return text_response(
                        connection, HTTPStatus.CONFLICT, f"game {match_id!r} is not over; spectate it instead\n", PLAIN
                    )
                records = [] if found is None else [found]
                kept = None if found is None else await self.store.get_review(match_id)
                if kept is not None:  # one game's export carries its review
                    reviews[match_id] = kept
            else:
                if after is not None and await self.store.get_game(after) is None:
                    return text_response(connection, HTTPStatus.NOT_FOUND, f"no game {after!r} to go on after\n", PLAIN)
                page = await self.store.list_games(player=player, game=game, limit=limit, finished=True, after=after)
                records = page[::-1]
        except StoreError:
            return text_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, "the store is not available\n", PLAIN)
        if fmt.one_game_per_file and not records:
            return text_response(connection, HTTPStatus.NOT_FOUND, f"no game {match_id!r}\n", PLAIN)
        try:
            # Thousands of records take a while to write: a thread's work, not the event loop's.
            body = await asyncio.to_thread(_export_text, fmt, records, reviews)
        except GameFileError as error:
            return text_response(connection, HTTPStatus.UNPROCESSABLE_ENTITY, f"{error}\n", PLAIN)
        response = text_response(connection, HTTPStatus.OK, body, CONTENT_TYPES[fmt.name])
        if len(page) == limit:  # perhaps more: the next page goes on after this one's oldest game
            response.headers["Link"] = f'</export?{urlencode({**query, "after": page[-1].start.match_id})}>; rel="next"'
        return response


def _export_text(fmt: Format, records: list[GameRecord], reviews: Mapping[str, dict[str, Any]]) -> str:
    """The records in ``fmt``, oldest first; a game the format cannot hold is skipped with a warning
    (GameFileError when it is the only one asked for, ``fmt.one_game_per_file``)."""
    texts = []
    for record in records:
        try:
            texts.append(fmt.write([record], reviews))
        except GameFileError as error:
            if fmt.one_game_per_file:
                raise
            log.warning("export skipped a game: %s", error, extra={"match": record.start.match_id})
    return ("\n" if fmt.name == "text" else "").join(texts)


Crosstable = dict[str, dict[str, list[int]]]


class PoolFits:
    """The BayesElo fit and the crosstable of each pool, made off the event loop from one read of
    its rated games and kept until rated games end in the pool (``outdated``) or they are
    ``max_age_s`` old (a cluster's node: games end on the other nodes too). The last fit is served
    while its successor is made; only a pool's first fit is waited for."""

    def __init__(self, store: Store, max_age_s: float | None = None, now: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.max_age_s = max_age_s
        self.now = now
        self._fits: dict[str, tuple[PoolFit, Crosstable, float]] = {}  # pool → (…, when its games were read)
        self._outdated: set[str] = set()
        self._computing: dict[str, asyncio.Task[tuple[PoolFit, Crosstable]]] = {}

    def outdated(self, pool: str) -> None:
        self._outdated.add(pool)

    async def get(self, pool: str) -> tuple[PoolFit, Crosstable]:
        """The pool's latest fit and crosstable; StoreError if there are none yet and the store fails."""
        kept = self._fits.get(pool)
        fresh = (
            kept is not None
            and pool not in self._outdated
            and (self.max_age_s is None or self.now() - kept[2] < self.max_age_s)
        )
        task = self._computing.get(pool)
        if not fresh and task is None:
            self._outdated.discard(pool)  # games ending from now on make the new fit out of date again
            task = self._computing[pool] = asyncio.get_running_loop().create_task(self._compute(pool))
            task.add_done_callback(self._computed)
        if kept is not None:
            return kept[0], kept[1]
        assert task is not None
        return await asyncio.shield(task)  # one request giving up does not cancel the others' fit

    async def stop(self) -> None:
        """Cancel the fits being made (the server stops)."""
        for task in list(self._computing.values()):
            task.cancel()
        await asyncio.gather(*self._computing.values(), return_exceptions=True)

    def _computed(self, task: asyncio.Task[tuple[PoolFit, Crosstable]]) -> None:
        self._computing = {pool: t for pool, t in self._computing.items() if t is not task}
        if not task.cancelled():
            task.exception()  # retrieved: a failure is logged in _compute and retried at the next request

    async def _compute(self, pool: str) -> tuple[PoolFit, Crosstable]:
        read = self.now()
        try:
            results = await self.store.rated_results(pool)
        except StoreError as error:
            self._outdated.add(pool)  # try again at the next request
            log.warning("BayesElo fit of %s not made: %s", pool, error)
            raise
        fitted, table = await asyncio.to_thread(_fit_results, results)  # a large pool's fit takes seconds
        self._fits[pool] = (fitted, table, read)
        return fitted, table


def _fit_results(results: list[tuple[str, str, str]]) -> tuple[PoolFit, Crosstable]:
    """The BayesElo fit and the crosstable of (first, second, result) rows (``Store.rated_results``)."""
    return fit([Game(first, second, SCORES[result]) for first, second, result in results]), crosstable_of(results)


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}td:first-child,th:first-child{text-align:left}"
        f"</style></head><body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _standings_page(
    game: str, pool: str, pools: list[str], ratings: list[Rating], table: dict[str, dict[str, list[int]]],
    fitted: PoolFit,
) -> str:  # fmt: skip
    others = " · ".join(
        html.escape(p)
        if p == pool
        else f'<a href="/leaderboard?{html.escape(urlencode({"game": game, "pool": p}))}">{html.escape(p)}</a>'
        for p in sorted({*pools, pool})
    )
    heading = f"<p>Rating pool <b>{html.escape(pool)}</b>. Pools of {html.escape(game)}: {others}</p>"
    rows = "".join(
        f"<tr><td>{rank}. {html.escape(r.label)}</td><td>{r.rating:.0f}{'?' if r.provisional else ''}</td>"
        f"<td>{r.deviation:.0f}</td><td>{r.games}</td><td>{r.wins}</td><td>{r.draws}</td><td>{r.losses}</td></tr>"
        for rank, r in enumerate(ratings, 1)
    )
    standings = (
        "<h2>Leaderboard</h2><table><tr><th>player</th><th>rating</th><th>RD</th><th>games</th>"
        f"<th>W</th><th>D</th><th>L</th></tr>{rows}</table><p>? = provisional (RD above 110)</p>"
    )
    fitted_rows = "".join(
        f"<tr><td>{rank}. {html.escape(p.name)}</td><td>{p.elo:+.0f}</td><td>{p.low:+.0f} … {p.high:+.0f}</td>"
        f"<td>{p.games}</td><td>{p.score / p.games:.1%}</td></tr>"
        for rank, p in enumerate(fitted.players, 1)
    )
    bayeselo = (
        "<h2>BayesElo</h2><p>One maximum-likelihood fit over every rated game (what CGOS and Gomocup publish); "
        f"Elo relative to the average player. First move: {fitted.advantage:+.0f} Elo; draw margin: "
        f"{fitted.draw:.0f} Elo. It and the crosstable are made again as rated games end, so they may lag a "
        "game behind.</p><table><tr><th>player</th><th>Elo</th><th>95% interval</th><th>games</th>"
        f"<th>score</th></tr>{fitted_rows}</table>"
    )
    names = [r.label for r in ratings] + sorted(set(table) - {r.label for r in ratings})
    header = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    cells = ""
    for a in names:
        line = "".join(
            "<td>—</td>" if a == b else f"<td>{'/'.join(map(str, table.get(a, {}).get(b, [0, 0, 0])))}</td>"
            for b in names
        )
        cells += f"<tr><td>{html.escape(a)}</td>{line}</tr>"
    crosstable = f"<h2>Crosstable (W/D/L of the row's player)</h2><table><tr><th></th>{header}</tr>{cells}</table>"
    query = html.escape(urlencode({"game": game, "pool": pool}))
    links = (
        f'<p><a href="/leaderboard.json?{query}">leaderboard JSON</a> · <a href="/crosstable.json?{query}">'
        f'crosstable JSON</a> · <a href="/export?{html.escape(urlencode({"game": game}))}">game records</a></p>'
    )
    return _page(f"{game} ladder", heading + standings + bayeselo + crosstable + links)
