"""The backup and restore commands of docs/DEPLOY.md, run as written there against a live server.

Each store's section has one ``sh`` block: the lines before its ``# restore`` comment run while the
server plays (one game finished, one in progress), the lines after it once the server is stopped.
The example paths and URLs are replaced by the test's own; anything left of them fails the test, so
the doc and the test cannot drift apart.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.serve_process import opened, serving
from tests.support.store_check import assert_store_clean
from tests.support.wsclient import Client, play_move, start_match

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "DEPLOY.md"
FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]
EXAMPLE_DATE = "2026-11-25"


def section_commands(heading: str, replacements: dict[str, str]) -> tuple[list[str], list[str]]:
    """The ``sh`` block under ``## heading``: its commands before ``# restore`` and after, made the test's own."""
    text = DEPLOY.read_text()
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"docs/DEPLOY.md: no sh block under ## {heading}"
    script = block.group(1).replace("$(date +%F)", EXAMPLE_DATE)
    for example, ours in replacements.items():
        script = script.replace(example, ours)
    assert not re.search(r"/var/lib|/backups/|example|SECRET", script), script
    before, after = script.split("# restore", 1)
    return before.strip().splitlines(), after.split("\n", 1)[1].strip().splitlines()


def run(commands: list[str]) -> None:
    """Each command in bash, with this venv's ``arbiter`` first on PATH; each must succeed."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    for command in commands:
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env={**os.environ, "PATH": path})
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"


async def stored_plies(db: str, match: str) -> int:
    async with opened(db) as store:
        game = await store.get_game(match)
        return 0 if game is None else len(game.moves)


async def backup_and_restore(db: str, heading: str, replacements: dict[str, str]) -> None:
    """Register two bots, play while backing up, play on, stop, restore: the store is the backup's, and clean."""
    backup, restore = section_commands(heading, replacements)
    async with opened(db) as setup:
        tokens = [await setup.add_player(name, "bot") for name in ("alpha", "beta")]
    async with serving(db, "--no-warm", "--drain-timeout", "0") as url:
        alpha, beta = [await Client.connect(url, token=token) for token in tokens]
        finished = await start_match(alpha, beta, rated=True)
        for ply, move in enumerate(FIRST_WINS):
            await play_move((alpha, beta)[ply % 2], finished, ply, move)
        await alpha.expect("end", match=finished)
        live = await start_match(beta, alpha, rated=True)
        for ply, move in enumerate(FIRST_WINS[:3]):
            await play_move((beta, alpha)[ply % 2], live, ply, move)
        async with asyncio.timeout(10):  # the server writes moves in batches
            while await stored_plies(db, live) < 3:
                await asyncio.sleep(0.05)
        await asyncio.to_thread(run, backup)  # while the server plays
        after = await start_match(alpha, beta, rated=True)  # in the store, not in the backup
        for ply, move in enumerate(FIRST_WINS):
            await play_move((alpha, beta)[ply % 2], after, ply, move)
        await alpha.expect("end", match=after)
    await asyncio.to_thread(run, restore)
    await asyncio.to_thread(assert_store_clean, db)

    async with serving(db, "--no-warm") as url:  # the restart rule settles the game live in the backup
        alpha = await Client.connect(url, token=tokens[0])
        board = await alpha.request("leaderboard", game="tictactoe")
        assert {(r["player"], r["games"]) for r in board["ratings"]} == {("alpha", 1), ("beta", 1)}, board
    async with opened(db) as store:
        assert (await store.get_game(finished)).result == "1-0"  # type: ignore[union-attr]
        assert await store.get_game(after) is None
        settled = await store.get_game(live)
        assert settled is not None and settled.ended is not None and len(settled.moves) == 3
    await asyncio.to_thread(assert_store_clean, db)


async def test_sqlite_backup_and_restore_as_documented(tmp_path: Path) -> None:
    (tmp_path / "saved").mkdir()
    db = tmp_path / "arbiter.db"
    await backup_and_restore(
        str(db), "Backups (SQLite)", {"/var/lib/arbiter/arbiter.db": str(db), "/backups/": f"{tmp_path}/saved/"}
    )


async def test_postgresql_backup_and_restore_as_documented(tmp_path: Path, postgres_url: str) -> None:
    (tmp_path / "saved").mkdir()
    await backup_and_restore(
        postgres_url,
        "Backups (PostgreSQL)",
        {"postgresql://arbiter:SECRET@db.example/arbiter": postgres_url, "/backups/": f"{tmp_path}/saved/"},
    )
