"""Failure reports over real sockets: a bot that loses on time and one whose illegal move is
refused appear on their reports, at the right ply, in ``/player.json`` and in ``arbiter report``."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from arbiter.cli import main
from arbiter.server import ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match


def http_get(url: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body, without following redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


async def report_json(base: str, query: str) -> tuple[int, Any]:
    status, _, body = await asyncio.to_thread(http_get, f"{base}/player.json?{query}")
    return status, json.loads(body)


async def arbiter(*args: str) -> Any:
    return await asyncio.to_thread(CliRunner().invoke, main, list(args))


async def play_failures(db: Path) -> dict[str, str]:
    """Two rated games on a real server: ``flagger`` loses on time at ply 1; ``blunder`` has an
    illegal and a malformed move refused at ply 2, then plays on and wins. Their match ids."""
    setup = SqliteStore(db)
    await setup.open()
    tokens = {name: await setup.add_player(name, "bot") for name in ("steady", "flagger", "blunder")}
    await setup.close()
    async with run_server(ServerConfig(port=0), SqliteStore(db)) as server:
        steady, flagger, blunder = [await Client.connect(server.url, token=tokens[n]) for n in tokens]
        timed = await start_match(steady, flagger, clock={"initial_ms": 300}, rated=True)
        assert (await play_move(steady, timed, 0, [1, 1]))["type"] == "moved"
        end = await steady.expect("end", match=timed)
        assert (end["result"], end["reason"]) == ("1-0", "timeout")

        refused = await start_match(blunder, steady, rated=True)
        assert (await play_move(blunder, refused, 0, [1, 1]))["type"] == "moved"
        assert (await play_move(steady, refused, 1, [0, 0]))["type"] == "moved"
        assert (await play_move(blunder, refused, 2, [0, 0]))["code"] == "illegal_move"
        assert (await play_move(blunder, refused, 2, [9, 9]))["code"] == "bad_move"
        assert (await play_move(blunder, refused, 2, [0, 1]))["type"] == "moved"
        assert (await steady.request("resign", match=refused))["type"] == "ok"
        await blunder.expect("end", match=refused)
        for client in (steady, flagger, blunder):
            await client.close()
    return {"timed": timed, "refused": refused}


async def test_failures_appear_in_the_json_route_and_in_arbiter_report(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    ids = await play_failures(db)
    async with run_server(ServerConfig(port=0), SqliteStore(db)) as server:
        base = server.http_url

        status, flagger = await report_json(base, "name=flagger")
        assert status == 200 and flagger["player"] == {**flagger["player"], "name": "flagger", "kind": "bot"}
        assert flagger["failures"]["counts"] == {
            "lost": 1, "timeout": 1, "abandoned": 0, "refused_moves": 0, "games_with_refused_moves": 0, "resigned": {},
        }  # fmt: skip
        (failure,) = flagger["failures"]["games"]
        assert (failure["match"], failure["reason"], failure["outcome"], failure["ply"]) == (
            ids["timed"], "timeout", "loss", 1,
        )  # fmt: skip
        assert failure["replay"] == f"/#/replay/{ids['timed']}/1"
        (rating,) = flagger["ratings"]
        assert rating["pool"] == "tictactoe/bullet" and rating["losses"] == 1 and len(rating["history"]) == 1
        assert rating["history"][0]["rating"] == rating["rating"] < 1500

        status, blunder = await report_json(base, "name=BLUNDER")  # names are case-insensitive
        assert status == 200 and blunder["player"]["name"] == "blunder"
        assert blunder["failures"]["counts"]["refused_moves"] == 2
        assert blunder["failures"]["counts"]["lost"] == 0
        (failure,) = blunder["failures"]["games"]
        assert (failure["match"], failure["outcome"], failure["ply"]) == (ids["refused"], "win", 2)
        assert [(r["ply"], r["move"], r["code"], r["replay"]) for r in failure["refusals"]] == [
            (2, "[0,0]", "illegal_move", f"/#/replay/{ids['refused']}/2"),
            (2, "[9,9]", "bad_move", f"/#/replay/{ids['refused']}/2"),
        ]
        position = failure["refusals"][0]["position"]
        assert position.count("X") == 1 and position.count("O") == 1  # the board after two moves
        thinking = blunder["thinking"]
        assert thinking["match"] == ids["refused"] and [m["ply"] for m in thinking["moves"]] == [0, 2]
        first, second = thinking["moves"]
        assert first["clock_ms"] == 60_000 - first["elapsed_ms"]
        assert second["clock_ms"] == first["clock_ms"] - second["elapsed_ms"]
        # The steady opponent's record shows none of blunder's refusals as its own.
        status, steady = await report_json(base, "name=steady")
        assert steady["failures"]["counts"]["refused_moves"] == 0 and steady["failures"]["counts"]["lost"] == 1

        status, missing = await report_json(base, "name=nobody")
        assert status == 404 and missing == {"error": "no player named 'nobody'"}
        assert (await report_json(base, "name=blunder&games=0"))[0] == 400
        assert (await report_json(base, "name=blunder&match=nope"))[0] == 404
        status, headers, _ = await asyncio.to_thread(http_get, f"{base}/player/blunder")
        assert status == 302 and headers["Location"] == "/#/player/blunder"

    printed = await arbiter("report", "blunder", "--db", str(db))
    assert printed.exit_code == 0, printed.output
    assert f"refused at ply 2: [0,0] (illegal_move)  /#/replay/{ids['refused']}/2" in printed.stdout
    assert "2 refused moves in 1 games" in printed.stdout
    assert f"Thinking times in {ids['refused']} vs steady" in printed.stdout
    printed = await arbiter("report", "flagger", "--db", str(db))
    assert printed.exit_code == 0, printed.output
    assert "1 lost (1 on time)" in printed.stdout
    assert f"tictactoe vs steady: loss (timeout, 1 plies)  at ply 1: /#/replay/{ids['timed']}/1" in printed.stdout
    assert "tictactoe/bullet" in printed.stdout
    unknown = await arbiter("report", "nobody", "--db", str(db))
    assert unknown.exit_code == 1 and "no player named 'nobody'" in unknown.stderr
    assert (await arbiter("report", "blunder", "--games", "0", "--db", str(db))).exit_code == 2
    assert (await arbiter("report", "--db", str(db))).exit_code == 2


async def test_a_resignation_s_cause_is_reported_and_its_turn_downloads_as_a_request_file(tmp_path: Path) -> None:
    """``crasher`` resigns at ply 2 with the cause its engine gave (``resign.cause``): the report
    names the cause, and ``/request.json`` rebuilds that turn (both clocks with their increments,
    the opponent's ``moved``); a ply outside the game, an unknown match and a missing ply are refused."""
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "a.db")) as server:
        store, base = server.hub.store, server.http_url
        crasher = await Client.connect(server.url, token=await store.add_player("crasher", "bot"))
        steady = await Client.connect(server.url, token=await store.add_player("steady", "bot"))
        try:
            clock = {"initial_ms": 60_000, "increment_ms": 500}
            match = await start_match(crasher, steady, clock=clock)
            assert (await play_move(crasher, match, 0, [1, 1]))["type"] == "moved"
            assert (await play_move(steady, match, 1, [0, 0]))["type"] == "moved"
            assert (await crasher.request("resign", match=match, cause="crash"))["type"] == "ok"
            await steady.expect("end", match=match)
        finally:
            await crasher.close()
            await steady.close()
        status, report = await report_json(base, "name=crasher")
        (failure,) = report["failures"]["games"]
        assert status == 200 and report["failures"]["counts"]["resigned"] == {"crash": 1}
        assert (failure["cause"], failure["ply"], failure["refusals"]) == ("crash", 2, [])
        assert report["failures"]["counts"]["refused_moves"] == 0  # a resignation is no refused move
        status, headers, body = await asyncio.to_thread(http_get, base + failure["request"])
        assert (
            status == 200 and headers["Content-Disposition"] == f'attachment; filename="arbiter-request-{match}-2.json"'
        )
        request = json.loads(body)
        record = await store.get_game(match)
        assert record is not None
        elapsed = [m.elapsed_ms for m in record.moves]
        assert (request["arbiter_request"], request["player"], request["color"], request["ply"]) == (1, "crasher", 0, 2)
        assert request["moves"] == [[1, 1], [0, 0]] and request["clock"]["increment_ms"] == 500
        assert request["clocks"] == [60_500 - elapsed[0], 60_500 - elapsed[1]]
        (moved,) = request["received"]
        assert (moved["type"], moved["ply"], moved["by"], moved["clocks"]) == ("moved", 1, 1, request["clocks"])
        assert request["failures"] == [{"move": "null", "code": "resign:crash"}] and request["reason"] == "resign"
        status, _, body = await asyncio.to_thread(http_get, f"{base}/request.json?match={match}&ply=0")
        assert status == 200 and json.loads(body)["received"][0]["type"] == "match_start"
        for query, code in [(f"match={match}&ply=3", 400), (f"match={match}&ply=x", 400), (f"match={match}", 400),
                            ("match=nothere&ply=0", 404)]:  # fmt: skip
            status, _, body = await asyncio.to_thread(http_get, f"{base}/request.json?{query}")
            assert status == code and "error" in json.loads(body), query
