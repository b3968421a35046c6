"""What a hostile account holder tries, over real HTTP and websockets on a real SQLite file, with
``arbiter ban`` and ``arbiter player`` run as the commands run: a ban reaches a person's sign-in,
sessions and every bot it owns; an operator's revocation outlasts the owner's new token; a rotated
or revoked token and a changed password close the live connection; password work is bounded; and
no rated game is played between accounts of one owner (challenges, seeks, the ladder)."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from test_bans import arbiter
from test_guard import eventually

from arbiter.protocol import PROTOCOL_VERSION
from arbiter.protocol.errors import CloseCode
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.config import LadderConfig
from arbiter.server.store.sqlite import SqliteStore
from tests.support.accounts import Browser, basic, stopped
from tests.support.wsclient import Client

PASSWORD = "dana's password"
CLOCK = {"initial_ms": 60_000}


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "arbiter.db")


@pytest.fixture
def config() -> ServerConfig:
    ladder = LadderConfig(window=1000.0, rematch_after_s=0.0, retry_s=0.05, seed=7)
    return ServerConfig(port=0, ban_check_interval_s=0.05, warm_engine=False, ladder=ladder)


@pytest.fixture
def clock() -> Callable[[], float]:
    """The server's clock (a test of limits stops it, so no bucket refills while it runs)."""
    return time.monotonic


@pytest.fixture
async def server(config: ServerConfig, clock: Callable[[], float], db: str) -> AsyncIterator[RunningServer]:
    async with run_server(config, SqliteStore(db), now=clock) as running:
        yield running


async def command(*args: str) -> Any:
    """An ``arbiter …`` command on the server's database, on its own event loop (as an operator runs it)."""
    result = await asyncio.to_thread(arbiter, *args)
    assert result.exit_code == 0, result.output
    return result


async def person_with_bots(server: RunningServer, *bots: str, name: str = "dana") -> tuple[Browser, list[str]]:
    """A person signed in from a browser, and the tokens of the bots it created."""
    browser = Browser(server)
    assert (await browser.sign_up(name, PASSWORD))[0] == 201
    tokens = []
    for bot in bots:
        status, data = await browser.call("POST", f"/account/bots/new?name={bot}")
        assert status == 201, data
        tokens.append(data["token"])
    return browser, tokens


async def signed_in_socket(browser: Browser) -> Client:
    """The person's own websocket, as its page opens it (the session cookie, the same origin)."""
    cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    return await Client.connect(browser.origin.replace("http", "ws") + "/",
                                headers={"Cookie": cookie, "Origin": browser.origin})  # fmt: skip


async def hello_refusal(server: RunningServer, token: str) -> dict[str, Any]:
    client = await Client.connect(server.url, hello=False)
    refused = await client.request("hello", protocol=PROTOCOL_VERSION, client="tests/1", token=token)
    await client.wait_closed()
    return refused


# --- bans ------------------------------------------------------------------------------------------
async def test_a_persons_ban_covers_its_sign_in_its_sessions_and_every_bot_it_owns(server, db):
    owner, (token, _) = await person_with_bots(server, "dana-bot", "dana-two")
    bot = await Client.connect(server.url, token=token)
    await command("ban", "add", "--player", "dana", "--reason", "farming ratings", "--db", db)

    assert await bot.wait_closed() == (CloseCode.BANNED, "banned from this server")  # its bots go too
    refused = await hello_refusal(server, token)
    assert (refused["code"], refused["message"]) == ("banned", "dana-bot's owner dana is banned from this server")
    status, data = await Browser(server).sign_in("dana", PASSWORD)
    assert (status, data["error"]["code"]) == (403, "banned")
    assert data["error"]["message"] == "dana is banned from this server: farming ratings"
    assert (await Browser(server).sign_in("dana", "a wrong guess"))[0] == 401  # no password: nothing said
    status, data = await owner.call("POST", "/account/bots/new?name=dana-three")  # its open session
    assert (status, data["error"]["code"]) == (403, "banned")
    state = await owner.state()  # its page says why
    ban = {"target": "dana", "reason": "farming ratings"}
    assert state["player"]["banned"] == ban and [b["banned"] for b in state["bots"]] == [ban, ban]
    assert [b["name"] for b in state["bots"]] == ["dana-bot", "dana-two"]  # none was made
    with pytest.raises(AssertionError, match="banned"):
        await signed_in_socket(owner)

    # A bot banned on its own: its owner's page names the bot's ban.
    await command("ban", "remove", "--player", "dana", "--db", db)
    await command("ban", "add", "--player", "dana-two", "--reason", "spamming seeks", "--db", db)
    await eventually(lambda: server.hub.guard.bans.player_banned("dana-two"))
    bots = (await owner.state())["bots"]
    assert [b["banned"] for b in bots] == [None, {"target": "dana-two", "reason": "spamming seeks"}]
    back = await Client.connect(server.url, token=token)
    assert back.name == "dana-bot"
    await back.close()


