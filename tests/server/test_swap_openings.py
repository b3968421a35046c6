"""The swap openings over a real server: swap1 and swap2 through every branch, the decider's clock,
bad input refused with nothing changed, clients without the feature kept out, the phase after a
reconnect, and the record carrying the choices."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from arbiter.server.results.game_files import read_psq, read_sgf
from arbiter.server.results.records import parse_records
from tests.server.conftest import Connect
from tests.server.test_export_formats import http_get
from tests.support.wsclient import Client, play_move, start_match

SWAP = {"features": ["swap"]}
PROPOSAL = [[7, 7], [8, 7], [7, 9]]  # black, white, black
EXTENSION = [[6, 8], [9, 6]]  # white, black


async def opened(connect: Connect, rule: str, clock: dict[str, Any] | None = None) -> tuple[Client, Client, str]:
    """An opener and a chooser in a new gomoku match with ``rule``."""
    opener, chooser = await connect(**SWAP), await connect(**SWAP)
    match = await start_match(opener, chooser, "gomoku", params={"opening": rule}, clock=clock)
    return opener, chooser, match


async def place(placer: Client, other: Client, match: str, first_ply: int, stones: list[list[int]]) -> dict[str, Any]:
    """``placer`` places ``stones`` from ``first_ply``; the last ``moved`` (with the phase it leaves)."""
    for ply, stone in enumerate(stones, first_ply):
        moved = await play_move(placer, match, ply, stone)
        assert moved["type"] == "moved", moved
        await other.expect("moved", match=match, ply=ply)
    return moved


async def swap(decider: Client, other: Client, match: str, choice: str) -> dict[str, Any]:
    """``decider`` chooses; the ``swapped`` both players were told."""
    assert (await decider.request("swap", match=match, choice=choice))["type"] == "ok"
    told = [await client.expect("swapped", match=match) for client in (decider, other)]
    assert told[0] == told[1]
    return told[0]


@pytest.mark.parametrize("choice", ["black", "white"])
async def test_swap1_the_chooser_takes_a_colour(connect: Connect, store, choice: str) -> None:
    opener, chooser, match = await opened(connect, "swap1")
    moved = await place(opener, chooser, match, 0, PROPOSAL)
    assert moved["swap"]["phase"] == "choose" and moved["swap"]["to_act"] == 1
    assert moved["swap"]["options"] == ["black", "white"]
    swapped = await swap(chooser, opener, match, choice)
    black, white = (chooser, opener) if choice == "black" else (opener, chooser)
    assert [p["name"] for p in swapped["players"]] == [black.name, white.name]
    assert swapped["swap"]["phase"] == "done" and swapped["swap"]["colors"] == ([1, 0] if choice == "black" else [0, 1])
    assert swapped["to_move"] == 1 and swapped["by"] == 1 and swapped["choice"] == choice
    assert (await play_move(white, match, 3, [0, 0]))["by"] == 1  # the usual rule from here: white moves
    assert (await play_move(black, match, 4, [1, 0]))["by"] == 0
    assert (await white.request("resign", match=match))["type"] == "ok"
    end = await black.expect("end", match=match)
    assert end["result"] == "1-0"  # black won: the record's first player
    record = await store.get_game(match)
    assert record.start.players == (black.name, white.name)
    assert record.swap == [{"by": chooser.name, "choice": choice, "ply": 3}]


@pytest.mark.parametrize(
    ("choices", "black_is_opener"),
    [(["black"], False), (["white"], True), (["place", "black"], True), (["place", "white"], False)],
)
async def test_swap2_every_branch(connect: Connect, store, choices: list[str], black_is_opener: bool) -> None:
    opener, chooser, match = await opened(connect, "swap2")
    moved = await place(opener, chooser, match, 0, PROPOSAL)
    assert moved["swap"]["options"] == ["black", "white", "place"]
    swapped = await swap(chooser, opener, match, choices[0])
    if choices[0] == "place":
        assert swapped["swap"] == {"rule": "swap2", "phase": "place", "to_act": 1, "stones": 5, "options": [],
                                   "choices": [{"by": 1, "choice": "place", "ply": 3}], "colors": None}  # fmt: skip
        assert [p["name"] for p in swapped["players"]] == [opener.name, chooser.name]  # seats still
        moved = await place(chooser, opener, match, 3, EXTENSION)
        assert moved["swap"]["phase"] == "choose" and moved["swap"]["to_act"] == 0
        assert moved["swap"]["options"] == ["black", "white"]
        swapped = await swap(opener, chooser, match, choices[1])
    black, white = (opener, chooser) if black_is_opener else (chooser, opener)
    assert [p["name"] for p in swapped["players"]] == [black.name, white.name]
    ply = 3 if len(choices) == 1 else 5
    assert (await play_move(white, match, ply, [0, 0]))["type"] == "moved"
    assert (await black.request("resign", match=match))["type"] == "ok"
    assert (await white.expect("end", match=match))["result"] == "0-1"
    record = await store.get_game(match)
    assert record.start.players == (black.name, white.name)
    deciders = [chooser, opener]
    assert record.swap == [{"by": deciders[i].name, "choice": c, "ply": 3 + 2 * i} for i, c in enumerate(choices)]


async def test_bad_input_in_the_phase_is_refused_and_changes_nothing(connect: Connect) -> None:
    opener, chooser, match = await opened(connect, "swap2")

    async def snapshot() -> dict[str, Any]:
        state = await opener.request("sync", match=match)
        return {k: v for k, v in state.items() if k not in ("re", "clocks")}

    async def refused(client: Client, code: str, kind: str, **fields: Any) -> None:
        before = await snapshot()
        reply = await client.request(kind, match=match, **fields)
        assert reply["type"] == "error" and reply["code"] == code, reply
        assert await snapshot() == before

    await refused(opener, "swap_phase", "swap", choice="black")  # stones are being placed
    await refused(chooser, "not_your_turn", "move", ply=0, move=[3, 3])  # the opener places them
    await place(opener, chooser, match, 0, PROPOSAL[:1])
    await refused(opener, "illegal_move", "move", ply=1, move=PROPOSAL[0])  # an occupied cell
    await refused(opener, "stale_ply", "move", ply=0, move=[3, 3])
    await place(opener, chooser, match, 1, PROPOSAL[1:])
    await refused(opener, "swap_phase", "move", ply=3, move=[3, 3])  # a choice is due, not a stone
    await refused(chooser, "swap_phase", "move", ply=3, move=[3, 3])
    await refused(opener, "not_your_turn", "swap", choice="white")  # the chooser chooses
    await refused(chooser, "bad_field", "swap", choice="grey")
    await swap(chooser, opener, match, "place")
    await place(chooser, opener, match, 3, EXTENSION)
    await refused(opener, "bad_field", "swap", choice="place")  # the opener's last choice is a colour
    await refused(chooser, "not_your_turn", "swap", choice="white")
    await swap(opener, chooser, match, "black")
    await refused(opener, "swap_phase", "swap", choice="white")  # settled
    spectator = await connect()
    await refused(spectator, "not_a_player", "swap", choice="white")


async def test_a_match_without_an_opening_refuses_swap(connect: Connect) -> None:
    alice, bob = await connect(**SWAP), await connect(**SWAP)
    match = await start_match(alice, bob, "gomoku")
    reply = await bob.request("swap", match=match, choice="black")
    assert reply["type"] == "error" and reply["code"] == "swap_phase"


@pytest.mark.parametrize("decider", ["chooser", "opener"])
async def test_the_decider_s_clock_runs_and_it_loses_on_time(connect: Connect, store, decider: str) -> None:
    clock = {"initial_ms": 1500, "increment_ms": 0}
    opener, chooser, match = await opened(connect, "swap2", clock)
    await place(opener, chooser, match, 0, PROPOSAL)
    if decider == "opener":
        await swap(chooser, opener, match, "place")
        await place(chooser, opener, match, 3, EXTENSION)
    state = await opener.request("sync", match=match)
    seat = 1 if decider == "chooser" else 0
    assert state["swap"]["to_act"] == seat
    # nobody chooses: the decider's flag falls, and the other seat (the first player stays first) wins
    end = await opener.expect("end", match=match, timeout=5)
    assert end["reason"] == "timeout" and end["winner"] == 1 - seat
    assert end["clocks"][seat] == 0 and end["clocks"][1 - seat] > 0
    record = await store.get_game(match)
    placed = [{"by": chooser.name, "choice": "place", "ply": 3}] if decider == "opener" else []
    assert record.start.players == (opener.name, chooser.name) and record.swap == placed  # each choice is kept


async def test_clients_without_the_feature_get_no_swap_game(connect: Connect) -> None:
    plain, swapper = await connect(), await connect(**SWAP)
    params = {"opening": "swap2"}
    fields = {"game": "gomoku", "params": params, "clock": {"initial_ms": 60_000}}
    for challenger, target in ((swapper, plain), (plain, swapper)):
        refused = await challenger.request("challenge", to=target.name, **fields)
        assert refused["type"] == "error" and refused["code"] == "feature_needed", refused
    refused = await plain.request("challenge", **fields)  # nor may it seek one
    assert refused["code"] == "feature_needed"
    seek = await swapper.request("challenge", **fields)
    refused = await plain.request("accept", challenge=seek["challenge"]["id"])
    assert refused["type"] == "error" and refused["code"] == "feature_needed"
    other = await connect(**SWAP)  # the seek is still open for a client that speaks swap
    assert (await other.request("accept", challenge=seek["challenge"]["id"]))["type"] == "ok"
    assert swapper.welcome["features"] == ["swap"]


async def test_a_returning_player_gets_the_phase_back(connect: Connect) -> None:
    opener, chooser, match = await opened(connect, "swap2")
    await place(opener, chooser, match, 0, PROPOSAL)
    await swap(chooser, opener, match, "place")
    await place(chooser, opener, match, 3, EXTENSION[:1])
    token = chooser.welcome["resume_token"]
    await chooser.close()
    back = await connect(token=token, **SWAP)
    state = await back.expect("match_state", match=match)
    assert state["color"] == 1 and state["ply"] == 4 and state["moves"][3] == EXTENSION[0]
    assert state["swap"]["phase"] == "place" and state["swap"]["to_act"] == 1 and state["swap"]["stones"] == 5
    assert (await play_move(back, match, 4, EXTENSION[1]))["type"] == "moved"


async def test_the_records_carry_the_opening_and_its_choices(connect: Connect, server, store) -> None:
    opener, chooser, match = await opened(connect, "swap2")
    await place(opener, chooser, match, 0, PROPOSAL)
    await swap(chooser, opener, match, "place")
    await place(chooser, opener, match, 3, EXTENSION)
    await swap(opener, chooser, match, "white")
    assert (await opener.request("resign", match=match))["type"] == "ok"
    await opener.expect("end", match=match)
    await store.flush()
    choices = [{"by": chooser.name, "choice": "place", "ply": 3}, {"by": opener.name, "choice": "white", "ply": 5}]
    status, _, body = await asyncio.to_thread(http_get, f"{server.http_url}/game.json?match={match}")
    game = json.loads(body)
    assert status == 200 and game["swap"] == choices and game["players"] == [chooser.name, opener.name]
    assert game["params"]["opening"] == "swap2" and game["pool"].startswith("gomoku[opening=swap2]/")
    record = await store.get_game(match)
    for fmt, read in (("sgf", read_sgf), ("psq", read_psq), ("text", parse_records)):
        status, _, text = await asyncio.to_thread(http_get, f"{server.http_url}/export?match={match}&format={fmt}")
        assert status == 200 and read(text)[0].swap == choices, fmt
        assert read(text)[0].start.players == record.start.players == (chooser.name, opener.name)
    _, _, sgf = await asyncio.to_thread(http_get, f"{server.http_url}/export?match={match}&format=sgf")
    assert f"ON[swap2; {chooser.name} placed two more; {opener.name} took white]" in sgf
