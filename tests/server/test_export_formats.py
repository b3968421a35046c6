"""Games played on a real server export as Gomocup .psq and SGF, from the command line and over HTTP,
and read back as the games the store holds; games without a board (paper soccer) are refused."""

from __future__ import annotations

import asyncio
import dataclasses
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arbiter.cli import main
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.results.game_files import read_psq, read_sgf
from arbiter.server.store.base import GameRecord
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


def to_ms(record: GameRecord | None) -> GameRecord:
    """The record as files hold it: times to the millisecond (the store keeps the clock's digits)."""
    assert record is not None
    start = dataclasses.replace(record.start, started=round(record.start.started * 1000) / 1000)
    ended = None if record.ended is None else round(record.ended * 1000) / 1000
    return dataclasses.replace(record, start=start, ended=ended)


def arbiter(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def http_get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


async def play_three(server: RunningServer) -> dict[str, str]:
    """A won tic-tac-toe game, a gomoku game resigned after three moves, a resigned paper-soccer game."""
    alice, bob = await Client.connect(server.url), await Client.connect(server.url)
    ids = {}
    ids["tictactoe"] = await start_match(alice, bob)
    for ply, move in enumerate(FIRST_WINS):
        assert (await play_move(alice if ply % 2 == 0 else bob, ids["tictactoe"], ply, move))["type"] == "moved"
    ids["gomoku"] = await start_match(alice, bob, "gomoku")
    for ply, move in enumerate([[7, 7], [8, 8], [7, 8]]):
        assert (await play_move(alice if ply % 2 == 0 else bob, ids["gomoku"], ply, move))["type"] == "moved"
    assert (await bob.request("resign", match=ids["gomoku"]))["type"] == "ok"
    ids["paper_soccer"] = await start_match(alice, bob, "paper_soccer")
    assert (await alice.request("resign", match=ids["paper_soccer"]))["type"] == "ok"
    for match in ids.values():
        await alice.expect("end", match=match)
    await alice.close()
    await bob.close()
    return ids


@pytest.fixture
async def stored(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, GameRecord]]:
    db = tmp_path / "a.db"
    async with run_server(ServerConfig(port=0), SqliteStore(db)) as server:
        ids = await play_three(server)
        await server.hub.store.flush()
        records = {name: to_ms(await server.hub.store.get_game(match)) for name, match in ids.items()}
    return db, ids, records


def test_cli_exports_sgf_and_psq_that_read_back_as_stored(stored, tmp_path: Path) -> None:
    db, ids, records = stored
    sgf = arbiter("export", "--format", "sgf", "--db", str(db))
    assert sgf.exit_code == 1  # paper soccer has no SGF board: skipped, and said
    assert f"skipped {ids['paper_soccer']}: paper_soccer is not an m,n,k game" in sgf.stderr
    assert read_sgf(sgf.stdout) == [records["tictactoe"], records["gomoku"]]
    assert records["gomoku"].reason == "resign" and "RE[B+R]" in sgf.stdout  # the second player resigned

    crowded = arbiter("export", "--format", "psq", "--game", "gomoku", "--player", "x", "--db", str(db))
    assert crowded.exit_code == 2 and "unknown player 'x'" in crowded.stderr
    several = arbiter("export", "--format", "psq", "--db", str(db))
    assert several.exit_code == 2 and "a .psq file holds one game, and 3 match: give -o FOLDER" in several.stderr
    one = arbiter("export", "--format", "psq", "--match", ids["tictactoe"], "--db", str(db))
    assert one.exit_code == 0 and one.stdout.startswith("Piskvorky 3x3, 2:2, 0\n1,1,")
    assert read_psq(one.stdout) == [records["tictactoe"]]

    folder = tmp_path / "psq"
    into = arbiter("export", "--format", "psq", "-o", str(folder), "--db", str(db))
    assert into.exit_code == 1 and "wrote 2 games" in into.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{ids[g]}.psq" for g in ("tictactoe", "gomoku"))
    assert read_psq((folder / f"{ids['gomoku']}.psq").read_text()) == [records["gomoku"]]
    missing = arbiter("export", "--format", "psq", "--match", "nope", "--db", str(db))
    assert missing.exit_code == 2 and "no game 'nope'" in missing.stderr


async def test_http_export_takes_the_same_formats(tmp_path: Path) -> None:
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "a.db")) as server:
        ids = await play_three(server)
        await server.hub.store.flush()
        base = server.http_url
        status, kind, body = await asyncio.to_thread(http_get, f"{base}/export?format=sgf&game=gomoku")
        assert status == 200 and kind.startswith("application/x-go-sgf")
        assert read_sgf(body) == [to_ms(await server.hub.store.get_game(ids["gomoku"]))]
        status, kind, body = await asyncio.to_thread(http_get, f"{base}/export?format=psq&match={ids['tictactoe']}")
        assert status == 200 and read_psq(body) == [to_ms(await server.hub.store.get_game(ids["tictactoe"]))]
        for path, expected in [("/export?format=psq", 400), ("/export?format=pgn", 400),
                               (f"/export?format=psq&match={ids['paper_soccer']}", 422),
                               ("/export?format=psq&match=nope", 404)]:  # fmt: skip
            assert (await asyncio.to_thread(http_get, base + path))[0] == expected, path