async def test_a_banned_network_cannot_sign_in_or_change_an_account_over_http(server, db):
    await Browser(server).sign_up("finn", "finn's password")
    await command("ban", "add", "--ip", "127.0.3.0/24", "--db", db)
    await eventually(lambda: len(server.hub.guard.bans) == 1)
    status, data = await Browser(server, source="127.0.3.7").sign_in("finn", "finn's password")
    assert (status, data["error"]) == (403, {"code": "banned", "message": "your address is banned from this server"})
    status, data = await Browser(server, source="127.0.3.8").sign_up("gil", "gil's password")
    assert (status, data["error"]["code"]) == (403, "banned")
    assert (await Browser(server, source="127.0.4.1").sign_in("finn", "finn's password"))[0] == 200


# --- revocation --------------------------------------------------------------------------------------
async def test_an_operators_revocation_outlasts_the_owners_new_token(server, db):
    owner, (token,) = await person_with_bots(server, "bobbot")
    bot = await Client.connect(server.url, token=token)
    await command("player", "revoke", "bobbot", "--db", db)
    assert (await bot.wait_closed())[0] == CloseCode.CREDENTIALS_ENDED  # within the ban check interval
    status, data = await owner.call("POST", "/account/bots/rotate?name=bobbot")
    assert (status, data["error"]["code"]) == (403, "revoked_by_operator")
    assert (await owner.state())["bots"][0] | {"banned": None} == {
        "name": "bobbot", "kind": "bot", "owner": "dana", "revoked": True, "revoked_by": "operator", "banned": None,
    }  # fmt: skip
    assert (await hello_refusal(server, token))["code"] == "auth_failed"
    # The owner's own revoke and rotate change nothing of it either.
    assert (await owner.call("POST", "/account/bots/revoke?name=bobbot"))[0] == 200
    assert (await owner.call("POST", "/account/bots/rotate?name=bobbot"))[0] == 403

    await command("player", "reinstate", "bobbot", "--db", db)
    assert (await owner.state())["bots"][0]["revoked_by"] == "owner"  # the owner's own revocation remains
    status, data = await owner.call("POST", "/account/bots/rotate?name=bobbot")
    assert status == 200
    again = await Client.connect(server.url, token=data["token"])
    assert again.name == "bobbot"
    await again.close()


# --- live connections -----------------------------------------------------------------------------
async def test_a_rotated_or_revoked_token_closes_the_bots_live_connection(server):
    owner, (token,) = await person_with_bots(server, "dana-bot")
    bot = await Client.connect(server.url, token=token)
    status, data = await owner.call("POST", "/account/bots/rotate?name=dana-bot")
    assert status == 200
    assert (await bot.wait_closed())[0] == CloseCode.CREDENTIALS_ENDED
    bot = await Client.connect(server.url, token=data["token"])
    assert (await bot.request("challenge", game="tictactoe", clock=CLOCK))["type"] == "challenge_created"
    assert (await owner.call("POST", "/account/bots/revoke?name=dana-bot"))[0] == 200
    assert (await bot.wait_closed())[0] == CloseCode.CREDENTIALS_ENDED
    await eventually(lambda: server.hub.challenges.seeks() == [])  # its seek went with it


async def test_a_password_change_closes_the_persons_connection_and_its_browser_comes_back(server):
    laptop, _ = await person_with_bots(server)
    phone = Browser(server)
    await phone.sign_in("dana", PASSWORD)
    socket = await signed_in_socket(phone)
    assert socket.name == "dana"
    new = base64.b64encode(b"a new password").decode()
    headers = {**basic("dana", PASSWORD), "X-New-Password": new}
    status, _ = await laptop.call("POST", "/account/password", headers=headers)
    assert status == 200
    assert (await socket.wait_closed())[0] == CloseCode.CREDENTIALS_ENDED
    guest = await signed_in_socket(phone)
    assert guest.welcome["player"]["guest"] is True  # its session ended
    await guest.close()
    back = await signed_in_socket(laptop)  # the browser that changed it holds a new session
    assert back.name == "dana"
    await back.close()


