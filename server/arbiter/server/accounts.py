"""People's accounts from the browser: sign-up, sign-in with a password, sessions, and the bots
a person creates for itself.

Passwords are hashed with argon2id (argon2-cffi's defaults: 64 MiB, 3 passes), in a worker
thread so a hash never stalls the event loop, and at most ``HASHING_AT_ONCE`` at a time so a
burst of sign-ins cannot take every core. A signed-in browser holds a session cookie
``SELECTOR.SECRET``: the selector finds the row, only the secret's sha256 is stored (as for
tokens), and the session's CSRF token is derived from the secret, so it needs no storage and
a page that cannot read the HttpOnly cookie cannot compute it.

Everything here is about who someone is; the HTTP side (cookies, headers, CSRF checks) is
``account_routes.py``.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import secrets
import time
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arbiter.server.store.base import BadName, Player, Store, check_player_name
from arbiter.server.store.rows import hash_secret

SESSION_DAYS = 30
MIN_PASSWORD = 8
MAX_PASSWORD = 256  # characters; argon2 takes any length, a bound keeps the request small
MAX_BOTS = 20  # bots one person may create
HASHING_AT_ONCE = 2

_HASHER = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """Verified when the name is unknown, so an unknown name costs the same time as a wrong
    password. Made at the first sign-in, not at import: a hash takes 64 MiB and ~0.1 s."""
    return _HASHER.hash(secrets.token_urlsafe(16))


class AccountError(Exception):
    """A request about an account that cannot be done; ``code`` says which kind, for clients."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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

    def __init__(self, store: Store, *, registration_open: bool = True) -> None:
        self.store = store
        self.registration_open = registration_open
        self._hashing = asyncio.Semaphore(HASHING_AT_ONCE)

    async def sign_up(self, name: str, password: str) -> SignedIn:
        if not self.registration_open:
            raise AccountError("registration_closed", "this server does not take new accounts")
        _check_name(name)
        check_password(password)
        await self.store.add_player(name, "human", password_hash=await self._hash(password))
        return await self._new_session(name)

    async def sign_in(self, name: str, password: str) -> SignedIn:
        stored = await self.store.password_hash(name)
        against: str = stored if stored is not None else await asyncio.to_thread(_dummy_hash)
        ok = await self._verify(against, password)
        player = await self.store.get_player(name) if ok and stored else None
        if player is None or player.revoked or player.kind != "human":
            raise AccountError("auth_failed", "wrong name or password")
        return await self._new_session(player.name)

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
        stored = await self.store.password_hash(name)
        if stored is None or not await self._verify(stored, current):
            raise AccountError("auth_failed", "the current password is wrong")
        await self.store.set_password_hash(name, await self._hash(new))
        await self.store.end_sessions(name=name)
        return await self._new_session(name)

    # --- bots -------------------------------------------------------------------------------------
    async def create_bot(self, owner: Player, name: str) -> str:
        """A new bot of ``owner``; its token, shown once."""
        _check_name(name)
        if len(await self.store.bots_of(owner.name)) >= MAX_BOTS:
            raise AccountError("too_many_bots", f"a person may create up to {MAX_BOTS} bots")
        return await self.store.add_player(name, "bot", owner=owner.name)

    async def rotate_token(self, owner: Player, name: str) -> str:
        """A new token for one of ``owner``'s bots (the old one stops working at once)."""
        await self._own_bot(owner, name)
        return await self.store.reissue_token(name)

    async def revoke_bot(self, owner: Player, name: str) -> None:
        await self._own_bot(owner, name)
        await self.store.revoke_player(name)

    async def _own_bot(self, owner: Player, name: str) -> None:
        bot = await self.store.get_player(name)
        if bot is None or bot.owner is None or bot.owner.lower() != owner.name.lower():
            raise AccountError("not_yours", f"you have no bot named {name!r}")

    # --- helpers ----------------------------------------------------------------------------------
    async def _new_session(self, name: str) -> SignedIn:
        selector, secret = secrets.token_urlsafe(9), secrets.token_urlsafe(32)
        await self.store.add_session(name, selector, hash_secret(secret), time.time() + SESSION_DAYS * 86400)
        player = await self.store.get_player(name)
        assert player is not None
        cookie = f"{selector}.{secret}"
        return SignedIn(player, cookie, csrf_of(cookie))

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(_HASHER.hash, password)

    async def _verify(self, stored: str, password: str) -> bool:
        async with self._hashing:
            return await asyncio.to_thread(_verify, stored, password)


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
