"""The account API over HTTP, on the websocket port: sign-up, sign-in, sign-out, password change,
and a person's bots. docs/ACCOUNTS.md has the reference; ``accounts.py`` does the work.

websockets' HTTP parser takes no request body, so a request carries what it sends in headers:
credentials as ``Authorization: Basic`` (the standard place for them), a new password as
``X-New-Password`` (base64 of UTF-8), a bot's name in the query string. Every POST is checked for
cross-site forgery three ways: the ``X-CSRF-Token`` header (a page on another site cannot set it
without CORS, which this server never grants) must equal the session's token, or before sign-in
the ``arbiter_csrf`` cookie (double submit); an ``Origin`` header must name this host; and a
browser's ``Sec-Fetch-Site`` must not say cross-site. Cookies are HttpOnly and SameSite=Strict,
and Secure when the server is told it is reached over TLS (``--secure-cookies``).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from arbiter.server.store.base import NameTaken, Player, StoreError, UnknownPlayer

from ..net.cookies import read_cookies
from ..net.http import HttpRoutes, json_response, query_params
from .accounts import SESSION_DAYS, AccountError, Accounts, SignedIn, csrf_of

log = logging.getLogger("arbiter.server")

SESSION_COOKIE = "arbiter_session"
CSRF_COOKIE = "arbiter_csrf"
CSRF_HEADER = "X-CSRF-Token"

# What each refusal's code answers with.
_STATUS = {
    "bad_request": HTTPStatus.BAD_REQUEST,
    "bad_name": HTTPStatus.BAD_REQUEST,
    "bad_password": HTTPStatus.BAD_REQUEST,
    "auth_failed": HTTPStatus.UNAUTHORIZED,
    "signed_out": HTTPStatus.UNAUTHORIZED,
    "csrf": HTTPStatus.FORBIDDEN,
    "banned": HTTPStatus.FORBIDDEN,
    "revoked_by_operator": HTTPStatus.FORBIDDEN,
    "registration_closed": HTTPStatus.FORBIDDEN,
    "not_yours": HTTPStatus.NOT_FOUND,
    "name_taken": HTTPStatus.CONFLICT,
    "too_many_bots": HTTPStatus.CONFLICT,
    "entry_closed": HTTPStatus.CONFLICT,  # a tournament that takes no entry (tournaments/routes.py)
    "method": HTTPStatus.METHOD_NOT_ALLOWED,
    "rate_limited": HTTPStatus.TOO_MANY_REQUESTS,
    "unavailable": HTTPStatus.SERVICE_UNAVAILABLE,
    "busy": HTTPStatus.SERVICE_UNAVAILABLE,
}

# An action gets the request and the account its session cookie is signed in as (None: none).
Action = Callable[[ServerConnection, Request, Player | None], Awaitable[Response]]


class AccountRoutes:
    """``/account.json`` (GET) and the ``/account/...`` actions (POST); ``add_routes`` registers them."""

    def __init__(
        self,
        accounts: Accounts,
        *,
        secure_cookies: bool = False,
        allow_attempt: Callable[[ServerConnection, Request], bool] | None = None,
        address_banned: Callable[[ServerConnection, Request], bool] | None = None,
    ) -> None:
        self.accounts = accounts
        self.secure_cookies = secure_cookies
        # Sign-in and sign-up attempts per client address (None: unlimited).
        self.allow_attempt = allow_attempt
        # Whether the request's client address is banned (its POSTs are refused as its handshakes are).
        self.address_banned = address_banned

    def add_routes(self, routes: HttpRoutes) -> None:
        routes.add("/account.json", self.guarded("GET", self._account))
        routes.add("/account/signup", self.guarded("POST", self._sign_up, attempt=True))
        routes.add("/account/signin", self.guarded("POST", self._sign_in, attempt=True))
        routes.add("/account/signout", self.guarded("POST", self._sign_out, banned_ok=True))
        routes.add("/account/password", self.guarded("POST", self._password, attempt=True))
        routes.add("/account/bots/new", self.guarded("POST", self._new_bot))
        routes.add("/account/bots/rotate", self.guarded("POST", self._rotate))
        routes.add("/account/bots/revoke", self.guarded("POST", self._revoke))

    # --- the actions ------------------------------------------------------------------------------
    async def _account(self, connection: ServerConnection, request: Request, player: Player | None) -> Response:
        """Who this browser is signed in as, its CSRF token, and the person's bots."""
        cookie = _cookies(request).get(SESSION_COOKIE)
        body: dict[str, Any] = {"registration": "open" if self.accounts.registration_open else "closed"}
        if player is not None and cookie is not None:
            bots = await self.accounts.store.bots_of(player.name)
            body.update(player=self._describe(player), csrf=csrf_of(cookie), bots=[self._describe(b) for b in bots])
            return _no_store(json_response(connection, HTTPStatus.OK, body))
        token = _cookies(request).get(CSRF_COOKIE) or secrets.token_urlsafe(24)
        body.update(player=None, csrf=token, bots=[])
        response = json_response(connection, HTTPStatus.OK, body)
        response.headers["Set-Cookie"] = self._cookie(CSRF_COOKIE, token, SESSION_DAYS * 86400)
        return _no_store(response)

    async def _sign_up(self, connection: ServerConnection, request: Request, _: Player | None) -> Response:
        name, password = _basic_credentials(request)
        try:
            signed_in = await self.accounts.sign_up(name, password)
        except NameTaken:
            raise AccountError("name_taken", f"the name {name!r} is taken") from None
        log.info("account created", extra={"player": signed_in.player.name})
        return self._signed_in(connection, signed_in, HTTPStatus.CREATED)

    async def _sign_in(self, connection: ServerConnection, request: Request, _: Player | None) -> Response:
        name, password = _basic_credentials(request)
        return self._signed_in(connection, await self.accounts.sign_in(name, password), HTTPStatus.OK)

    async def _sign_out(self, connection: ServerConnection, request: Request, _: Player | None) -> Response:
        cookie = _cookies(request).get(SESSION_COOKIE)
        if cookie:
            await self.accounts.sign_out(cookie)
        response = json_response(connection, HTTPStatus.OK, {"player": None})
        response.headers["Set-Cookie"] = self._cookie(SESSION_COOKIE, "", 0)
        return _no_store(response)

    async def _password(self, connection: ServerConnection, request: Request, player: Player | None) -> Response:
        player = _required(player)
        name, current = _basic_credentials(request)
        if name.lower() != player.name.lower():
            raise AccountError("bad_request", "the credentials must be those of the signed-in account")
        new = _header_text(request, "X-New-Password")
        signed_in = await self.accounts.change_password(player.name, current, new)
        return self._signed_in(connection, signed_in, HTTPStatus.OK)

    async def _new_bot(self, connection: ServerConnection, request: Request, player: Player | None) -> Response:
        owner = _required(player)
        name = _bot_name(request)
        try:
            token = await self.accounts.create_bot(owner, name)
        except NameTaken:
            raise AccountError("name_taken", f"the name {name!r} is taken") from None
        log.info("bot created", extra={"player": name, "owner": owner.name})
        return _no_store(json_response(connection, HTTPStatus.CREATED, {"bot": name, "token": token}))

    async def _rotate(self, connection: ServerConnection, request: Request, player: Player | None) -> Response:
        owner = _required(player)
        name = _bot_name(request)
        token = await self.accounts.rotate_token(owner, name)
        return _no_store(json_response(connection, HTTPStatus.OK, {"bot": name, "token": token}))

    async def _revoke(self, connection: ServerConnection, request: Request, player: Player | None) -> Response:
        owner = _required(player)
        name = _bot_name(request)
        await self.accounts.revoke_bot(owner, name)
        return _no_store(json_response(connection, HTTPStatus.OK, {"bot": name, "revoked": True}))

    # --- checks common to every route -------------------------------------------------------------
    def guarded(
        self, method: str, action: Action, *, attempt: bool = False, banned_ok: bool = False
    ) -> Callable[..., Awaitable[Response]]:
        """``action`` behind the checks every route shares: the method, forgery, the per-address
        attempt limit, and a ban (a banned person's session may only read its state and sign out)."""

        async def route(connection: ServerConnection, request: Request) -> Response:
            try:
                if request.method != method:
                    raise AccountError("method", f"use {method} here")
                cookie = _cookies(request).get(SESSION_COOKIE)
                player = await self.accounts.session(cookie)  # read once per request
                if method == "POST":
                    _check_forgery(request, cookie if player is not None else None)
                    if self.address_banned is not None and self.address_banned(connection, request):
                        raise AccountError("banned", "your address is banned from this server")
                    if player is not None and not banned_ok:
                        self.accounts.check_not_banned(player)
                if attempt and self.allow_attempt is not None and not self.allow_attempt(connection, request):
                    raise AccountError("rate_limited", "too many attempts from your address; wait a minute")
                return await action(connection, request, player)
            except AccountError as error:
                return _refusal(connection, error)
            except UnknownPlayer as exc:
                return _refusal(connection, AccountError("not_yours", str(exc)))
            except StoreError as exc:
                log.warning("account request failed: %s", exc)
                return _refusal(connection, AccountError("unavailable", "accounts are unavailable right now"))

        return route

    def _describe(self, player: Player) -> dict[str, Any]:
        """An account as its page shows it: who revoked it, and the ban (its own or its owner's) that keeps it out."""
        revoked_by = "operator" if player.revoked_by_operator else "owner" if player.revoked else None
        ban = self.accounts.ban_of(player)
        banned = None if ban is None else {"target": ban.target, "reason": ban.reason}
        return {"name": player.name, "kind": player.kind, "owner": player.owner, "revoked": player.revoked,
                "revoked_by": revoked_by, "banned": banned}  # fmt: skip

    def _signed_in(self, connection: ServerConnection, signed_in: SignedIn, status: HTTPStatus) -> Response:
        body = {"player": self._describe(signed_in.player), "csrf": signed_in.csrf}
        response = json_response(connection, status, body)
        response.headers["Set-Cookie"] = self._cookie(SESSION_COOKIE, signed_in.cookie, SESSION_DAYS * 86400)
        return _no_store(response)

    def _cookie(self, name: str, value: str, max_age: int) -> str:
        secure = "; Secure" if self.secure_cookies else ""
        return f"{name}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Strict{secure}"