def test_exported_files_import_into_another_database_and_again_changes_nothing(stored, tmp_path: Path) -> None:
    db, ids, records = stored
    arbiter("export", "--format", "sgf", "-o", str(tmp_path / "all.sgf"), "--db", str(db))
    arbiter("export", "--format", "psq", "--match", ids["tictactoe"], "-o", str(tmp_path / "one.psq"), "--db", str(db))
    cup = tmp_path / "cup-final.psq"  # a Gomocup file: its name is its match id
    cup.write_text("Piskvorky 15x15, 8:8, 0\n8,8,100\n9,9,100\n8,9,100\npbrain-a\npbrain-b\n-1\n")
    other = tmp_path / "other.db"
    first = arbiter("import", str(tmp_path / "all.sgf"), str(tmp_path / "one.psq"), str(cup), "--db", str(other))
    assert first.exit_code == 0, first.output
    assert "imported 3 games" in first.stderr and "(1 already stored, skipped)" in first.stderr  # one.psq is in all.sgf
    again = arbiter("import", str(tmp_path / "all.sgf"), "--db", str(other))
    assert "imported 0 games" in again.stderr and "(2 already stored, skipped)" in again.stderr

    async def read() -> dict[str, GameRecord | None]:
        store = SqliteStore(other)
        await store.open()
        try:
            return {match: await store.get_game(match) for match in (ids["tictactoe"], ids["gomoku"], "cup-final")}
        finally:
            await store.close()

    imported = asyncio.run(read())
    for name in ("tictactoe", "gomoku"):
        expected = dataclasses.replace(records[name], start=dataclasses.replace(records[name].start, rated=False))
        assert imported[ids[name]] == expected
    cup_game = imported["cup-final"]
    assert cup_game is not None and cup_game.start.game == "gomoku" and len(cup_game.moves) == 3
    assert (cup_game.result, cup_game.reason) == (None, "unfinished")
    broken = tmp_path / "broken.psq"
    broken.write_text("Piskvorky 15x15, 8:8, 0\n8,8,0\n8,8,0\n")
    refused = arbiter("import", str(broken), "--db", str(other))
    assert refused.exit_code == 2 and "broken.psq: line 3: move 2" in refused.stderr


@pytest.fixture
async def five_stored(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, GameRecord]]:
    """A renju and an exact-five caro game, each resigned by the second player after three moves."""
    db = tmp_path / "a.db"
    async with run_server(ServerConfig(port=0), SqliteStore(db)) as server:
        alice, bob = await Client.connect(server.url), await Client.connect(server.url)
        ids = {}
        for game, params in (("renju", None), ("caro", {"exact": True})):
            ids[game] = await start_match(alice, bob, game, params=params)
            for ply, move in enumerate([[7, 7], [8, 8], [7, 8]]):
                assert (await play_move(alice if ply % 2 == 0 else bob, ids[game], ply, move))["type"] == "moved"
            assert (await bob.request("resign", match=ids[game]))["type"] == "ok"
            await alice.expect("end", match=ids[game])
        await alice.close()
        await bob.close()
        await server.hub.store.flush()
        records = {game: to_ms(await server.hub.store.get_game(match)) for game, match in ids.items()}
    return db, ids, records


def test_renju_and_caro_export_with_their_rule_and_import_as_the_same_games(five_stored, tmp_path: Path) -> None:
    db, ids, records = five_stored
    sgf = arbiter("export", "--format", "sgf", "-o", str(tmp_path / "all.sgf"), "--db", str(db))
    text = (tmp_path / "all.sgf").read_text()
    assert sgf.exit_code == 0 and "RU[Renju]" in text and "RU[Standard Caro]" in text
    psq = arbiter("export", "--format", "psq", "--match", ids["renju"], "-o", str(tmp_path / "r.psq"), "--db", str(db))
    assert psq.exit_code == 0 and read_psq((tmp_path / "r.psq").read_text()) == [records["renju"]]
    other = tmp_path / "other.db"
    assert arbiter("import", str(tmp_path / "all.sgf"), "--db", str(other)).exit_code == 0

    async def read() -> list[GameRecord | None]:
        store = SqliteStore(other)
        await store.open()
        try:
            return [await store.get_game(match) for match in ids.values()]
        finally:
            await store.close()

    for record, stored in zip(records.values(), asyncio.run(read()), strict=True):
        assert stored == dataclasses.replace(record, start=dataclasses.replace(record.start, rated=False))

    # A Gomocup renju file names no rule (Piskvork writes none): --rule says it, and black's
    # double-three (h8 after g8, i8, h7, h9) is refused as the illegal move it is there.
    cup = tmp_path / "cup-renju.psq"
    cup.write_text("Piskvorky 15x15, 11:11, 0\n7,8,0\n1,1,0\n9,8,0\n1,15,0\n8,7,0\n15,1,0\n8,9,0\n15,15,0\n8,8,0\n"
                   "pbrain-a\npbrain-b\n-1\n")  # fmt: skip
    assert arbiter("import", str(cup), "--db", str(tmp_path / "free.db")).exit_code == 0  # free style: a legal move
    refused = arbiter("import", str(cup), "--rule", "renju", "--db", str(other))
    assert refused.exit_code == 2 and "line 10: move 9: h8 is forbidden for black (double-three)" in refused.stderr
    bogus = arbiter("import", str(cup), "--rule", "go", "--db", str(other))
    assert bogus.exit_code == 2 and "--rule: 'go' is not a rule of five in a row" in bogus.stderr
