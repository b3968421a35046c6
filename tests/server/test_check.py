"""``arbiter check`` on stores filled by real games over real sockets: clean as the server left them,
and failing, with the right line, on each hand-corrupted copy; ``--repair`` rebuilds the ratings.

The games: a win on the board, a resignation, a timeout, a full-board draw, an agreed draw, an
abort, a paper-soccer game of random whole turns, a rated ladder game from a balanced opening, a
game the restart rule voided, and one still live when the server stopped (no end: not a difference).
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner, Result

from arbiter.cli import main
from arbiter.engine import create_game
from arbiter.server import ServerConfig, run_server
from arbiter.server.config import LadderConfig
from arbiter.server.results.consistency import check_game
from arbiter.server.store.base import GameRecord, GameStart, MoveRecord, Store
from arbiter.server.store.postgresql import PostgresStore
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, play_out, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]  # tic-tac-toe: the first player's column
DRAWN = [[1, 1], [0, 0], [2, 0], [0, 2], [0, 1], [2, 1], [1, 0], [1, 2], [2, 2]]  # a full board, no line
POOL = "tictactoe/bullet"


async def fill(open_store: Callable[[], Store]) -> dict[str, str]:
    """Play every kind of game on a real server over ``open_store()``'s store; match ids by kind."""
    setup = open_store()
    await setup.open()
    tokens = {name: await setup.add_player(name, "bot") for name in ("alpha", "beta")}
    await setup.close()
    ids: dict[str, str] = {}
    ladder = LadderConfig(window=1000.0, rematch_after_s=3600.0, retry_s=0.05, seed=7, openings={"tictactoe": 2})
    async with run_server(ServerConfig(port=0, ladder=ladder), open_store()) as server:
        alpha, beta = [await Client.connect(server.url, token=tokens[name]) for name in ("alpha", "beta")]
        guest = await Client.connect(server.url)

        ids["line"] = await start_match(alpha, beta, rated=True)
        for ply, move in enumerate(FIRST_WINS):
            assert (await play_move((alpha, beta)[ply % 2], ids["line"], ply, move))["type"] == "moved"
        assert (await alpha.expect("end", match=ids["line"]))["reason"] == "line"

        ids["resign"] = await start_match(beta, alpha, rated=True)
        assert (await play_move(beta, ids["resign"], 0, [1, 1]))["type"] == "moved"
        assert (await alpha.request("resign", match=ids["resign"]))["type"] == "ok"

        ids["timeout"] = await start_match(alpha, beta, rated=True, clock={"initial_ms": 400, "increment_ms": 0})
        assert (await play_move(alpha, ids["timeout"], 0, [1, 1]))["type"] == "moved"
        end = await alpha.expect("end", match=ids["timeout"], timeout=5)  # beta never moves: its flag falls
        assert (end["result"], end["reason"]) == ("1-0", "timeout")

        ids["board_full"] = await start_match(alpha, beta, rated=True)
        for ply, move in enumerate(DRAWN):
            assert (await play_move((alpha, beta)[ply % 2], ids["board_full"], ply, move))["type"] == "moved"
        assert (await alpha.expect("end", match=ids["board_full"]))["result"] == "1/2-1/2"

        ids["draw_agreed"] = await start_match(beta, alpha)
        await beta.request("offer_draw", match=ids["draw_agreed"])
        await alpha.request("offer_draw", match=ids["draw_agreed"])
        assert (await beta.expect("end", match=ids["draw_agreed"]))["reason"] == "draw_agreed"

        ids["abort"] = await start_match(alpha, beta)  # (a guest's aborted game would not be kept)
        assert (await play_move(alpha, ids["abort"], 0, [0, 0]))["type"] == "moved"
        assert (await beta.request("abort", match=ids["abort"]))["type"] == "ok"

        ids["soccer"] = await start_match(alpha, beta, "paper_soccer", rated=True)
        await play_out((alpha, beta), ids["soccer"], "paper_soccer", None, seed=3)

        for client in (alpha, beta):
            assert (await client.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
        ids["ladder"] = await play_ladder_game(alpha, beta)
        for client in (alpha, beta):
            assert (await client.request("ladder_leave", game="tictactoe"))["type"] == "ok"

        ids["voided"] = await start_match(beta, guest)  # left live: the next start voids it
        assert (await play_move(beta, ids["voided"], 0, [2, 2]))["type"] == "moved"
        for client in (alpha, beta, guest):
            await client.close()
    async with run_server(ServerConfig(port=0), open_store()) as server:
        alpha, guest = await Client.connect(server.url, token=tokens["alpha"]), await Client.connect(server.url)
        ids["live"] = await start_match(alpha, guest)  # still live when this server stops
        assert (await play_move(alpha, ids["live"], 0, [2, 0]))["type"] == "moved"
        await alpha.close()
        await guest.close()
    return ids


async def play_ladder_game(*clients: Client) -> str:
    """Both get the ladder's match_start (a 2-ply opening played already); random moves to the end."""
    starts = [await client.expect("match_start") for client in clients]
    start = starts[0]
    assert start["rated"] and len(start["moves"]) == 2 and start["match"] == starts[1]["match"]
    by_color = {s["color"]: client for s, client in zip(starts, clients, strict=True)}
    state = create_game("tictactoe").new_state()
    for move in start["moves"]:
        state.play(state.game.decode_move(move))
    rng = random.Random(5)
    while not state.is_terminal:
        move = state.game.encode_move(rng.choice(state.legal_moves()))
        assert (await play_move(by_color[state.to_move], start["match"], state.ply, move))["type"] == "moved"
        state.play(state.game.decode_move(move))
    for client in clients:
        await client.expect("end", match=start["match"])
    return str(start["match"])


def check(db: Path | str, *flags: str) -> Result:
    return CliRunner().invoke(main, ["check", "--db", str(db), *flags])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One SQLite file the games were played into (copied by each test that corrupts it)."""
    db = tmp_path_factory.mktemp("played") / "arbiter.db"
    return db, asyncio.run(fill(lambda: SqliteStore(db)))


def test_the_games_real_sockets_stored_are_clean(played: tuple[Path, dict[str, str]]) -> None:
    result = check(played[0])
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.splitlines()
    assert re.fullmatch(
        r"checked 10 games \(\d+ moves; 1 without an end: live, or left for the restart rule\), 6 rated games,"
        r" 4 ratings in 2 pools: clean",
        line,
    ), line


def corrupted(played: tuple[Path, dict[str, str]], folder: Path, *statements: str) -> Path:
    """A copy of the played database with ``statements`` applied (``{line}``: that game's row id)."""
    db, ids = played
    copy = folder / "corrupt.db"
    shutil.copy(db, copy)
    with sqlite3.connect(copy) as conn:
        rows = {kind: conn.execute("SELECT id FROM games WHERE match_id = ?", (match,)).fetchone()[0]
                for kind, match in ids.items()}  # fmt: skip
        for statement in statements:
            conn.execute(statement.format(**rows))
    conn.close()
    return copy


CORRUPTIONS = {
    "an illegal move": (
        ["UPDATE moves SET move = '[0,0]' WHERE game_id = {line} AND ply = 2"],
        "game {line} (tictactoe) ply 2: illegal move [0, 0] by alpha",
    ),
    "a changed result": (
        ["UPDATE games SET result = '0-1' WHERE id = {line}"],
        "game {line} (tictactoe): the moves end it 1-0 by line at ply 4; stored 0-1 by line",
    ),
    "a gap in the plies": (
        ["DELETE FROM moves WHERE game_id = {line} AND ply = 2"],
        "game {line} (tictactoe) ply 2: plies jump from 1 to 3: 1 missing",
    ),
    "a timeout won by the side to move": (
        ["UPDATE games SET result = '0-1' WHERE id = {timeout}"],
        "game {timeout} (tictactoe): beta was to move, so a timeout is 1-0; stored 0-1 by timeout",
    ),
    "an aborted game with a result": (
        ["UPDATE games SET result = '1-0' WHERE id = {abort}"],
        "game {abort} (tictactoe): a game ended by abort has no result; stored 1-0 by abort",
    ),
    "a board reason the board does not give": (
        ["UPDATE games SET reason = 'line' WHERE id = {resign}"],
        "game {resign} (tictactoe): stored 1-0 by line, but after 1 move the game is not over",
    ),
    "a rated game with an unknown player": (
        ["UPDATE games SET first_name = 'ghost' WHERE id = {board_full}"],
        "game {board_full} (tictactoe): rated 1/2-1/2, but ghost is not a registered player: not rated",
    ),
    "an illegal paper-soccer turn": (
        ["UPDATE moves SET move = '[9]' WHERE game_id = {soccer} AND ply = 0"],
        "game {soccer} (paper_soccer) ply 0: illegal move [9] by alpha",
    ),
    "a move under a game that does not exist": (
        ["INSERT INTO moves (game_id, ply, move, elapsed_ms) VALUES (424242, 0, '[1,1]', 5)"],
        "moves of game id 424242: 1 move stored, but no game has that id",
    ),
    "a rating without any rated game": (
        [
            "INSERT INTO ratings (player_id, pool, level, rating, deviation, volatility, games, wins, draws, losses,"
            " updated) SELECT id, 'gomoku/blitz', 2, 1600, 300, 0.06, 3, 3, 0, 0, 0 FROM players WHERE name = 'beta'"
        ],
        "rating beta@2 in gomoku/blitz: no rated game, yet rating 1500 expected, 1600 stored; deviation 350 expected,",
    ),
    "a changed rating": (
        [
            f"UPDATE ratings SET rating = rating + 100 WHERE player_id = (SELECT id FROM players WHERE name = 'alpha')"
            f" AND pool = '{POOL}'"
        ],
        "rating alpha in tictactoe/bullet: rating ",
    ),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_each_hand_corruption_fails_with_its_line(played, tmp_path: Path, corruption: str) -> None:
    statements, line = CORRUPTIONS[corruption]
    expected = line.format(**played[1])
    result = check(corrupted(played, tmp_path, *statements))
    assert result.exit_code == 1, result.output
    assert any(out.startswith(expected) for out in result.stdout.splitlines()), (expected, result.stdout)
    assert re.search(r": \d+ differences? \(", result.stdout.splitlines()[-1]), result.stdout


def test_repair_rebuilds_a_changed_rating_and_reports_what_it_cannot_fix(played, tmp_path: Path) -> None:
    untouched = check(played[0], "--repair")
    assert untouched.exit_code == 0 and "repaired" not in untouched.stdout  # a clean store is left alone
    rating = CORRUPTIONS["a changed rating"][0]
    repaired = check(corrupted(played, tmp_path, *rating), "--repair")
    assert repaired.exit_code == 0, repaired.output
    assert "repaired: every rating rebuilt from 6 rated games; checking again" in repaired.stdout
    assert repaired.stdout.splitlines()[-1].endswith(": clean")
    assert check(tmp_path / "corrupt.db").exit_code == 0

    both = check(corrupted(played, tmp_path, *rating, *CORRUPTIONS["a changed result"][0]), "--repair")
    assert both.exit_code == 1, both.output  # the ratings agree with the stored result now; the game does not
    assert "not repaired: 1 in the games themselves (moves, ends), which a person must look at" in both.stdout
    *_, difference, summary = both.stdout.splitlines()
    assert difference.startswith(f"game {played[1]['line']} (tictactoe): the moves end it 1-0")
    assert summary.endswith(": 1 difference (games: 1)")


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    missing = check(tmp_path / "none.db")
    assert missing.exit_code == 2 and "no database at" in missing.stderr
    assert CliRunner().invoke(main, ["check", "--bogus"]).exit_code == 2


async def test_the_postgresql_store_is_checked_and_repaired_alike(postgres_url: str) -> None:
    ids = await fill(lambda: PostgresStore(postgres_url))
    clean = await asyncio.to_thread(check, postgres_url)
    assert clean.exit_code == 0, clean.output
    assert "checked 10 games" in clean.stdout and clean.stdout.endswith(": clean\n")
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        await conn.execute("UPDATE ratings SET games = games + 1 WHERE pool = %s", (POOL,))
        await conn.execute("INSERT INTO moves (game_id, ply, move, elapsed_ms) VALUES (424242, 0, '[1,1]', 5)")
        await conn.execute("UPDATE moves SET move = '[0,0]' WHERE ply = 2 AND game_id ="
                           " (SELECT id FROM games WHERE match_id = %s)", (ids["line"],))  # fmt: skip
    broken = await asyncio.to_thread(check, postgres_url)
    assert broken.exit_code == 1
    lines = broken.stdout.splitlines()
    assert any(line.startswith(f"game {ids['line']} (tictactoe) ply 2: illegal move [0, 0]") for line in lines)
    assert "moves of game id 424242: 1 move stored, but no game has that id" in lines
    assert any(line.startswith("rating alpha in tictactoe/bullet: games ") for line in lines), lines
    repaired = await asyncio.to_thread(check, postgres_url, "--repair")
    assert repaired.exit_code == 1 and "repaired: every rating rebuilt" in repaired.stdout
    assert repaired.stdout.splitlines()[-1].endswith(": 2 differences (games: 1, moves without a game: 1)")


def stored(moves: list[list[int]], result: str | None, reason: str | None, *, ended: float | None = 9.0,
           game: str = "tictactoe", opening: int = 0, plies: list[int] | None = None) -> GameRecord:  # fmt: skip
    start = GameStart("m", game, {}, ("alpha", "beta"), {"initial_ms": 60_000}, False, 1.0, opening=opening)
    numbered = plies if plies is not None else list(range(len(moves)))
    return GameRecord(start, [MoveRecord(p, m, 0) for p, m in zip(numbered, moves, strict=True)], result, reason, ended)


@pytest.mark.parametrize(
    "record",
    [
        stored(FIRST_WINS, "1-0", "line"),
        stored(DRAWN, "1/2-1/2", "board_full"),
        stored(FIRST_WINS[:1], "1-0", "timeout"),  # the second player was to move
        stored(FIRST_WINS[:2], "0-1", "resign"),
        stored(FIRST_WINS[:2], "1-0", "abandoned"),
        stored(FIRST_WINS[:2], None, "abandoned"),
        stored(FIRST_WINS[:1], None, "abort"),  # the second player had not moved
        stored(FIRST_WINS[:2], "1/2-1/2", "draw_agreed"),
        stored(FIRST_WINS[:3], None, "interrupted"),
        stored(FIRST_WINS[:3], "0-1", "forfeit"),
        stored(FIRST_WINS[:3], None, "unfinished"),
        stored(FIRST_WINS[:3], None, None, ended=None),  # live
        stored(FIRST_WINS, None, None, ended=None),  # its moves end it, its end is not written yet
        stored(FIRST_WINS[:3], None, "abort", opening=2),  # the opening's moves are nobody's
    ],
)
def test_ends_that_agree_with_their_record(record: GameRecord) -> None:
    assert check_game(record) == []


@pytest.mark.parametrize(
    ("record", "line"),
    [
        (stored(FIRST_WINS[1:], "1-0", "resign", plies=[1, 2, 3, 4]), " ply 0: plies start at 1: 1 missing"),
        (stored(FIRST_WINS[:2], "1-0", "resign", plies=[0, 0]), " ply 0: stored twice"),
        (stored([*FIRST_WINS, [2, 2]], "1-0", "line"), " ply 5: a move ([2, 2]) after the game was over (1-0 by line)"),
        (stored(FIRST_WINS, "1-0", "line", opening=5), " ply 4: the opening of 5 plies ends the game (1-0 by line)"),
        (stored(FIRST_WINS[:2], None, "abort", opening=3), ": starts from an opening of 3 plies, but only 2 moves"),
        (stored([], None, "abort", game="chess"), ": cannot be replayed: "),
        (stored(FIRST_WINS[:2], None, "abort"), ": an abort comes before the aborting side's first move, but both"),
        (stored(FIRST_WINS[:2], "1-0", "timeout"), ": alpha was to move, so a timeout is 0-1; stored 1-0 by timeout"),
        (stored(FIRST_WINS[:2], "1-0", "draw_agreed"), ": a game ended by draw_agreed has 1/2-1/2; stored 1-0"),
        (stored(FIRST_WINS[:2], None, "resign"), ": a game ended by resign has 1-0 or 0-1; stored no result"),
        (stored(FIRST_WINS[:2], "1-0", None), ": ended without a reason (1-0)"),
        (stored(FIRST_WINS[:2], "1-0", "resign", ended=None), ": has no end time, yet an end: stored 1-0 by resign"),
        (
            stored(FIRST_WINS[:2], "1-0", "cosmic_ray"),
            ": stored 1-0 by cosmic_ray: a reason Arbiter never writes (it knows ",
        ),
    ],
)
def test_ends_that_contradict_their_record(record: GameRecord, line: str) -> None:
    (difference,) = check_game(record)
    assert difference.line().startswith(f"game m ({record.start.game}){line}"), difference.line()
