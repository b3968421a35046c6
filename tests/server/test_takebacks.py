"""Takebacks and hints over real sockets (SPEC.md section 15): asked of a person, granted by our bot in
a casual game and refused in a rated one, the clocks and the record, hints counted, bad input refused."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.perfect import PerfectBrain
from arbiter.bots.pool import BrainPool
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.results.records import format_record, parse_records
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import play_move, start_match

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0, reconnect_grace_s=2.0), SqliteStore(tmp_path / "a.db")) as running:
        yield running


@contextlib.asynccontextmanager
async def perfect_bot(server: RunningServer, **settings: object) -> AsyncIterator[BotClient]:
    """Our ``perfect`` bot, registered, with the default takeback and hint policy unless told otherwise."""
    token = await server.hub.store.add_player("perfect", "bot")
    async with (
        BrainPool(PerfectBrain, workers=1) as pool,
        BotClient(
            server.url, token=token, pool=pool, settings=BotSettings(games=("tictactoe",), **settings)
        ).running() as bot,
    ):
        yield bot


async def test_a_person_is_asked_declines_then_grants_and_the_record_keeps_what_was_taken_back(connect, server):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob, clock={"initial_ms": 60_000, "increment_ms": 5_000})
    assert (await alice.request("takeback", match=match))["code"] == "nothing_to_take_back"
    await play_move(alice, match, 0, [0, 0])
    assert (await alice.request("takeback", match=match))["type"] == "ok"
    for client in (alice, bob):
        assert (await client.expect("takeback_offered", match=match))["by"] == 0
    assert (await alice.request("takeback", match=match))["code"] == "takeback_pending"
    assert (await alice.request("accept_takeback", match=match))["code"] == "no_takeback_request"  # not its own
    assert (await bob.request("decline_takeback", match=match))["type"] == "ok"
    assert (await alice.expect("takeback_declined", match=match))["by"] == 1
    assert (await alice.request("takeback", match=match))["code"] == "takeback_pending"  # not again at this ply
    await play_move(bob, match, 1, [1, 1])
    # Bob has answered: alice's takeback now takes back her move and his reply.
    assert (await alice.request("takeback", match=match))["type"] == "ok"
    assert (await bob.expect("takeback_offered", match=match))["ply"] == 0
    assert (await bob.request("accept_takeback", match=match))["type"] == "ok"
    for client in (alice, bob):
        back = await client.expect("taken_back", match=match)
        assert (back["by"], back["ply"], back["moves"], back["to_move"]) == (0, 0, [[0, 0], [1, 1]], 0)
        # No time given back: the increments the two moves earned are taken off again.
        assert all(55_000 < ms <= 60_000 for ms in back["clocks"]), back["clocks"]
    assert (await bob.request("move", match=match, ply=0, move=[2, 2]))["code"] == "not_your_turn"
    assert (await alice.request("move", match=match, ply=1, move=[2, 2]))["code"] == "stale_ply"
    for client in (alice, bob):
        client.backlog.clear()  # the first line's `moved` are history: the plies are played again
    for ply, (client, move) in enumerate([(alice, [2, 2]), (bob, [0, 0]), (alice, [2, 0])]):
        assert (await play_move(client, match, ply, move))["type"] == "moved"
    state = await bob.request("sync", match=match)
    assert state["moves"] == [[2, 2], [0, 0], [2, 0]] and state["ply"] == 3
    assert (await bob.request("resign", match=match))["type"] == "ok"
    await alice.expect("end", match=match)
    record = await server.hub.store.get_game(match)
    assert [m.move for m in record.moves] == [[2, 2], [0, 0], [2, 0]]
    assert [(a.kind, a.ply, a.color, a.move) for a in record.asides] == [
        ("taken_back", 0, 0, [0, 0]),
        ("taken_back", 1, 1, [1, 1]),
    ]


async def test_bad_takeback_requests_get_codes_and_change_nothing(connect):
    alice, bob, carol = await connect(), await connect(), await connect()
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [0, 0])
    assert (await carol.request("takeback", match=match))["code"] == "not_a_player"
    assert (await alice.request("takeback", match="nope"))["code"] == "unknown_match"
    assert (await alice.request("takeback", match=match, ply=3))["code"] == "unknown_field"
    assert (await alice.request("takeback"))["code"] == "missing_field"
    assert (await bob.request("decline_takeback", match=match))["code"] == "no_takeback_request"
    assert (await bob.request("takeback", match=match))["code"] == "nothing_to_take_back"
    assert (await bob.request("hint", match=match))["code"] == "hint_not_allowed"  # alice is no bot
    assert (await bob.request("hint_answer", match=match, ply=1, move=[1, 1]))["code"] == "no_hint_request"
    state = await alice.request("sync", match=match)
    assert state["moves"] == [[0, 0]] and state["to_move"] == 1
    assert (await alice.request("resign", match=match))["type"] == "ok"
    await bob.expect("end", match=match)
    assert (await alice.request("takeback", match=match))["code"] == "match_over"


async def test_our_bot_grants_a_takeback_and_gives_a_hint_in_a_casual_game(connect, server):
    async with perfect_bot(server):
        person = await connect()
        created = await person.request(
            "challenge", to="perfect", game="tictactoe", clock={"initial_ms": 60_000}, color="first"
        )
        assert created["type"] == "challenge_created", created
        start = await person.expect("match_start")
        match = start["match"]
        await play_move(person, match, 0, [0, 1])  # a slip: the edge
        await person.expect("moved", match=match, ply=1)  # the bot's instant reply
        assert (await person.request("takeback", match=match))["type"] == "ok"
        back = await person.expect("taken_back", match=match)
        assert (back["ply"], back["to_move"], len(back["moves"])) == (0, 0, 2)
        assert (await person.request("hint", match=match))["type"] == "ok"
        hint = await person.expect("hint", match=match)
        assert (hint["ply"], hint["used"]) == (0, 1) and len(hint["move"]) == 2
        assert (await person.request("hint", match=match))["code"] == "hint_used"
        person.backlog.clear()
        await play_move(person, match, 0, hint["move"])
        reply = await person.expect("moved", match=match, ply=1)  # the bot plays on from the new line
        assert reply["by"] == 1
        assert (await person.request("resign", match=match))["type"] == "ok"
        await person.expect("end", match=match)
    record = await server.hub.store.get_game(match)
    assert [a.kind for a in record.asides] == ["taken_back", "taken_back", "hint"]
    assert record.moves[0].move == hint["move"] and len(record.moves) == 2
    text = format_record(record)  # the export shows them, and reads them back
    assert '[TakenBack "0:0:a2 1:1:' in text and '[Hints "0:0:' in text
    assert parse_records(text)[0].asides == [replace(a, elapsed_ms=0) for a in record.asides]


async def test_rated_games_refuse_takebacks_and_hints(connect, server):
    async with perfect_bot(server):
        person = await connect(token=await server.hub.store.add_player("alice", "human"))
        created = await person.request(
            "challenge", to="perfect", game="tictactoe", clock={"initial_ms": 60_000}, color="first", rated=True
        )
        assert created["type"] == "challenge_created", created
        match = (await person.expect("match_start"))["match"]
        assert (await person.request("hint", match=match))["code"] == "hint_not_allowed"
        await play_move(person, match, 0, [1, 1])
        await person.expect("moved", match=match, ply=1)
        assert (await person.request("takeback", match=match))["code"] == "takeback_not_allowed"
        state = await person.request("sync", match=match)
        assert state["ply"] == 2 and state["rated"] is True
        assert (await person.request("resign", match=match))["type"] == "ok"
        await person.expect("end", match=match)
    assert (await server.hub.store.get_game(match)).asides == []


async def test_a_bot_that_never_grants_declines(connect, server):
    async with perfect_bot(server, takebacks="never", hints=False):
        person = await connect()
        await person.request("challenge", to="perfect", game="tictactoe", clock={"initial_ms": 60_000}, color="first")
        match = (await person.expect("match_start"))["match"]
        await play_move(person, match, 0, [0, 1])
        await person.expect("moved", match=match, ply=1)
        assert (await person.request("takeback", match=match))["type"] == "ok"
        assert (await person.expect("takeback_declined", match=match))["by"] == 1
        assert (await person.request("hint", match=match))["code"] == "hint_not_allowed"
        assert (await person.request("resign", match=match))["type"] == "ok"
        await person.expect("end", match=match)
