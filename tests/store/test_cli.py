"""``arbiter player``, ``arbiter export`` and ``arbiter leaderboard`` on a real database file."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from store_helpers import play

from arbiter.cli import main
from arbiter.server.results.records import parse_records
from arbiter.server.store.sqlite import SqliteStore


def arbiter(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def test_player_add_list_revoke(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    added = arbiter("player", "add", "alice", "--kind", "bot", "--db", db)
    assert added.exit_code == 0, added.output
    token = added.stdout.strip()
    assert token.startswith("arb_") and "shown once" in added.stderr
    assert arbiter("player", "add", "bob", "--kind", "human", "--db", db).exit_code == 0

    async def logged_in_as() -> str | None:
        store = SqliteStore(db)
        await store.open()
        try:
            found = await store.authenticate(token)
            return found.name if found else None
        finally:
            await store.close()

    assert asyncio.run(logged_in_as()) == "alice"
    listed = arbiter("player", "list", "--db", db)
    assert listed.exit_code == 0
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert [(r[0], r[1], r[-1]) for r in rows[1:]] == [("alice", "bot", "active"), ("bob", "human", "active")]
    assert token not in listed.stdout

    assert arbiter("player", "revoke", "alice", "--db", db).exit_code == 0
    assert asyncio.run(logged_in_as()) is None
    assert "revoked (operator)" in arbiter("player", "list", "--db", db).stdout
    # A new token does not lift the operator's revocation (an owner's browser issues one the same way).
    issued = arbiter("player", "token", "alice", "--db", db)
    assert issued.exit_code == 0 and "stays revoked until `arbiter player reinstate alice`" in issued.stderr
    token = issued.stdout.strip()
    assert asyncio.run(logged_in_as()) is None
    reinstated = arbiter("player", "reinstate", "alice", "--db", db)
    assert reinstated.exit_code == 0, reinstated.output
    assert asyncio.run(logged_in_as()) == "alice"
    assert arbiter("player", "reinstate", "nobody", "--db", db).exit_code == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["player", "add", "alice", "--kind", "bot"], "a player named 'alice' already exists"),
        (["player", "add", "ALICE", "--kind", "human"], "already exists"),
        (["player", "add", "guest-42", "--kind", "human"], "reserved for guests"),
        (["player", "add", "bad name", "--kind", "bot"], "a player name is letters"),
        (["player", "revoke", "nobody"], "no player named 'nobody'"),
        (["export", "--player", "nobody"], "unknown player 'nobody'"),
        (["export", "--game", "chess"], "unknown game 'chess'"),
        (["leaderboard", "gomoku", "--db", "/nonexistent/a.db"], "no database at /nonexistent/a.db"),
        (["player", "add", "carol", "--kind", "bot", "--db", "/nonexistent/a.db"], "cannot open /nonexistent/a.db"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    db = str(tmp_path / "a.db")
    assert arbiter("player", "add", "alice", "--kind", "bot", "--db", db).exit_code == 0
    result = arbiter(*args, *([] if "--db" in args else ["--db", db]))
    assert result.exit_code == 2
    assert result.stderr.startswith("arbiter: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and not result.stdout


def test_kind_is_required_and_checked(tmp_path: Path) -> None:
    assert arbiter("player", "add", "x", "--db", str(tmp_path / "a.db")).exit_code == 2
    assert arbiter("player", "add", "x", "--kind", "robot", "--db", str(tmp_path / "a.db")).exit_code == 2


def test_database_from_environment(tmp_path: Path) -> None:
    env = {"ARBITER_DB": str(tmp_path / "env.db")}
    assert arbiter("player", "add", "alice", "--kind", "bot", env=env).exit_code == 0
    assert (tmp_path / "env.db").exists()
    assert "alice" in arbiter("player", "list", env=env).stdout


def test_a_corrupted_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    db.write_bytes(os.urandom(4096))
    result = arbiter("player", "list", "--db", str(db))
    assert result.exit_code == 2 and "is not an Arbiter database or is corrupted" in result.stderr


def test_export_and_leaderboard(tmp_path: Path) -> None:
    db = tmp_path / "a.db"

    async def fill() -> None:
        store = SqliteStore(db)
        await store.open()
        for name in ["alice", "bob"]:
            await store.add_player(name, "bot")
        moves = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]
        await play(store, "m1", moves, "1-0", "line", started=100.0)
        await play(store, "m2", moves[:2], None, "abort", started=200.0, first="bob", second="guest-1")
        await play(store, "m3", moves, "1-0", "line", started=300.0, game="gomoku")
        await store.close()

    asyncio.run(fill())
    everything = arbiter("export", "--db", str(db))
    assert everything.exit_code == 0, everything.output
    games = parse_records(everything.stdout)
    assert [g.start.match_id for g in games] == ["m1", "m2", "m3"]
    assert games[0].rating_changes["alice"] > 0 and [m.move for m in games[0].moves][-1] == [0, 2]

    out = tmp_path / "bob.txt"
    to_file = arbiter("export", "--player", "bob", "--game", "tictactoe", "-o", str(out), "--db", str(db))
    assert to_file.exit_code == 0 and "wrote 2 games" in to_file.stderr
    assert [g.start.match_id for g in parse_records(out.read_text())] == ["m1", "m2"]

    board = arbiter("leaderboard", "tictactoe", "--db", str(db))
    assert board.exit_code == 0
    lines = board.stdout.splitlines()
    assert lines[0] == "tictactoe/bullet:"  # pool by pool; the only one with ratings
    assert lines[2].split()[:2] == ["1", "alice"] and lines[3].split()[:2] == ["2", "bob"]
    assert "?" in lines[2]  # one game: provisional
    assert arbiter("leaderboard", "tictactoe", "--pool", "gomoku/blitz", "--db", str(db)).exit_code == 2
    assert "no rated games" in arbiter("leaderboard", "paper_soccer", "--db", str(db)).stderr


def test_player_token_issues_a_new_token(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    first = arbiter("player", "add", "alice", "--kind", "bot", "--db", db).stdout.strip()
    second = arbiter("player", "token", "alice", "--db", db)
    assert second.exit_code == 0 and second.stdout.strip().startswith("arb_")
    assert second.stdout.strip() != first
    missing = arbiter("player", "token", "nobody", "--db", db)
    assert missing.exit_code == 2 and "no player named 'nobody'" in missing.stderr


def test_player_ensure_is_idempotent_and_repairs_a_lost_token(tmp_path: Path) -> None:
    db, token_file = str(tmp_path / "a.db"), tmp_path / "tokens" / "bot.token"
    first = arbiter("player", "ensure", "robo", "--kind", "bot", "--token-file", str(token_file), "--db", db)
    assert first.exit_code == 0, first.output
    token = token_file.read_text().strip()
    assert token.startswith("arb_") and oct(token_file.stat().st_mode & 0o777) == "0o600"
    again = arbiter("player", "ensure", "robo", "--kind", "bot", "--token-file", str(token_file), "--db", db)
    assert again.exit_code == 0 and token_file.read_text().strip() == token  # kept: it still logs in
    token_file.write_text("arb_stale.token\n")
    arbiter("player", "ensure", "robo", "--kind", "bot", "--token-file", str(token_file), "--db", db)
    repaired = token_file.read_text().strip()
    assert repaired not in (token, "arb_stale.token")
    clash = arbiter("player", "ensure", "robo", "--kind", "human", "--token-file", str(token_file), "--db", db)
    assert clash.exit_code == 2 and "registered as a bot" in clash.stderr
    assert arbiter("player", "revoke", "robo", "--db", db).exit_code == 0
    revoked = arbiter("player", "ensure", "robo", "--kind", "bot", "--token-file", str(token_file), "--db", db)
    assert revoked.exit_code == 2 and "arbiter player reinstate robo" in revoked.stderr  # not lifted behind its back
    assert token_file.read_text().strip() == repaired


def test_player_ensure_keeps_tokens_and_the_database_private(tmp_path: Path) -> None:
    """The token folder is made 0700 and the file 0600 from the start, whatever the umask, even
    over a leftover temporary file; the database (password and token hashes) is 0600."""
    db, token_file = tmp_path / "a.db", tmp_path / "tokens" / "bot.token"
    leftover = token_file.with_suffix(".token.tmp")
    previous = os.umask(0)
    try:
        assert arbiter("player", "ensure", "robo", "--kind", "bot", "--token-file", str(token_file),
                       "--db", str(db)).exit_code == 0  # fmt: skip
        leftover.write_text("junk")
        leftover.chmod(0o666)
        token_file.write_text("arb_stale.token\n")
        assert arbiter("player", "ensure", "robo", "--kind", "bot", "--token-file", str(token_file),
                       "--db", str(db)).exit_code == 0  # fmt: skip
    finally:
        os.umask(previous)
    modes = {path.name: oct(path.stat().st_mode & 0o777) for path in (token_file.parent, token_file, db)}
    assert modes == {"tokens": "0o700", "bot.token": "0o600", "a.db": "0o600"}
    assert not leftover.exists() and token_file.read_text().startswith("arb_")