# --- password work ---------------------------------------------------------------------------------
@pytest.mark.parametrize("config", [ServerConfig(port=0, warm_engine=False, max_hashing_queue=1)])
async def test_requests_waiting_for_a_password_hash_are_bounded(server):
    await Browser(server).sign_up("erin", "erin's password")
    accounts = server.hub.accounts
    for _ in range(2):  # both hashing slots busy, as under a burst of sign-ins
        await accounts.hashing.acquire()
    waiting = asyncio.ensure_future(Browser(server, source="127.0.0.2").sign_in("erin", "erin's password"))
    await eventually(lambda: accounts.waiting == 1)
    busy = Browser(server, source="127.0.0.3")
    status, data = await busy.sign_in("erin", "erin's password")
    assert (status, data["error"]["code"]) == (503, "busy")
    assert "Retry-After: 1" in busy.response_headers
    for _ in range(2):
        accounts.hashing.release()
    assert (await waiting)[0] == 200  # the one that waited is served


@pytest.mark.parametrize("clock", [stopped])
@pytest.mark.parametrize("config", [ServerConfig(port=0, warm_engine=False, account_failures_per_minute=3)])
async def test_failed_sign_ins_are_limited_per_account_whatever_the_address(server):
    await Browser(server).sign_up("gus", "gus's password")
    await Browser(server).sign_up("hal", "hal's password")
    for n in range(3):
        assert (await Browser(server, source=f"127.0.1.{n}").sign_in("gus", "a guess"))[0] == 401
    fresh = Browser(server, source="127.0.1.9")
    status, data = await fresh.sign_in("gus", "gus's password")  # even the right one, while locked
    assert (status, data["error"]["code"]) == (429, "rate_limited")
    assert any(header.startswith("Retry-After: ") for header in fresh.response_headers)
    assert (await fresh.sign_in("hal", "hal's password"))[0] == 200  # another account is not held back


@pytest.mark.parametrize("clock", [stopped])
@pytest.mark.parametrize("config", [ServerConfig(port=0, warm_engine=False, sign_in_attempts_per_s=2)])
async def test_sign_in_attempts_of_the_whole_server_are_capped(server):
    await Browser(server).sign_up("ivy", "ivy's password")  # two attempts a second, from any address
    assert (await Browser(server, source="127.0.2.1").sign_in("ivy", "ivy's password"))[0] == 200
    late = Browser(server, source="127.0.2.2")
    status, data = await late.sign_in("ivy", "ivy's password")
    assert (status, data["error"]["code"]) == (503, "busy")
    assert "Retry-After: 1" in late.response_headers


# --- rating farming -----------------------------------------------------------------------------------
async def test_no_rated_game_between_accounts_of_one_owner(server, db):
    owner, (one_token, two_token) = await person_with_bots(server, "dana-one", "dana-two")
    solo_token = (await command("player", "add", "solo", "--kind", "bot", "--db", db)).stdout.strip()
    dana = await signed_in_socket(owner)
    one = await Client.connect(server.url, token=one_token)
    two = await Client.connect(server.url, token=two_token)
    solo = await Client.connect(server.url, token=solo_token)

    for challenger, target in ((dana, one), (one, two), (two, dana)):
        refused = await challenger.request("challenge", to=target.name, game="tictactoe", clock=CLOCK, rated=True)
        assert refused["code"] == "same_owner", refused
    unrated = await one.request("challenge", to=two.name, game="tictactoe", clock=CLOCK, rated=False)
    assert unrated["type"] == "challenge_created"  # unrated they may play
    seek = (await one.request("challenge", game="tictactoe", clock=CLOCK, rated=True))["challenge"]["id"]
    assert (await two.request("accept", challenge=seek))["code"] == "same_owner"
    assert (await dana.request("accept", challenge=seek))["code"] == "same_owner"
    accepted = await solo.request("accept", challenge=seek)  # an operator's bot is nobody's
    assert accepted["type"] == "ok"
    await solo.request("resign", match=accepted["match"])
    await one.expect("end", match=accepted["match"])

    # The ladder never pairs them, however long they wait; another player is paired at once.
    for bot in (one, two):
        assert (await bot.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
    await asyncio.sleep(0.3)  # several pairing rounds (retry_s = 0.05)
    assert len(one.pending("match_start")) == 1 and not two.pending("match_start")  # only the seek's match
    assert (await solo.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
    start = await solo.expect("match_start")
    assert {p["name"] for p in start["players"]} - {"solo"} <= {"dana-one", "dana-two"}
    for client in (dana, one, two, solo):
        await client.close()
