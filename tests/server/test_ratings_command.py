"""``arbiter ratings GAME``: the BayesElo fit over the rated games a real server stored."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path

from click.testing import CliRunner

from arbiter.cli import main
from arbiter.server import ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


async def test_ratings_rank_the_players_by_their_rated_results(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    setup = SqliteStore(db)
    await setup.open()
    tokens = {name: await setup.add_player(name, "bot") for name in ("ace", "mid", "low")}
    await setup.close()
    async with run_server(ServerConfig(port=0), SqliteStore(db)) as server:
        clients = {name: await Client.connect(server.url, token=token) for name, token in tokens.items()}
        # ace beats both as first player and as second (mid and low resign); mid beats low.
        for winner, loser, games in (("ace", "mid", 3), ("ace", "low", 3), ("mid", "low", 3)):
            for i in range(games):
                first, second = (clients[winner], clients[loser]) if i % 2 == 0 else (clients[loser], clients[winner])
                match = await start_match(first, second, rated=True)
                if first is clients[winner]:
                    for ply, move in enumerate(FIRST_WINS):
                        assert (await play_move(first if ply % 2 == 0 else second, match, ply, move))["type"] == "moved"
                else:
                    assert (await first.request("resign", match=match))["type"] == "ok"
                await first.expect("end", match=match)
        for client in clients.values():
            await client.close()
        page = await asyncio.to_thread(urllib.request.urlopen, f"{server.http_url}/leaderboard?game=tictactoe")
        body = page.read().decode()
        assert "<h2>BayesElo</h2>" in body and body.index("1. ace") < body.index("2. mid") < body.index("3. low")
    result = await asyncio.to_thread(CliRunner().invoke, main, ["ratings", "tictactoe", "--db", str(db)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "tictactoe/bullet:"  # pool by pool
    assert [line.split()[1] for line in lines[2:5]] == ["ace", "mid", "low"]
    assert lines[-1].startswith("first move:") and "(9 games)" in lines[-1]
    unknown = await asyncio.to_thread(CliRunner().invoke, main, ["ratings", "chess", "--db", str(db)])
    assert unknown.exit_code == 2 and "unknown game 'chess'" in unknown.stderr
    empty = await asyncio.to_thread(CliRunner().invoke, main, ["ratings", "gomoku", "--db", str(db)])
    assert empty.exit_code == 0 and "no rated games of 'gomoku' yet" in empty.stderr
