"""Tournaments over HTTP: ``/tournaments.json``, ``/tournament.json?name=NAME`` (the report, with
the live games), the page ``/tournament?name=NAME`` (schedule, standings, crosstable, BayesElo, live
games to watch, archive links), the archive (``/tournament/archive.zip``, ``/tournament/games.sgf``)
and ``POST /tournament/enter?name=NAME[&player=BOT]``: a signed-in person enters an open tournament
with itself or one of its bots (the account routes' checks: session, CSRF, bans).
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import quote, urlencode

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from arbiter.server.store.base import Player, Store, StoreError, TournamentError, UnknownTournament

from ..access.accounts import AccountError
from ..net.http import HttpRoutes, json_response, query_params, text_response
from ..play.matches import Matches
from . import exports, lifecycle, report
from .model import FormatError

HTML = "text/html; charset=utf-8"
PLAIN = "text/plain; charset=utf-8"
# An account route's checks around an action (AccountRoutes.guarded).
Action = Callable[[ServerConnection, Request, Player | None], Awaitable[Response]]
Guard = Callable[[str, Action], Callable[[ServerConnection, Request], Awaitable[Response]]]


class TournamentPages:
    def __init__(self, store: Store, matches: Matches, guarded: Guard) -> None:
        self.store = store
        self.matches = matches
        self.guarded = guarded

    def add_routes(self, routes: HttpRoutes) -> None:
        routes.add("/tournaments.json", self._list_json)
        routes.add("/tournament.json", self._json)
        routes.add("/tournament", self._page)
        routes.add("/tournament/archive.zip", self._archive_zip)
        routes.add("/tournament/games.sgf", self._archive_sgf)
        routes.add("/tournament/enter", self.guarded("POST", self._enter))

    async def _list_json(self, connection: ServerConnection, request: Request) -> Response:
        try:
            tournaments = await self.store.list_tournaments()
        except StoreError:
            return json_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"error": "the store is not available"})
        listed = [{"name": t.name, "state": t.state, "format": t.spec.get("format"), "game": t.spec.get("game")}
                  for t in tournaments]  # fmt: skip
        return json_response(connection, HTTPStatus.OK, {"tournaments": listed})

    async def _json(self, connection: ServerConnection, request: Request) -> Response:
        found = await self._described(query_params(request).get("name", ""))
        if isinstance(found, tuple):
            return json_response(connection, found[0], {"error": found[1]})
        return json_response(connection, HTTPStatus.OK, found)

    async def _page(self, connection: ServerConnection, request: Request) -> Response:
        found = await self._described(query_params(request).get("name", ""))
        if isinstance(found, tuple):
            return text_response(connection, found[0], f"{found[1]}\n", PLAIN)
        return text_response(connection, HTTPStatus.OK, _page_of(found), HTML)

    async def _described(self, name: str) -> dict[str, Any] | tuple[HTTPStatus, str]:
        """The report with its live games, or the status and message of a refusal."""
        if not name:
            return HTTPStatus.BAD_REQUEST, "give the tournament: ?name=NAME"
        try:
            described = await report.describe(self.store, name)
        except UnknownTournament:
            return HTTPStatus.NOT_FOUND, f"no tournament named {name!r}"
        except StoreError:
            return HTTPStatus.SERVICE_UNAVAILABLE, "the store is not available"
        described["live"] = [g["match_id"] for g in described["games"]
                             if g["score"] is None and g["match_id"] in self.matches.live]  # fmt: skip
        return described

    async def _archive_zip(self, connection: ServerConnection, request: Request) -> Response:
        return await self._archive(connection, request, "zip")

    async def _archive_sgf(self, connection: ServerConnection, request: Request) -> Response:
        return await self._archive(connection, request, "sgf")

    async def _archive(self, connection: ServerConnection, request: Request, kind: str) -> Response:
        name = query_params(request).get("name", "")
        try:
            body = await exports.archive_of(self.store, name, kind)
        except FormatError as error:  # a game no such file holds
            return text_response(connection, HTTPStatus.BAD_REQUEST, f"{error}\n", PLAIN)
        except UnknownTournament:
            return text_response(connection, HTTPStatus.NOT_FOUND, f"no tournament named {name!r}\n", PLAIN)
        except StoreError:
            return text_response(connection, HTTPStatus.SERVICE_UNAVAILABLE, "the store is not available\n", PLAIN)
        content_type = "application/zip" if kind == "zip" else "application/x-go-sgf"
        response = text_response(connection, HTTPStatus.OK, "", content_type)
        response.body = body
        del response.headers["Content-Length"]
        response.headers["Content-Length"] = str(len(body))
        response.headers["Content-Disposition"] = f'attachment; filename="{quote(name)}{exports.SUFFIXES[kind]}"'
        return response

    async def _enter(self, connection: ServerConnection, request: Request, person: Player | None) -> Response:
        if person is None:
            raise AccountError("signed_out", "sign in first")
        query = query_params(request)
        name, entrant = query.get("name", ""), query.get("player") or person.name
        if entrant.lower() != person.name.lower():
            bots = {bot.name.lower(): bot.name for bot in await self.store.bots_of(person.name)}
            if entrant.lower() not in bots:
                raise AccountError("not_yours", f"{entrant!r} is not you nor one of your bots")
            entrant = bots[entrant.lower()]
        else:
            entrant = person.name
        try:
            await lifecycle.enter(self.store, name, entrant)
        except UnknownTournament as error:
            raise AccountError("not_yours", str(error)) from None
        except TournamentError as error:  # closed, by invitation, entered already
            raise AccountError("entry_closed", str(error)) from None
        return json_response(connection, HTTPStatus.OK, {"tournament": name, "entered": entrant})


def _page_of(described: dict[str, Any]) -> str:
    """The tournament's page: server-made HTML (the CSP allows no inline script)."""
    name, spec = described["name"], described["spec"]
    escape = html.escape
    query = urlencode({"name": name})
    head = (
        f"<p>{escape(spec['format'].replace('_', ' '))}{' (double)' if spec.get('double') else ''} of "
        f"<b>{escape(spec['game'])}</b>, {escape(described['state'])}; {described['decided']} of "
        f"{len(described['games'])} games decided. Pool {escape(described['pool'])}.</p>"
        f'<p><a href="/tournament.json?{query}">JSON</a> · <a href="/tournament/archive.zip?{query}">psq archive</a>'
        f' · <a href="/tournament/games.sgf?{query}">SGF collection</a></p>'
    )
    live = "".join(f'<li><a href="/#match/{quote(m)}">watch {escape(m)}</a></li>' for m in described["live"])
    rows = "".join(
        f"<tr><td>{r['rank']}</td><td>{escape(r['name'])}</td><td>{r['points']:g}</td><td>{r['played']}</td>"
        f"<td>{r['wins']}-{r['draws']}-{r['losses']}</td>"
        f"<td>{escape(', '.join(f'{k} {v:g}' for k, v in r['tiebreaks'].items()))}</td></tr>"
        for r in described["standings"]
    )
    standings = (
        "<h2>Standings</h2><table id='standings'><tr><th>#</th><th>player</th><th>points</th><th>games</th>"
        f"<th>W-D-L</th><th>tie-breaks</th></tr>{rows}</table>"
    )
    players = [r["name"] for r in described["standings"]]
    cross = described["crosstable"]
    cells = "".join(
        f"<tr><td>{escape(p)}</td>"
        + "".join(f"<td>{escape(' '.join(f'{s:g}' for s in cross.get(p, {}).get(q, [])))}</td>" for q in players)
        + "</tr>"
        for p in players
    )
    crosstable = (
        "<h2>Crosstable</h2><table id='crosstable'><tr><th></th>"
        + "".join(f"<th>{escape(p)}</th>" for p in players)
        + f"</tr>{cells}</table>"
    )
    elo = "".join(
        f"<tr><td>{escape(p)}</td><td>{f['elo']:.0f}</td><td>{f['low']:.0f} – {f['high']:.0f}</td></tr>"
        for p, f in sorted(described["bayeselo"].items(), key=lambda item: -item[1]["elo"])
    )
    bayeselo = f"<h2>BayesElo</h2><table id='bayeselo'><tr><th>player</th><th>Elo</th><th>95%</th></tr>{elo}</table>"
    games = "".join(
        f"<tr><td>{g['round']}</td><td>{g['board']}</td><td>{escape(g['black'])}</td>"
        f"<td>{escape(g['white'] or 'bye')}</td><td>{_score_text(g)}</td>"
        f"<td>{escape(g['forfeit'] or g['cause'] or '')}</td><td>{_game_link(g, described['live'])}</td></tr>"
        for g in described["games"]
    )
    schedule = (
        "<h2>Schedule</h2><table id='schedule'><tr><th>round</th><th>board</th><th>black</th><th>white</th>"
        f"<th>score</th><th>how</th><th>game</th></tr>{games}</table>"
    )
    watch = f"<h2>Live games</h2><ul id='live'>{live}</ul>" if live else ""
    return _html(f"Tournament {name}", head + watch + standings + crosstable + bayeselo + schedule)


def _html(title: str, body: str) -> str:
    """A page with the browser client's stylesheet (the CSP allows no inline style either)."""
    return (
        "<!doctype html>\n<html><head><meta charset='utf-8'><link rel='stylesheet' href='/css/style.css'>"
        f"<title>{html.escape(title)}</title></head><body class='tournament'><h1>{html.escape(title)}</h1>"
        f"{body}</body></html>\n"
    )


def _score_text(game: dict[str, Any]) -> str:
    score = game["score"]
    return "" if score is None else {1.0: "1-0", 0.0: "0-1"}.get(score, "½-½")


def _game_link(game: dict[str, Any], live: list[str]) -> str:
    match_id = game["match_id"]
    if match_id is None:
        return ""
    view = "match" if match_id in live else "replay"
    return f'<a href="/#{view}/{quote(match_id)}">{view}</a>'
