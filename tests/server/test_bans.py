"""Bans made with ``arbiter ban`` (the command's own code, another event loop, the same SQLite file the
server uses) taking effect on live sessions: connections closed 4010, a banned player's live match
ended as its loss ``banned``, refusals at hello and at the handshake, and a lifted ban letting them back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_guard import eventually, host, refusal, refused_count
from websockets.exceptions import InvalidStatus

from arbiter.cli import main
from arbiter.protocol import PROTOCOL_VERSION
from arbiter.protocol.errors import CloseCode
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.store_check import assert_store_clean
from tests.support.wsclient import Client, play_move, start_match


def arbiter(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "arbiter.db")


@pytest.fixture
def tokens(db: str) -> dict[str, str]:
    """alice and bob, registered with ``arbiter player add`` before the server starts."""
    found = {}
    for name in ("alice", "bob"):
        added = arbiter("player", "add", name, "--kind", "bot", "--db", db)
        assert added.exit_code == 0, added.output
        found[name] = added.stdout.strip()
    return found


@pytest.fixture
async def server(db: str, tokens: dict[str, str]) -> AsyncIterator[RunningServer]:
    config = ServerConfig(port=0, ban_check_interval_s=0.05, reconnect_grace_s=30.0, warm_engine=False)
    async with run_server(config, SqliteStore(db)) as running:
        yield running


async def ban(*args: str) -> Result:
    """``arbiter ban …`` on the server's database, run as the command runs (its own event loop)."""
    return await asyncio.to_thread(arbiter, "ban", *args)


async def test_a_ban_ends_the_live_match_as_a_loss_closes_the_player_and_keeps_it_out(server, db, tokens):
    alice = await Client.connect(server.url, token=tokens["alice"])
    bob = await Client.connect(server.url, token=tokens["bob"])
    match = await start_match(alice, bob, rated=True)
    assert (await play_move(alice, match, 0, [1, 1]))["type"] == "moved"

    banned = await ban("add", "--player", "ALICE", "--reason", "bot flooding the lobby", "--db", db)
    assert banned.exit_code == 0, banned.output
    end = await bob.expect("end", match=match)
    assert (end["reason"], end["result"], end["winner"]) == ("banned", "0-1", 1)
    assert end["rating_changes"]["bob"] > 0 > end["rating_changes"]["alice"]
    assert await alice.wait_closed() == (CloseCode.BANNED, "banned from this server")
    assert await bob.request("ping") and not bob.closed.is_set()  # the opponent plays on
    record = await server.hub.store.get_game(match)
    assert record is not None and (record.result, record.reason) == ("0-1", "banned")
    await eventually(lambda: server.hub.roster.get("alice") is None)

    again = await Client.connect(server.url, hello=False)
    refused = await again.request("hello", protocol=PROTOCOL_VERSION, client="tests/1", token=tokens["alice"])
    assert (refused["code"], refused["message"]) == ("banned", "alice is banned from this server")
    assert (await again.wait_closed())[0] == CloseCode.BANNED

    listed = await ban("list", "--db", db)
    assert "player" in listed.stdout and "alice" in listed.stdout and "bot flooding the lobby" in listed.stdout
    lifted = await ban("remove", "--player", "alice", "--db", db)
    assert lifted.exit_code == 0, lifted.output
    await eventually(lambda: not server.hub.guard.bans.player_banned("alice"))
    back = await Client.connect(server.url, token=tokens["alice"])
    assert back.name == "alice"
    for client in (back, bob):
        await client.close()
    await server.hub.store.flush()
    await asyncio.to_thread(assert_store_clean, db)  # a game ended by a ban is a consistent record


async def test_a_ban_of_a_player_away_within_its_grace_ends_its_match_at_once(server, db, tokens):
    alice = await Client.connect(server.url, token=tokens["alice"])
    bob = await Client.connect(server.url, token=tokens["bob"])
    match = await start_match(alice, bob)
    await alice.close()
    await bob.expect("player_left", match=match)
    assert (await ban("add", "--player", "alice", "--db", db)).exit_code == 0
    end = await bob.expect("end", match=match)  # not after the 30 s grace
    assert (end["reason"], end["winner"]) == ("banned", 1)
    await eventually(lambda: server.hub.roster.get("alice") is None)
    await bob.close()


async def test_a_network_ban_closes_every_connection_from_it_and_refuses_new_ones(server, db, tokens):
    inside = [
        await Client.connect(server.url, local_addr=host(6)),
        await Client.connect(server.url, local_addr=host(6), token=tokens["alice"]),
        await Client.connect(server.url, local_addr=host(6), hello=False),  # not greeted yet: closed too
    ]
    outside = await Client.connect(server.url, local_addr=host(7), token=tokens["bob"])

    assert (await ban("add", "--ip", "127.0.0.6", "--db", db)).exit_code == 0
    for client in inside:
        assert (await client.wait_closed())[0] == CloseCode.BANNED
    assert (await outside.request("ping"))["type"] == "pong"
    assert await refusal(server, host(6)) == (403, "your address is banned from this server\n")
    assert refused_count(server, "banned") == 1
    listed = await ban("list", "--db", db)
    assert "network" in listed.stdout and "127.0.0.6/32" in listed.stdout

    assert (await ban("remove", "--ip", "127.0.0.6/32", "--db", db)).exit_code == 0
    await eventually(lambda: not server.hub.guard.bans)
    back = await Client.connect(server.url, local_addr=host(6))
    for client in (back, outside):
        await client.close()


def test_bad_ban_commands_exit_2_and_change_nothing(db, tokens):
    assert arbiter("ban", "add", "--ip", "10.0.0.0/8", "--db", db).exit_code == 0
    before = arbiter("ban", "list", "--db", db).stdout
    for args, said in [
        (["add", "--ip", "10.0.0.0/33"], "is not an IP address or network in CIDR form"),
        (["add", "--ip", "10.0.0.1/8"], "has host bits set"),
        (["add", "--ip", "not-an-address"], "is not an IP address or network"),
        (["add", "--player", "nobody"], "no player named 'nobody'"),
        (["add", "--ip", "10.0.0.0/8"], "is banned already"),
        (["add", "--player", "alice", "--ip", "10.0.0.0/8"], "either --player NAME or --ip"),
        (["add"], "either --player NAME or --ip"),
        (["add", "--player", "alice", "--reason", "x" * 501], "at most 500 characters"),
        (["remove", "--player", "bob"], "is not banned"),
        (["add", "--cidr", "10.0.0.0/8"], "No such option"),
    ]:
        result = arbiter("ban", *args, "--db", db)
        assert result.exit_code == 2, (args, result.output)
        assert said in result.output, (args, result.output)
    assert arbiter("ban", "list", "--db", db).stdout == before
    missing = arbiter("ban", "list", "--db", db + ".missing")
    assert missing.exit_code == 2 and "no database at" in missing.output


async def test_a_banned_network_is_refused_from_the_start(db, tokens):
    assert (await ban("add", "--ip", "127.0.0.8/31", "--db", db)).exit_code == 0
    async with run_server(ServerConfig(port=0, warm_engine=False), SqliteStore(db)) as server:
        for n in (8, 9):
            with pytest.raises(InvalidStatus):
                await Client.connect(server.url, local_addr=host(n))
        client = await Client.connect(server.url, local_addr=host(10))
        await client.close()
