"""Balanced openings for ladder games between bots: chosen by seed, balanced by measure (a judged book
where one is shipped, random playouts otherwise), played before the clocks start, announced in
match_start, each played twice with the colours swapped, stored with the game and shown in its record
and replay data; people never get one."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arbiter.engine import create_game
from arbiter.server import RunningServer, ServerConfig
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.config import DEFAULT_LADDER_OPENINGS, LadderConfig, parse_ladder_opening
from arbiter.server.play.match import Match
from arbiter.server.ranking.openings import BAND, BOOKS, balanced_opening, book, playout_score, wins_at_once
from arbiter.server.results.records import format_record, parse_records
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move

CLOCK = {"initial_ms": 10_000, "increment_ms": 200, "move_limit_ms": None}


@pytest.mark.parametrize(("game", "plies"), [("gomoku10", 4), ("tictactoe4", 2), ("paper_soccer", 2), ("ttt3d", 2)])
def test_an_opening_is_seeded_legal_unfinished_and_balanced(game: str, plies: int) -> None:
    rules = create_game(game)
    moves = balanced_opening(rules, plies, seed=11)
    assert moves == balanced_opening(rules, plies, seed=11) != balanced_opening(rules, plies, seed=12)
    state = rules.new_state()
    for move in moves:
        state.play(rules.decode_move(move))  # whole moves: a paper-soccer turn with its bounces
    assert len(moves) == plies and not state.is_terminal
    assert BAND[0] <= playout_score(state, 5) <= BAND[1] + 0.05  # measured on other playouts: close to the band


@pytest.mark.parametrize("path", sorted(BOOKS.glob("*.json")), ids=lambda path: path.stem)
def test_every_opening_of_a_book_is_legal_unfinished_and_of_the_book_s_length(path: Path) -> None:
    document = json.loads(path.read_text())
    assert document["game"] == path.stem and document["made"]  # named for its game, and says how it was made
    rules = create_game(path.stem)
    openings = book(path.stem)
    assert len(openings) >= 100 and len(set(openings)) == len(openings)
    for opening in openings:
        state = rules.new_state()
        for move in opening:
            state.play(rules.decode_move(list(move)))
        assert len(opening) == len(openings[0]) and not state.is_terminal and not wins_at_once(state)


def test_the_ladder_s_default_openings_come_from_the_books_shipped() -> None:
    for path in BOOKS.glob("*.json"):
        assert DEFAULT_LADDER_OPENINGS[path.stem] == len(book(path.stem)[0]), path.stem


def test_a_game_with_a_book_draws_its_opening_from_it_by_seed() -> None:
    gomoku = create_game("gomoku")
    shelf = {tuple(tuple(move) for move in opening) for opening in book("gomoku")}
    drawn = [balanced_opening(gomoku, 3, seed) for seed in range(20)]
    assert all(tuple(tuple(move) for move in opening) in shelf for opening in drawn)
    assert drawn[0] == balanced_opening(gomoku, 3, 0) and len({str(opening) for opening in drawn}) > 15
    # Not a book's length, or not the book's rules: random plies measured by playouts, as for any game.
    assert len(balanced_opening(gomoku, 4, 0)) == 4
    exact = balanced_opening(create_game("gomoku", {"exact": True}), 3, 0)
    assert tuple(tuple(move) for move in exact) not in shelf


def test_an_opening_is_played_before_the_clock_and_counts_as_nobody_s_move() -> None:
    match = Match("m", create_game("tictactoe"), ClockSpec(10_000))
    match.open_with([[1, 1], [0, 0]])
    assert (match.ply, match.opening, match.moves_by, match.elapsed_ms) == (2, 2, [0, 0], [0, 0])
    match.start(0.0)
    assert match.clocks_ms(0.0) == [10_000, 10_000] and match.to_move == 0
    with pytest.raises(ValueError, match="before anything else"):
        match.open_with([[2, 2]])
    finished = Match("f", create_game("tictactoe"), ClockSpec(10_000))
    with pytest.raises(ValueError, match="ends the game"):
        finished.open_with([[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]])


def test_the_ladder_opening_flag_is_checked() -> None:
    assert parse_ladder_opening("gomoku=4") == ("gomoku", 4)
    for bad in ("gomoku", "chess=4", "gomoku=x", "gomoku=99"):
        with pytest.raises(ValueError):
            parse_ladder_opening(bad)


@pytest.fixture
def config() -> ServerConfig:
    openings = {"tictactoe": 2, "gomoku": 3}
    ladder = LadderConfig(window=1000.0, rematch_after_s=0.0, retry_s=0.05, seed=7, openings=openings)
    return ServerConfig(port=0, ladder=ladder)


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "openings.db")


async def play_out(clients: dict[str, Client]) -> dict[str, Any]:
    """Both get match_start (with the opening's moves); they play the first free cells in order. The start."""
    starts = {name: await client.expect("match_start") for name, client in clients.items()}
    [start] = {s["match"]: s for s in starts.values()}.values()
    order = [p["name"] for p in start["players"]]
    state = create_game("tictactoe").new_state()
    for move in start["moves"]:
        state.play(state.game.decode_move(move))
    ply = len(start["moves"])
    while not state.is_terminal:
        move = state.game.encode_move(state.legal_moves()[0])
        assert (await play_move(clients[order[ply % 2]], start["match"], ply, move))["type"] == "moved"
        state.play(state.game.decode_move(move))
        ply += 1
    for client in clients.values():
        await client.expect("end", match=start["match"])
    return start


async def test_two_bots_play_each_opening_twice_with_the_colours_swapped(server: RunningServer, store, connect):
    tokens = {name: await store.add_player(name, "bot") for name in ("alpha", "beta")}
    clients = {name: await connect(token=token) for name, token in tokens.items()}
    for client in clients.values():
        assert (await client.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
    first = await play_out(clients)
    second = await play_out(clients)
    assert len(first["moves"]) == 2 and first["moves"] == second["moves"]  # the same opening …
    assert [p["name"] for p in first["players"]] == [p["name"] for p in reversed(second["players"])]  # … swapped
    assert first["clocks"] == [10_000, 10_000] and first["to_move"] == 0  # no clock ran during the opening
    third = await play_out(clients)
    assert len(third["moves"]) == 2 and third["moves"] != first["moves"]  # the pair's next opening: a new one

    record = await store.get_game(first["match"])
    assert record is not None and record.start.opening == 2
    assert [m.move for m in record.moves[:2]] == first["moves"] and [m.elapsed_ms for m in record.moves[:2]] == [0, 0]
    (again,) = parse_records(format_record(record))
    assert again.start.opening == 2  # the text record keeps it

    def game_json() -> dict[str, Any]:
        with urllib.request.urlopen(f"{server.http_url}/game.json?match={first['match']}", timeout=5) as response:
            return json.loads(response.read())

    assert (await asyncio.to_thread(game_json))["opening"] == 2  # the replay marks the opening's moves


async def test_a_gomoku_ladder_game_between_bots_starts_from_an_opening_of_the_book(server, store, connect):
    tokens = {name: await store.add_player(name, "bot") for name in ("alpha", "beta")}
    clients = {name: await connect(token=token) for name, token in tokens.items()}
    for client in clients.values():
        assert (await client.request("ladder_join", game="gomoku"))["type"] == "ladder_joined"
    starts = [await client.expect("match_start") for client in clients.values()]
    assert starts[0]["moves"] == starts[1]["moves"]
    assert tuple(tuple(move) for move in starts[0]["moves"]) in book("gomoku")
    assert len(starts[0]["moves"]) == 3 and starts[0]["to_move"] == 1  # the second player moves first
    assert (await clients["alpha"].request("resign", match=starts[0]["match"]))["type"] == "ok"


async def test_people_and_challenges_never_start_from_an_opening(server: RunningServer, store, connect):
    bot = await connect(token=await store.add_player("alpha", "bot"))
    person = await connect(token=await store.add_player("carol", "human"))
    for client in (bot, person):
        assert (await client.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
    start = await person.expect("match_start")
    assert start["moves"] == []
    state = await person.request("sync", match=start["match"])
    assert state["opening"] == 0
