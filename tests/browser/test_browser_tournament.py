"""Tournaments in the browser and over HTTP: a round robin played over real sockets, then its page
in headless Chromium (standings, crosstable, BayesElo, the schedule with each game's replay link,
the archive links, no CSP violation), its JSON and archive; a signed-in person enters an open
tournament with one of its bots, and is refused another's bot, an invited field and a second entry."""

from __future__ import annotations

import asyncio
import io
import json
import urllib.request
import zipfile

import pytest
from browser_arena import Site, screenshot_path

from arbiter.server.tournaments import lifecycle
from arbiter.server.tournaments.spec import TournamentSpec
from tests.support.accounts import Browser
from tests.support.wsclient import Client, play_out

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLOCK = {"initial_ms": 30_000, "increment_ms": 0}


def get(site: Site, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(site.server.http_url + path, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


async def played_round_robin(site: Site) -> list[str]:
    """``cup``: a single round robin of two clients, played to the end. Its match ids."""
    tokens = {name: await site.store.add_player(name, "bot") for name in ("north", "south")}
    spec = TournamentSpec.check({"format": "round_robin", "game": "tictactoe", "clock": CLOCK, "double": True})
    await lifecycle.create(site.store, "cup", spec, list(tokens))
    clients = {name: await Client.connect(site.server.url, token=token) for name, token in tokens.items()}
    await lifecycle.start(site.store, "cup")
    site.server.hub.tournaments.kick()
    matches = []
    try:
        for seed in range(2):
            start = await clients["north"].expect("match_start", timeout=30)
            order = tuple(clients[p["name"]] for p in start["players"])
            await play_out(order, start["match"], "tictactoe", None, seed=seed)  # type: ignore[arg-type]
            matches.append(start["match"])
        await clients["north"].expect("tournament_games", state="finished", timeout=30)
    finally:
        for client in clients.values():
            await client.close()
    return matches


async def test_the_tournament_page_shows_its_standings_and_links_each_game(new_page, site: Site) -> None:
    matches = await played_round_robin(site)
    status, body = await asyncio.to_thread(get, site, "/tournament.json?name=cup")
    described = json.loads(body)
    assert status == 200 and described["state"] == "finished" and described["decided"] == 2
    assert sum(row["points"] for row in described["standings"]) == 2
    assert set(described["bayeselo"]) == {"north", "south"} and described["live"] == []
    status, archive = await asyncio.to_thread(get, site, "/tournament/archive.zip?name=cup")
    assert status == 200 and len(zipfile.ZipFile(io.BytesIO(archive)).namelist()) == 2
    status, sgf = await asyncio.to_thread(get, site, "/tournament/games.sgf?name=cup")
    assert status == 200 and sgf.count(b"(;") == 2
    assert (await asyncio.to_thread(get, site, "/tournament.json?name=nothing"))[0] == 404
    listed = json.loads((await asyncio.to_thread(get, site, "/tournaments.json"))[1])
    assert {"name": "cup", "state": "finished", "format": "round_robin", "game": "tictactoe"} in listed["tournaments"]

    page = await new_page()
    await page.goto(site.server.http_url + "/tournament?name=cup")
    assert await page.locator("#standings tr").count() == 3  # the heading and both players
    assert await page.locator("#crosstable tr").count() == 3 and await page.locator("#bayeselo tr").count() == 3
    assert (
        await page.get_by_role("link", name="psq archive").get_attribute("href") == "/tournament/archive.zip?name=cup"
    )
    links = page.locator("#schedule").get_by_role("link", name="replay")
    assert await links.count() == 2
    await page.screenshot(path=screenshot_path("tournament_page"), full_page=True)
    await links.first.click()
    await page.wait_for_selector("#replay-ply")
    assert page.url.endswith(f"#/replay/{matches[0]}") or page.url.endswith(f"#replay/{matches[0]}")


async def test_a_signed_in_person_enters_an_open_tournament_with_its_bot(site: Site) -> None:
    await site.store.add_player("rival", "bot")
    open_spec = TournamentSpec.check({"format": "round_robin", "game": "tictactoe", "entry": "open"})
    await lifecycle.create(site.store, "open-cup", open_spec, [])
    await lifecycle.create(
        site.store, "invited-cup", TournamentSpec.check({"format": "round_robin", "game": "tictactoe"}), []
    )
    person = Browser(site.server)
    assert (await person.sign_up("organiser", "correct horse battery"))[0] == 201
    status, made = await person.call("POST", "/account/bots/new?name=helper")
    assert status == 201, made

    assert (await person.call("POST", "/tournament/enter?name=open-cup&player=helper"))[0] == 200
    assert (await person.call("POST", "/tournament/enter?name=open-cup"))[0] == 200  # the person itself
    refusals = [
        ("/tournament/enter?name=open-cup&player=helper", 409, "entry_closed"),  # entered already
        ("/tournament/enter?name=open-cup&player=rival", 404, "not_yours"),
        ("/tournament/enter?name=invited-cup", 409, "entry_closed"),
        ("/tournament/enter?name=no-cup", 404, "not_yours"),
    ]
    for path, expected, code in refusals:
        status, body = await person.call("POST", path)
        assert (status, body["error"]["code"]) == (expected, code), (path, body)
    status, body = await person.call("POST", "/tournament/enter?name=open-cup&player=helper", csrf=False)
    assert status == 403 and body["error"]["code"] == "csrf"
    assert [e.name for e in await site.store.tournament_entries("open-cup")] == ["helper", "organiser"]
    assert await site.store.tournament_entries("invited-cup") == []
    signed_out = Browser(site.server)
    await signed_out.state()
    assert (await signed_out.call("POST", "/tournament/enter?name=open-cup"))[0] == 401
