"""What SPEC.md promises a client author, each point held to the real server: whose turn a ply is,
the last ``moved`` before ``end``, paper soccer's goal mouth, bounces and turn length, ``id: nil``,
the order of the replies to ``cancel`` and ``decline``, the ladder's pause and queue place, and the
HTTP records' fields and units."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arbiter.engine import create_game
from arbiter.server import ServerConfig
from arbiter.server.config import LadderConfig, parse_ladder_clock
from tests.support.wsclient import Client, play_move, play_out, start_match

SPEC = (Path(__file__).parents[2] / "protocol" / "arbiter" / "protocol" / "SPEC.md").read_text()


def http_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.parametrize(
    ("game", "seed"), [("tictactoe", 1), ("paper_soccer", 2), ("paper_soccer", 3), ("vanishing", 4)]
)
async def test_ply_i_is_colour_i_mod_2_and_the_last_moved_comes_before_end(server, game, seed):
    log: list = []
    first, second = await Client.connect(server.url, record=log), await Client.connect(server.url, record=log)
    try:
        match = await start_match(first, second, game)
        end = await play_out((first, second), match, game, None, seed)
    finally:
        await first.close()
        await second.close()
    for client in (first, second):
        seen = [m for c, way, m in log if c is client and way == "received" and m.get("match") == match]
        moved = [m for m in seen if m["type"] == "moved"]
        assert [m["by"] for m in moved] == [m["ply"] % 2 for m in moved] and len(moved) == end["ply"]
        assert seen[-1]["type"] == "end" and seen[-2] == moved[-1]  # the last move's moved, then the end
    if game == "paper_soccer":  # a turn with bounces is one ply: some move has several steps
        assert any(len(m["move"]) > 1 for m in moved)


async def test_paper_soccer_posts_bounces_and_the_longest_turn(server):
    """On the default 8 × 10 field the ball walks north to (4, 1); from there the first player's turn
    ``[7, 1]`` lands on the post (3, 0), which the border touches (a bounce), then steps diagonally
    into the north goal: the posts belong to the goal mouth, and a bounce turn is one ply."""
    first, second = await Client.connect(server.url), await Client.connect(server.url)
    try:
        match = await start_match(first, second, "paper_soccer")
        for ply in range(4):  # each step lands on a point no line touched before it: the turn passes
            moved = await play_move((first, second)[ply % 2], match, ply, [0])
            assert moved["type"] == "moved" and moved["by"] == ply % 2
        steps = create_game("paper_soccer").max_steps
        assert steps == 316
        for width, length in [(4, 4), (4, 6), (6, 8), (10, 12), (14, 20), (30, 30)]:  # SPEC's count of segments
            assert create_game("paper_soccer", {"width": width, "length": length}).max_steps == (
                4 * width * length - width - length + 14
            )
        for wire, code in [
            ([7], "illegal_move"),  # stops on the post: a bounce, so the turn is incomplete
            ([7, 0], "illegal_move"),  # straight from the post: along the goal's side wall
            ([7, 7], "illegal_move"),  # from the post outwards: off the field beside the goal
            ([0] * steps, "illegal_move"),  # as long as a turn may be, but not legal
            ([0] * (steps + 1), "bad_move"),  # longer than any turn on this field
        ]:
            assert (await play_move(first, match, 4, wire))["code"] == code, wire
        assert (await play_move(first, match, 4, [7, 1]))["type"] == "moved"
        end = await first.expect("end", match=match)
        assert (end["result"], end["reason"], end["ply"]) == ("1-0", "goal", 5)
    finally:
        await first.close()
        await second.close()


async def test_id_nil_is_the_same_as_no_id(connect):
    client = await connect()
    await client.send({"type": "ping", "id": None})
    pong = await client.expect("pong")
    assert "re" not in pong
    await client.send({"type": "accept", "id": None, "challenge": "nope"})
    error = await client.expect("error")
    assert error["code"] == "unknown_challenge" and "re" not in error
    other = await connect()
    match = await start_match(client, other)
    await client.send({"type": "move", "id": None, "match": match, "ply": 0, "move": [1, 1]})
    assert (await other.expect("moved", match=match, ply=0))["by"] == 0


async def test_the_order_of_the_replies_to_cancel_and_decline(server):
    log: list = []
    alice, bob = await Client.connect(server.url, record=log), await Client.connect(server.url, record=log)
    try:
        await alice.request("subscribe")
        seek = await alice.request("challenge", game="tictactoe", clock={"initial_ms": 60_000})
        await alice.expect("seek_added")
        direct = await alice.request("challenge", to=bob.name, game="tictactoe", clock={"initial_ms": 60_000})
        await bob.expect("challenge_offered")
        for client, kind, created in [(alice, "cancel", seek), (alice, "cancel", direct)]:
            await client.request(kind, challenge=created["challenge"]["id"])
        again = await alice.request("challenge", to=bob.name, game="tictactoe", clock={"initial_ms": 60_000})
        await bob.expect("challenge_offered")
        await bob.request("decline", challenge=again["challenge"]["id"])
    finally:
        await alice.close()
        await bob.close()

    def order(client: Client) -> list[tuple[str, str | None]]:
        """What ``client`` received of these, in order (each socket keeps the server's order)."""
        kinds = ("ok", "challenge_closed", "seek_removed")
        return [
            (m["type"], m.get("reason"))
            for c, way, m in log
            if c is client and way == "received" and m["type"] in kinds
        ]

    assert order(alice) == [
        ("challenge_closed", "cancelled"), ("seek_removed", "cancelled"), ("ok", None),  # the seek
        ("challenge_closed", "cancelled"), ("ok", None),  # the direct challenge
        ("challenge_closed", "declined"),
    ]  # fmt: skip
    assert order(bob) == [("challenge_closed", "cancelled"), ("challenge_closed", "declined"), ("ok", None)]


REMATCH_S = 0.5


@pytest.fixture
def config() -> ServerConfig:
    clocks = dict([parse_ladder_clock("tictactoe=10+0")])
    return ServerConfig(port=0, reconnect_grace_s=5.0, ladder=LadderConfig(clocks=clocks, rematch_after_s=REMATCH_S))


async def test_the_ladder_pauses_a_rematch_and_a_reconnect_keeps_the_queue_place(server, store):
    tokens = {name: await store.add_player(name, "bot") for name in ("alpha", "beta")}
    bots = {name: await Client.connect(server.url, token=token) for name, token in tokens.items()}
    try:
        for bot in bots.values():
            await bot.request("ladder_join", game="tictactoe")
        start = await bots["alpha"].expect("match_start")
        await bots["beta"].expect("match_start", match=start["match"])
        await bots["alpha"].close()  # away within the grace: still in the queue
        bots["alpha"] = await Client.connect(server.url, token=tokens["alpha"])
        assert bots["alpha"].welcome["resumed"] == [start["match"]]
        await bots["alpha"].expect("match_state", match=start["match"])
        first = bots["alpha"] if start["color"] == 0 else bots["beta"]
        second = bots["beta"] if first is bots["alpha"] else bots["alpha"]
        await play_out((first, second), start["match"], "tictactoe", None, 7)
        ended = time.monotonic()
        rematch = await bots["alpha"].expect("match_start")  # no second ladder_join: the place was kept
        assert time.monotonic() - ended >= REMATCH_S * 0.9  # the pause before the same two meet again
        assert rematch["challenge"] is None and rematch["moves"] == []  # two bots, but no opening for this game
    finally:
        for bot in bots.values():
            await bot.close()


# --- HTTP records ---------------------------------------------------------------------------------------------
def documented_fields(route: str) -> set[str]:
    """The fields SPEC.md's table for ``route`` lists (section 14)."""
    section = SPEC.split("## 14.", 1)[1].split("\n## ", 1)[0]
    table = section.split(f"#### `{route}`", 1)[1].split("\n####", 1)[0]
    first_cells = re.findall(r"^\| ([^|]*) \|", table, flags=re.MULTILINE)
    return {name for cell in first_cells for name in re.findall(r"`(\w+)`", cell)}


async def test_the_records_api_has_the_fields_and_units_spec_md_lists(server, store):
    tokens = {name: await store.add_player(name, "bot") for name in ("alpha", "beta")}
    alpha, beta = [await Client.connect(server.url, token=tokens[name]) for name in ("alpha", "beta")]
    try:
        match = await start_match(alpha, beta, rated=True)
        await play_out((alpha, beta), match, "tictactoe", None, 5)
    finally:
        await alpha.close()
        await beta.close()
    base = server.http_url
    games = await asyncio.to_thread(http_json, f"{base}/games.json?player=alpha")
    game = await asyncio.to_thread(http_json, f"{base}/game.json?match={match}")
    report = await asyncio.to_thread(http_json, f"{base}/player.json?name=alpha")
    [listed] = games["games"]
    assert set(listed) == documented_fields("/games.json")
    assert set(game) == documented_fields("/game.json")
    assert set(report) == documented_fields("/player.json")
    for record in (listed, game):  # moments in integer Unix ms, the protocol's unit; the seconds for older clients
        assert type(record["ended_ms"]) is int and record["ended_ms"] == round(record["ended"] * 1000)
        assert type(record["started_ms"]) is int and record["started_ms"] <= record["ended_ms"]
        assert abs(record["ended_ms"] - time.time() * 1000) < 60_000
    assert all(type(m["elapsed_ms"]) is int for m in game["moves"]) and game["clock"]["initial_ms"] == 60_000
    [entry] = report["games"]
    assert entry["ended_ms"] == listed["ended_ms"] and type(report["player"]["created_ms"]) is int
    assert all(type(point["at_ms"]) is int for rating in report["ratings"] for point in rating["history"])