def _check_forgery(request: Request, session: str | None) -> None:
    """AccountError(csrf) unless a POST comes from this site's own page: ``session`` is the valid
    session cookie it carries (its token is expected), or None (the double-submit cookie is)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        raise AccountError("csrf", f"a {site} request cannot change an account")
    if not same_origin(request):
        raise AccountError("csrf", "the request comes from another site")
    sent = request.headers.get(CSRF_HEADER, "")
    expected = csrf_of(session) if session is not None else _cookies(request).get(CSRF_COOKIE, "")
    if not sent or not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise AccountError("csrf", f"missing or wrong {CSRF_HEADER}; reload the page")


def _required(player: Player | None) -> Player:
    if player is None:
        raise AccountError("signed_out", "sign in first")
    return player


def session_cookie(request: Request) -> str | None:
    """The session cookie a request (a websocket handshake too) carries, if any."""
    return _cookies(request).get(SESSION_COOKIE)


def same_origin(request: Request) -> bool:
    """Whether a request's ``Origin`` (when it has one) names the host it was sent to."""
    origin = request.headers.get("Origin")
    return origin is None or urlsplit(origin).netloc.lower() == request.headers.get("Host", "").lower()


def _cookies(request: Request) -> dict[str, str]:
    """This server's two cookies, as the request carries them (cookies.py: bounded and linear)."""
    return read_cookies(request.headers.get_all("Cookie"), (SESSION_COOKIE, CSRF_COOKIE))


def _basic_credentials(request: Request) -> tuple[str, str]:
    scheme, _, encoded = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "basic":
        raise AccountError("bad_request", "send the name and password as Authorization: Basic")
    try:
        name, colon, password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        raise AccountError("bad_request", "the Authorization header is not base64 of UTF-8 name:password") from None
    if not colon or not name:
        raise AccountError("bad_request", "the Authorization header has no name:password")
    return name, password


def _header_text(request: Request, header: str) -> str:
    try:
        return base64.b64decode(request.headers.get(header, "").strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise AccountError("bad_request", f"{header} is base64 of UTF-8 text") from None


def _bot_name(request: Request) -> str:
    name = query_params(request).get("name", "")
    if not name:
        raise AccountError("bad_request", "give the bot's name: ?name=NAME")
    return name


def _refusal(connection: ServerConnection, error: AccountError) -> Response:
    status = _STATUS.get(error.code, HTTPStatus.BAD_REQUEST)
    response = json_response(connection, status, {"error": {"code": error.code, "message": error.message}})
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(max(1, math.ceil(error.retry_after)))
    if error.code == "method":
        response.headers["Allow"] = "GET" if "GET" in error.message else "POST"
    return _no_store(response)


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response
