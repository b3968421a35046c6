"""Accounts from the browser over real HTTP and websockets: sign-up and sign-in with a password,
session cookies, CSRF refusals, password change, sign-up closed, and a person's own bots
(create, token shown once, rotate, revoke), on a real SQLite file."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.accounts import Browser, basic, stopped
from tests.support.wsclient import Client


@pytest.fixture
def config() -> ServerConfig:
    return ServerConfig(port=0, reconnect_grace_s=2.0)


@pytest.fixture
def clock() -> Callable[[], float]:
    """The server's clock (a test of limits stops it, so no bucket refills while it runs)."""
    return time.monotonic


@pytest.fixture
async def server(config: ServerConfig, clock: Callable[[], float], tmp_path: Path) -> AsyncIterator[RunningServer]:
    async with run_server(config, SqliteStore(tmp_path / "arbiter.db"), now=clock) as running:
        yield running


async def test_sign_up_sets_a_session_cookie_that_signs_the_websocket_in(server: RunningServer) -> None:
    browser = Browser(server)
    status, data = await browser.sign_up("ann", "correct horse")
    assert status == 201 and data["player"]["name"] == "ann"
    session_header = next(h for h in browser.set_cookie_headers if h.startswith("arbiter_session="))
    assert "HttpOnly" in session_header and "SameSite=Strict" in session_header and "Secure" not in session_header
    state = await browser.state()
    assert state["player"]["name"] == "ann" and state["csrf"] == data["csrf"]
    welcome = await browser.websocket_hello()
    assert welcome["type"] == "welcome" and welcome["player"] == {"name": "ann", "kind": "human", "guest": False}
    # The same cookie from another site's page is not a sign-in: that page gets a guest.
    assert (await browser.websocket_hello(origin="http://evil.example"))["player"]["guest"] is True
    # Signed out: the cookie is cleared and the session ended on the server too.
    stale = dict(browser.cookies)
    status, _ = await browser.call("POST", "/account/signout")
    assert status == 200 and "arbiter_session" not in browser.cookies
    browser.cookies = stale
    assert (await browser.state())["player"] is None


async def test_sign_in_checks_the_password_and_says_the_same_for_an_unknown_name(server: RunningServer) -> None:
    await Browser(server).sign_up("bob", "a long password")
    browser = Browser(server)
    wrong = await browser.sign_in("bob", "not the password")
    unknown = await browser.sign_in("nobody", "a long password")
    assert wrong[0] == unknown[0] == 401
    assert wrong[1]["error"] == unknown[1]["error"] == {"code": "auth_failed", "message": "wrong name or password"}
    status, data = await browser.sign_in("BOB", "a long password")  # names are case-insensitive
    assert status == 200 and data["player"]["name"] == "bob"


async def test_forged_requests_are_refused_and_change_nothing(server: RunningServer) -> None:
    browser = Browser(server)
    await browser.state()
    for headers, csrf in [
        ({}, False),  # no token
        ({"X-CSRF-Token": "guessed"}, False),  # a wrong token
        ({"Origin": "http://evil.example"}, True),  # another site's page
        ({"Sec-Fetch-Site": "cross-site"}, True),
    ]:
        status, data = await browser.call("POST", "/account/signup", headers={**basic("eve", "password1"), **headers},
                                          csrf=csrf)  # fmt: skip
        assert (status, data["error"]["code"]) == (403, "csrf")
    assert (await browser.sign_in("eve", "password1"))[0] == 401  # no account was made
    # Signed in, the session's own token is needed: the one from before sign-in no longer works.
    await browser.sign_up("eve", "password1")
    before = browser.csrf
    await browser.call("POST", "/account/signout", headers={"X-CSRF-Token": "x" + before})
    assert (await browser.state())["player"]["name"] == "eve"
    status, data = await browser.call("GET", "/account/signin")
    assert (status, data["error"]["code"]) == (405, "method")
    status, data = await browser.call("POST", "/account/signin", headers={"Authorization": "Basic !!!"})
    assert (status, data["error"]["code"]) == (400, "bad_request")
    status, data = await browser.sign_up("x", "short")
    assert (status, data["error"]["code"]) == (400, "bad_password")
    status, data = await browser.sign_up("guest-me", "password1")
    assert (status, data["error"]["code"]) == (400, "bad_name")
    status, data = await Browser(server).sign_up("EVE", "password2")
    assert (status, data["error"]["code"]) == (409, "name_taken")


