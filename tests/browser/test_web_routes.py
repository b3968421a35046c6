"""The browser client's HTTP side on a real server: the page, its modules and the msgpack library
with the right types and caching, exact paths only, a clear page when the library is missing, and
finished games as JSON for replays (with their errors)."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.net.http import SECURITY_HEADERS
from arbiter.server.store.base import GameStart, MoveRecord
from arbiter.server.store.memory import MemoryStore
from arbiter.server.web_routes import WEB_ROOT, WebClient


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0, warm_engine=False), MemoryStore()) as running:
        yield running


async def get(server: RunningServer, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict, bytes]:
    def fetch() -> tuple[int, dict, bytes]:
        request = urllib.request.Request(server.http_url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    return await asyncio.to_thread(fetch)


async def test_the_page_its_modules_and_the_library_are_served(server: RunningServer) -> None:
    status, headers, body = await get(server, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b'<script type="module" src="/js/app.js">' in body  # which imports the library by its path:
    assert b'from "/vendor/msgpack/index.mjs"' in (WEB_ROOT / "js" / "connection.js").read_bytes()
    modules = sorted(f"/js/{p.name}" for p in (WEB_ROOT / "js").glob("*.js"))
    assert "/js/app.js" in modules and "/js/soccer_rules.js" in modules
    for path in [*modules, "/vendor/msgpack/index.mjs"]:
        status, headers, _ = await get(server, path)
        assert status == 200, path
        assert headers["Content-Type"].startswith("text/javascript"), path
        assert headers["X-Content-Type-Options"] == "nosniff"
    status, headers, _ = await get(server, "/css/style.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css")


async def test_every_response_carries_the_security_headers(server: RunningServer) -> None:
    paths = ["/", "/js/app.js", "/favicon.svg", "/healthz", "/metrics", "/account.json", "/account/signin",
             "/games.json?limit=many", "/game.json?match=nope", "/nothing"]  # fmt: skip
    seen = set()
    for path in paths:
        status, headers, _ = await get(server, path)
        seen.add(status)
        for name, value in SECURITY_HEADERS.items():
            assert headers.get(name) == value, (path, name)
    assert seen == {200, 400, 404, 405}
    # A websocket handshake the websocket layer refuses (no key) carries them too.
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(b"GET / HTTP/1.1\r\nHost: arbiter\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).decode()
    writer.close()
    assert head.startswith("HTTP/1.1 400") and "Content-Security-Policy: default-src 'self'" in head
    assert "frame-ancestors 'none'" in SECURITY_HEADERS["Content-Security-Policy"]
    # The page has nothing inline that the policy would block.
    page = (WEB_ROOT / "index.html").read_text()
    assert "<style" not in page and " style=" not in page
    assert all(" src=" in tag for tag in re.findall(r"<script[^>]*>", page))


async def test_an_unchanged_file_is_not_sent_again(server: RunningServer) -> None:
    _, headers, _ = await get(server, "/js/match.js")
    status, _, body = await get(server, "/js/match.js", {"If-None-Match": headers["ETag"]})
    assert status == 304 and body == b""


async def test_only_the_client_s_own_paths_are_served(server: RunningServer) -> None:
    for path in ("/js/../../server/app.py", "/js/nothing.js", "/vendor/msgpack/../package.json", "/web/index.html"):
        status, _, _ = await get(server, path)
        assert status == 404, path


async def test_a_missing_library_gets_a_page_saying_how_to_install_it(server: RunningServer, tmp_path: Path) -> None:
    client = WebClient(server.hub.store, node_modules=[tmp_path / "node_modules"])
    assert client.library is None
    client.add_routes(server.routes)  # as a server started without `npm ci` would have
    status, headers, body = await get(server, "/")
    assert status == 503 and headers["Content-Type"].startswith("text/html")
    assert b"npm ci" in body and str(tmp_path).encode() in body
    assert b"<style" not in body and b"<script" not in body  # nothing the Content-Security-Policy blocks
    status, _, _ = await get(server, "/vendor/msgpack/index.mjs")
    assert status == 503


async def test_missing_client_files_do_not_stop_the_server(server: RunningServer, tmp_path: Path) -> None:
    WebClient(server.hub.store, web_root=tmp_path / "web").add_routes(server.routes)
    status, _, body = await get(server, "/")
    assert status == 503 and b"no client files" in body
    status, _, body = await get(server, "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok"


async def test_finished_games_are_listed_and_served_with_their_moves(server: RunningServer) -> None:
    store = server.hub.store
    clock = {"initial_ms": 60_000, "increment_ms": 0, "move_limit_ms": None}
    params = {"m": 3, "n": 3, "k": 3, "exact": False}
    for match_id in ("done", "live"):
        await store.start_game(GameStart(match_id, "tictactoe", params, ("ann", "bob"), clock, False, time.time()))
        for ply, cell in enumerate(([1, 1], [0, 0], [2, 2])):
            store.record_move(match_id, MoveRecord(ply, cell, 10 * ply))
    await store.finish_game("done", "1-0", "resign", time.time())

    status, _, body = await get(server, "/games.json?game=tictactoe")
    assert status == 200
    games = json.loads(body)["games"]
    assert [g["match"] for g in games] == ["done"]  # the live game is not replayable yet
    assert games[0]["players"] == ["ann", "bob"] and games[0]["plies"] == 3 and games[0]["reason"] == "resign"

    status, _, body = await get(server, "/game.json?match=done")
    game = json.loads(body)
    assert status == 200 and game["result"] == "1-0" and game["params"] == params
    assert [m["move"] for m in game["moves"]] == [[1, 1], [0, 0], [2, 2]]
    assert [m["elapsed_ms"] for m in game["moves"]] == [0, 10, 20]

    for path, code in (("/game.json", 400), ("/game.json?match=nope", 404), ("/game.json?match=live", 409),
                       ("/games.json?limit=many", 400)):  # fmt: skip
        status, _, body = await get(server, path)
        assert status == code, path
        assert json.loads(body)["error"]
