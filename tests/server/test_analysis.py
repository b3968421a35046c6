"""Analysis on the wire: a move's `info` reaches spectators at once and the opponent only after the
game, is stored with the move, and comes back in the game's record and every export format."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arbiter.server import ServerConfig, run_server
from arbiter.server.results.game_files import read_sgf, write_sgf
from arbiter.server.results.records import format_record, parse_records
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match

INFO = {"score": 35, "unit": "cp", "depth": 9, "nodes": 48211, "nps": 160703, "time_ms": 300, "pv": [[1, 0], [0, 1]]}
WIN = {"score": 3, "unit": "mate", "depth": 3, "pv": [[0, 2]]}


async def test_spectators_see_the_analysis_the_opponent_sees_it_after(tmp_path: Path) -> None:
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "a.db")) as server:
        alice, bob, watcher = [await Client.connect(server.url) for _ in range(3)]
        match = await start_match(alice, bob)
        await watcher.request("spectate", match=match)
        await alice.send({"type": "move", "match": match, "ply": 0, "move": [0, 0], "info": INFO})
        assert "info" not in (await bob.expect("moved", match=match, ply=0))  # not to the opponent
        assert (await watcher.expect("moved", match=match, ply=0))["info"] == INFO
        late = await Client.connect(server.url)
        state = await late.request("spectate", match=match)
        assert state["infos"] == [INFO]
        assert "infos" not in await bob.request("sync", match=match)  # a player's snapshot has none
        for ply, (move, info) in enumerate([([1, 0], None), ([0, 1], None), ([1, 1], None), ([0, 2], WIN)], 1):
            mover = alice if ply % 2 == 0 else bob
            fields = {"type": "move", "match": match, "ply": ply, "move": move, **({"info": info} if info else {})}
            await mover.send(fields)
            await watcher.expect("moved", match=match, ply=ply)
        await watcher.expect("end", match=match)
        await server.hub.store.flush()
        record = await server.hub.store.get_game(match)
        assert record is not None and [m.info for m in record.moves] == [INFO, None, None, None, WIN]
        assert parse_records(format_record(record))[0].moves == record.moves
        assert read_sgf(write_sgf([record]))[0].moves == record.moves
        url = f"{server.http_url}/game.json?match={match}"
        moves = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read()))["moves"]
        assert moves[0]["info"] == INFO and "info" not in moves[1]  # after the game, for anyone
        for client in (alice, bob, watcher, late):
            await client.close()


async def test_in_a_rated_match_spectators_get_the_analysis_plies_late(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    async with run_server(ServerConfig(port=0), store) as server:  # the default delay: 4 plies
        alice = await Client.connect(server.url, token=await store.add_player("alice", "bot"))
        bob = await Client.connect(server.url, token=await store.add_player("bob", "bot"))
        match = await start_match(alice, bob, "gomoku", rated=True)
        second_eye = await Client.connect(server.url)  # bob's own guest connection, watching
        await second_eye.request("spectate", match=match)
        infos = [{"score": ply, "unit": "cp", "pv": [[ply, 1]]} for ply in range(6)]
        seen = []
        for ply, info in enumerate(infos):
            await (alice if ply % 2 == 0 else bob).send(
                {"type": "move", "match": match, "ply": ply, "move": [ply, 0], "info": info}
            )
            moved = await second_eye.expect("moved", match=match, ply=ply)
            assert "info" not in moved
            seen.append(moved.get("analysis"))
        assert seen == [None] * 4 + [{"ply": 0, "info": infos[0]}, {"ply": 1, "info": infos[1]}]  # 4 plies late
        state = await second_eye.request("sync", match=match)
        assert state["infos"] == infos[:2]  # a snapshot holds the released ones only
        url = f"{server.http_url}/export?match={match}"
        status = await asyncio.to_thread(lambda: _status(url))
        assert status == 409  # and no export of the live game with its analysis
        for client in (alice, bob, second_eye):
            await client.close()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize(
    "info",
    [
        {},
        {"score": 10},  # a score without its unit
        {"score": 1, "unit": "elo"},
        {"depth": -1},
        {"nodes": 1.5},
        {"pv": [[0, 0]] * 65},
        {"pv": ["a1"]},
        {"eval": 3},
        {"score": float("nan"), "unit": "cp"},
        {"score": 1.5, "unit": "win"},  # a probability
        {"score": 2.5, "unit": "mate"},  # plies
        "deep",
    ],
)
async def test_bad_analysis_is_refused_and_the_move_not_played(info: object) -> None:
    async with run_server(ServerConfig(port=0)) as server:
        alice, bob = await Client.connect(server.url), await Client.connect(server.url)
        match = await start_match(alice, bob)
        reply = await alice.request("move", match=match, ply=0, move=[0, 0], info=info)
        assert reply["type"] == "error" and reply["code"] == "bad_field", reply
        assert server.hub.matches.live[match].match.moves == []
        assert (await play_move(alice, match, 0, [0, 0]))["type"] == "moved"  # and nothing else changed
        await asyncio.gather(alice.close(), bob.close())
