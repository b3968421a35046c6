"""hello → welcome: guests, registered players, version mismatch, hello rules, /healthz."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import msgpack
import pytest

from arbiter.engine import describe_games
from arbiter.protocol import PROTOCOL_VERSION, CloseCode
from arbiter.server import ServerConfig
from tests.support.wsclient import Client


async def test_guest_gets_unique_name_games_and_limits(connect, server):
    first = await connect()
    second = await connect()
    welcome = first.welcome
    assert welcome["protocol"] == PROTOCOL_VERSION
    assert welcome["player"]["guest"] is True and welcome["player"]["kind"] == "human"
    assert first.name.startswith("guest-") and first.name != second.name
    assert isinstance(welcome["resume_token"], str) and len(welcome["resume_token"]) >= 24
    assert [g["name"] for g in welcome["games"]] == [g["name"] for g in describe_games()]
    limits = welcome["limits"]
    assert limits["max_frame_bytes"] == server.hub.config.max_frame_bytes
    assert limits["reconnect_grace_ms"] == 2000
    assert set(limits["clock"]) == {"min_initial_ms", "max_initial_ms", "max_increment_ms",
                                    "min_move_limit_ms", "max_move_limit_ms"}  # fmt: skip
    assert welcome["resumed"] == []


async def test_registered_bot_with_token(connect, store):
    token = await store.add_player("alphabot", "bot")
    client = await connect(token=token, games=["gomoku"])
    assert client.welcome["player"] == {"name": "alphabot", "kind": "bot", "guest": False}
    assert client.welcome["resume_token"] is None
    lobby = await client.request("lobby")
    (entry,) = [p for p in lobby["players"] if p["name"] == "alphabot"]
    assert entry["games"] == ["gomoku"] and entry["kind"] == "bot"


async def test_unknown_and_revoked_tokens_are_refused(server, store):
    token = await store.add_player("gone", "human")
    await store.revoke_player("gone")
    for bad in ("no-such-token", token):
        client = await Client.connect(server.url, hello=False)
        await client.send({"type": "hello", "id": 1, "protocol": 1, "client": "t", "token": bad})
        error = await client.expect("error", re=1)
        assert error["code"] == "auth_failed"
        assert (await client.wait_closed())[0] == CloseCode.HANDSHAKE_FAILED
    assert len(server.hub.roster) == 0


async def test_version_mismatch_is_a_clear_error_then_close(server):
    client = await Client.connect(server.url, hello=False)
    await client.send({"type": "hello", "id": "h", "protocol": 2, "client": "future/9"})
    error = await client.expect("error", re="h")
    assert error["code"] == "protocol_version"
    assert "protocol 1" in error["message"]
    assert (await client.wait_closed())[0] == CloseCode.HANDSHAKE_FAILED


async def test_first_message_must_be_hello(server):
    client = await Client.connect(server.url, hello=False)
    await client.send({"type": "lobby", "id": 7})
    assert (await client.expect("error", re=7))["code"] == "hello_first"
    assert (await client.wait_closed())[0] == CloseCode.HANDSHAKE_FAILED


@pytest.mark.parametrize(
    ("hello", "code"),
    [
        ({"protocol": "1", "client": "x"}, "bad_field"),
        ({"protocol": 1}, "missing_field"),
        ({"protocol": 1, "client": "x", "token": ""}, "bad_field"),  # an empty token is no token: refused
        ({"protocol": 1, "client": "x", "tokn": "t"}, "unknown_field"),
    ],
)
async def test_malformed_hello_is_refused(server, hello, code):
    client = await Client.connect(server.url, hello=False)
    await client.send({"type": "hello", "id": 3, **hello})
    assert (await client.expect("error", re=3))["code"] == code
    assert (await client.wait_closed())[0] == CloseCode.HANDSHAKE_FAILED


@pytest.mark.parametrize("frame", [b"\x83\xa4type\xa5hello\xa8protocol\x01\x07\x01", b"\x81\xa4type", "{}"])
async def test_a_first_frame_that_is_no_message_is_refused_with_4001(server, frame):
    client = await Client.connect(server.url, hello=False)
    await client.send_raw(frame)
    assert (await client.expect("error"))["code"] == "bad_frame"
    assert (await client.wait_closed())[0] == CloseCode.HANDSHAKE_FAILED


async def test_second_hello_is_an_error_and_changes_nothing(connect):
    client = await connect()
    reply = await client.request("hello", protocol=1, client="again")
    assert reply["code"] == "already_greeted"
    assert (await client.request("ping"))["type"] == "pong"


@pytest.mark.parametrize("config", [ServerConfig(port=0, hello_timeout_s=0.2)])
async def test_hello_timeout_closes(server):
    client = await Client.connect(server.url, hello=False)
    assert (await client.wait_closed())[0] == CloseCode.HANDSHAKE_TIMEOUT


async def test_replaced_connection_is_closed(connect, store):
    token = await store.add_player("twice", "bot")
    old = await connect(token=token)
    new = await connect(token=token)
    assert (await old.wait_closed())[0] == CloseCode.REPLACED
    assert new.name == "twice"
    assert (await new.request("ping"))["type"] == "pong"


async def test_healthz_over_http_on_the_same_port(connect, server):
    await connect()

    def fetch(path: str) -> tuple[int, bytes, str]:
        try:
            with urllib.request.urlopen(server.http_url + path, timeout=5) as response:
                return response.status, response.read(), response.headers["Content-Type"]
        except urllib.error.HTTPError as error:
            return error.code, b"", ""

    status, body, content_type = await asyncio.to_thread(fetch, "/healthz")
    assert status == 200 and content_type == "application/json"
    health = json.loads(body)
    assert health["status"] == "ok" and health["players"] == 1 and health["protocol"] == 1
    assert (await asyncio.to_thread(fetch, "/nothing-here"))[0] == 404


async def test_ping(connect):
    client = await connect()
    pong = await client.request("ping")
    assert pong["type"] == "pong" and pong["time_ms"] > 0
    assert msgpack.packb(pong)