async def test_sign_out_needs_the_whole_cookie_not_its_selector(server: RunningServer) -> None:
    victim = Browser(server)
    await victim.sign_up("ida", "ida's password")
    selector = victim.cookies["arbiter_session"].partition(".")[0]
    forger = Browser(server)
    await forger.state()  # a CSRF cookie of its own: a sign-out from it passes the forgery checks
    forger.cookies["arbiter_session"] = selector + ".a-wrong-secret"
    status, data = await forger.call("POST", "/account/signout")
    assert (status, data) == (200, {"player": None}) and "arbiter_session" not in forger.cookies
    assert (await victim.state())["player"] is not None  # still signed in
    assert (await victim.call("POST", "/account/signout"))[0] == 200
    assert (await victim.state())["player"] is None


async def test_a_password_change_ends_every_other_session(server: RunningServer) -> None:
    laptop, phone = Browser(server), Browser(server)
    await laptop.sign_up("cat", "first password")
    await phone.sign_in("cat", "first password")
    status, data = await laptop.call(
        "POST", "/account/password",
        headers={**basic("cat", "wrong one"), "X-New-Password": base64.b64encode(b"second password").decode()},
    )  # fmt: skip
    assert (status, data["error"]["code"]) == (401, "auth_failed")
    new = base64.b64encode("sëcond pässword".encode()).decode()
    status, _ = await laptop.call(
        "POST", "/account/password", headers={**basic("cat", "first password"), "X-New-Password": new}
    )
    assert status == 200
    assert (await laptop.state())["player"]["name"] == "cat"  # this browser got a new session
    assert (await phone.state())["player"] is None  # the other one was signed out
    assert (await Browser(server).sign_in("cat", "first password"))[0] == 401
    assert (await Browser(server).sign_in("cat", "sëcond pässword"))[0] == 200


async def test_a_person_creates_rotates_and_revokes_its_bots(server: RunningServer) -> None:
    owner = Browser(server)
    await owner.sign_up("dana", "dana's password")
    status, data = await owner.call("POST", "/account/bots/new?name=dana-bot")
    assert status == 201 and data["bot"] == "dana-bot" and data["token"].startswith("arb_")
    token = data["token"]
    assert [b["name"] for b in (await owner.state())["bots"]] == ["dana-bot"]
    assert "token" not in json.dumps(await owner.state())  # shown once, never listed

    bot = await Client.connect(server.url, token=token, games=["tictactoe"])
    try:
        assert bot.welcome["player"] == {"name": "dana-bot", "kind": "bot", "guest": False, "owner": "dana"}
        watcher = await Client.connect(server.url)
        try:
            lobby = await watcher.request("lobby")
            entry = next(p for p in lobby["players"] if p["name"] == "dana-bot")
            assert entry["owner"] == "dana"
        finally:
            await watcher.close()
    finally:
        await bot.close()

    # Someone else cannot touch it.
    other = Browser(server)
    await other.sign_up("mallory", "mallory's password")
    status, data = await other.call("POST", "/account/bots/rotate?name=dana-bot")
    assert (status, data["error"]["code"]) == (404, "not_yours")
    status, data = await Browser(server).call("POST", "/account/bots/new?name=x")  # signed out
    assert status == 403  # no session and no CSRF cookie: refused before anything else

    status, data = await owner.call("POST", "/account/bots/rotate?name=dana-bot")
    assert status == 200 and data["token"] != token
    with pytest.raises(AssertionError, match="auth_failed"):
        await Client.connect(server.url, token=token)
    rotated = await Client.connect(server.url, token=data["token"])
    await rotated.close()
    status, _ = await owner.call("POST", "/account/bots/revoke?name=dana-bot")
    assert status == 200
    with pytest.raises(AssertionError, match="auth_failed"):
        await Client.connect(server.url, token=data["token"])
    assert (await owner.state())["bots"][0]["revoked"] is True


@pytest.mark.parametrize("config", [ServerConfig(port=0, registration_open=False)])
async def test_sign_up_can_be_closed(server: RunningServer) -> None:
    browser = Browser(server)
    assert (await browser.state())["registration"] == "closed"
    status, data = await browser.sign_up("fay", "fay's password")
    assert (status, data["error"]["code"]) == (403, "registration_closed")


@pytest.mark.parametrize("clock", [stopped])
async def test_sign_in_attempts_are_limited_per_address(server: RunningServer) -> None:
    await Browser(server).sign_up("gus", "gus's password")
    browser = Browser(server, source="127.0.0.2")
    for _ in range(9):  # ten attempts a minute per address: the sign-up above was another address's
        assert (await browser.sign_in("gus", "a wrong guess"))[0] == 401
    assert (await browser.sign_in("gus", "gus's password"))[0] == 200  # the tenth
    status, data = await browser.sign_in("gus", "gus's password")
    assert (status, data["error"]["code"]) == (429, "rate_limited")
    status, _ = await Browser(server, source="127.0.0.3").sign_in("gus", "gus's password")
    assert status == 200  # another address is not held back
