"""People's accounts from the browser: sign-up, sign-in with a password, sessions, and the bots
a person creates for itself.

Passwords are hashed with argon2id (argon2-cffi's defaults: 64 MiB, 3 passes), in a worker
thread so a hash never stalls the event loop, and at most ``HASHING_AT_ONCE`` at a time so a
burst of sign-ins cannot take every core. ``SignInLimits`` bound the rest of that lever: the
requests waiting for a hash, the sign-in attempts of the whole server per second, and the failed
sign-ins per account name from any address (the per-address limit is the HTTP side's).

A signed-in browser holds a session cookie ``SELECTOR.SECRET``: the selector finds the row, only
the secret's sha256 is stored (as for tokens), and the session's CSRF token is derived from the
secret, so it needs no storage and a page that cannot read the HttpOnly cookie cannot compute it.

Everything here is about who someone is; the HTTP side (cookies, headers, CSRF checks) is
``account_routes.py``.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arbiter.server.store.base import BadName, Ban, Player, Store, check_player_name
from arbiter.server.store.rows import hash_secret

from .attempts import AttemptLimiter
from .bans import BanList

T = TypeVar("T")

SESSION_DAYS = 30
MIN_PASSWORD = 8
MAX_PASSWORD = 256  # characters; argon2 takes any length, a bound keeps the request small
MAX_BOTS = 20  # bots one person may create
HASHING_AT_ONCE = 2

_HASHER = PasswordHasher()
_EVERYONE = "*"  # the key under which every sign-in of the server is counted


@functools.cache
def _dummy_hash() -> str:
    """Verified when the name is unknown, so an unknown name costs the same time as a wrong
    password. Made at the first sign-in, not at import: a hash takes 64 MiB and ~0.1 s."""
    return _HASHER.hash(secrets.token_urlsafe(16))


class AccountError(Exception):
    """A request about an account that cannot be done; ``code`` says which kind, for clients;
    ``retry_after``: seconds after which the same request may succeed (a limit's refusal)."""

    def __init__(self, code: str, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class SignInLimits:
    """Bounds on password work (None: unbounded), from the server's settings."""

    hashing_queue: int | None = None  # requests waiting for a hash beyond those running; past it, busy
    attempts_per_s: float | None = None  # sign-ins, sign-ups and password changes of the whole server
    account_failures_per_minute: float | None = None  # failed sign-ins of one account name, any address


@dataclass(frozen=True)
class SignedIn:
    """A new session: the cookie's value and its CSRF token."""

    player: Player
    cookie: str
    csrf: str


def csrf_of(cookie: str) -> str:
    """The CSRF token of a session cookie (of the secret half, so the selector alone does not give it)."""
    secret = cookie.partition(".")[2]
    return hashlib.sha256(f"arbiter-csrf:{secret}".encode()).hexdigest()[:32]


def check_password(password: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError("bad_password", f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")


class Accounts:
    """Sign-up, sign-in and the bots of a person, over a ``Store``."""

    def __init__(
        self,
        store: Store,
        *,
        registration_open: bool = True,
        limits: SignInLimits = SignInLimits(),
        bans: Callable[[], BanList] = BanList,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.registration_open = registration_open
        self.limits = limits
        self.bans = bans  # the ban list in force (the hub's)
        # Told the name of a player whose credentials just ended (a token rotated or revoked, a
        # password changed): the hub closes its live connection.
        self.credentials_ended: Callable[[str], None] = lambda name: None
        self.hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        self._waiting = 0  # requests waiting for the hashing semaphore
        rate = limits.attempts_per_s
        self._attempts = (
            None if rate is None else AttemptLimiter(per_minute=rate * 60, burst=max(1, math.ceil(rate)), now=now)
        )
        failures = limits.account_failures_per_minute
        self._failures = (
            None
            if failures is None
            else AttemptLimiter(per_minute=failures, burst=max(1, math.ceil(failures)), now=now)
        )

    @property
    def waiting(self) -> int:
        """Requests waiting for a hashing slot now."""
        return self._waiting

    def ban_of(self, player: Player) -> Ban | None:
        """The ban that keeps ``player`` out (its own, or its owner's), if any."""
        return self.bans().ban_of(player.name, player.owner)

    async def sign_up(self, name: str, password: str) -> SignedIn:
        if not self.registration_open:
            raise AccountError("registration_closed", "this server does not take new accounts")
        _check_name(name)
        check_password(password)
        self._count_attempt()
        await self.store.add_player(name, "human", password_hash=await self._hash(password))
        return await self._new_session(name)

    async def sign_in(self, name: str, password: str) -> SignedIn:
        self._count_attempt()
        self._check_failures(name)
        stored = await self.store.password_hash(name)
        against: str = stored if stored is not None else await asyncio.to_thread(_dummy_hash)
        ok = await self._verify(against, password)
        player = await self.store.get_player(name) if ok and stored else None
        if player is None or player.revoked or player.kind != "human":
            self._failed(name)
            raise AccountError("auth_failed", "wrong name or password")
        self.check_not_banned(player)  # only said to who knows the password
        return await self._new_session(player.name)

    def check_not_banned(self, player: Player) -> None:
        """AccountError(banned), saying why, if a ban keeps ``player`` out."""
        ban = self.ban_of(player)
        if ban is not None:
            why = f": {ban.reason}" if ban.reason else ""
            raise AccountError("banned", f"{ban.target} is banned from this server{why}")

    async def session(self, cookie: str | None) -> Player | None:
        """The player a session cookie is signed in as, or None."""
        if not cookie:
            return None
        selector, dot, secret = cookie.partition(".")
        if not dot or not selector or not secret:
            return None
        return await self.store.session_player(selector, hash_secret(secret), time.time())

    async def sign_out(self, cookie: str) -> None:
        """End the session of this cookie if the whole cookie is right: its selector alone (a lookup
        key, not a secret) ends nothing, so no one who learns it can sign its owner out."""
        if await self.session(cookie) is not None:
            await self.store.end_sessions(selector=cookie.partition(".")[0])

    async def change_password(self, name: str, current: str, new: str) -> SignedIn:
        """Every session of the account ends; the caller's browser gets a new one."""
        check_password(new)
        self._count_attempt()
        self._check_failures(name)
        stored = await self.store.password_hash(name)
        if stored is None or not await self._verify(stored, current):
            self._failed(name)
            raise AccountError("auth_failed", "the current password is wrong")
        await self.store.set_password_hash(name, await self._hash(new))
        await self.store.end_sessions(name=name)
        self.credentials_ended(name)
        return await self._new_session(name)

    # --- bots -------------------------------------------------------------------------------------
    async def create_bot(self, owner: Player, name: str) -> str:
        """A new bot of ``owner``; its token, shown once."""
        self.check_not_banned(owner)
        _check_name(name)
        if len(await self.store.bots_of(owner.name)) >= MAX_BOTS:
            raise AccountError("too_many_bots", f"a person may create up to {MAX_BOTS} bots")
        return await self.store.add_player(name, "bot", owner=owner.name)

    async def rotate_token(self, owner: Player, name: str) -> str:
        """A new token for one of ``owner``'s bots (the old one stops working at once, and its live
        connection is closed). It lifts the owner's own revocation, never the operator's."""
        bot = await self._own_bot(owner, name)
        if bot.revoked_by_operator:
            raise AccountError("revoked_by_operator", f"the operator revoked {bot.name}; only the operator can lift it")
        token = await self.store.reissue_token(bot.name)
        self.credentials_ended(bot.name)
        return token

    async def revoke_bot(self, owner: Player, name: str) -> None:
        bot = await self._own_bot(owner, name)
        await self.store.revoke_player(bot.name, by_owner=True)
        self.credentials_ended(bot.name)

    async def _own_bot(self, owner: Player, name: str) -> Player:
        bot = await self.store.get_player(name)
        if bot is None or bot.owner is None or bot.owner.lower() != owner.name.lower():
            raise AccountError("not_yours", f"you have no bot named {name!r}")
        return bot

    # --- helpers ----------------------------------------------------------------------------------
    async def _new_session(self, name: str) -> SignedIn:
        selector, secret = secrets.token_urlsafe(9), secrets.token_urlsafe(32)
        await self.store.add_session(name, selector, hash_secret(secret), time.time() + SESSION_DAYS * 86400)
        player = await self.store.get_player(name)
        assert player is not None
        cookie = f"{selector}.{secret}"
        return SignedIn(player, cookie, csrf_of(cookie))

    def _count_attempt(self) -> None:
        """One more password attempt of the whole server; AccountError(busy) past its cap."""
        if self._attempts is not None and not self._attempts.allow(_EVERYONE):
            raise AccountError("busy", "too many sign-ins on this server right now; try again in a moment",
                               retry_after=self._attempts.retry_after(_EVERYONE))  # fmt: skip

    def _check_failures(self, name: str) -> None:
        """AccountError(rate_limited) while the account has failed as often as its limit allows."""
        key = name.lower()
        if self._failures is not None and (wait := self._failures.retry_after(key)) > 0:
            raise AccountError("rate_limited", "too many failed sign-ins for this account; wait a minute",
                               retry_after=wait)  # fmt: skip

    def _failed(self, name: str) -> None:
        if self._failures is not None:
            self._failures.allow(name.lower())

    async def _hash(self, password: str) -> str:
        return await self._hashed(_HASHER.hash, password)

    async def _verify(self, stored: str, password: str) -> bool:
        return await self._hashed(_verify, stored, password)

    async def _hashed(self, work: Callable[..., T], *args: str) -> T:
        """``work`` in a worker thread once a hashing slot is free; AccountError(busy) when as many
        requests wait for one as the limit allows (each would hold 64 MiB once it runs)."""
        queue = self.limits.hashing_queue
        if queue is not None and self.hashing.locked() and self._waiting >= queue:
            raise AccountError("busy", "the server is checking many passwords; try again in a moment", retry_after=1)
        self._waiting += 1
        try:
            await self.hashing.acquire()
        finally:
            self._waiting -= 1
        try:
            return await asyncio.to_thread(work, *args)
        finally:
            self.hashing.release()


def _verify(stored: str, password: str) -> bool:
    try:
        return _HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def _check_name(name: str) -> None:
    try:
        check_player_name(name)
    except BadName as exc:
        raise AccountError("bad_name", str(exc)) from None
