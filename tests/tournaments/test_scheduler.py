"""The scheduler on a real server with clients that play by hand: a game starts when both players
are connected, an absent player forfeits after the grace, a withdrawn player's games are its
forfeits, each entrant hears of its coming games (``tournament_games``), and the tournament ends;
then ``arbiter tournament``'s refusals of bad input, which change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.cli import main
from arbiter.protocol.server_messages import read
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore
from arbiter.server.store.sqlite import SqliteStore
from arbiter.server.tournaments import lifecycle
from arbiter.server.tournaments.spec import SpecError, TournamentSpec
from tests.support.wsclient import Client, play_out

CLOCK = {"initial_ms": 20_000, "increment_ms": 0}


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0, tournament_interval_s=0.05), MemoryStore()) as running:
        yield running


async def test_absent_and_withdrawn_players_forfeit_and_the_present_ones_play(server: RunningServer) -> None:
    store = server.hub.store
    tokens = {name: await store.add_player(name, "bot") for name in ("ann", "bob", "cid", "dan")}
    spec = TournamentSpec.check({"format": "round_robin", "game": "tictactoe", "clock": CLOCK, "grace_s": 1.0,
                                 "concurrency": 1, "seed": 3})  # fmt: skip
    await lifecycle.create(store, "weekly", spec, list(tokens))
    ann, bob = [await Client.connect(server.url, token=tokens[name]) for name in ("ann", "bob")]
    await lifecycle.start(store, "weekly")
    await store.withdraw_from_tournament("weekly", "cid")  # within the grace: its games are withdrawn ones
    told = await ann.expect("tournament_games")
    read(told)  # the message is what the protocol says
    assert told["tournament"] == "weekly" and told["state"] == "running" and told["game"] == "tictactoe"
    assert sorted(g["opponent"] for g in told["games"]) == ["bob", "dan"]  # cid withdrew: its game is decided

    start = await ann.expect("match_start")
    black = ann if start["players"][0]["name"] == "ann" else bob
    white = bob if black is ann else ann
    assert start["rated"] and start["challenge"] is None and start["clock"]["initial_ms"] == CLOCK["initial_ms"]
    end = await play_out((black, white), start["match"], "tictactoe", None, seed=1)
    last = await ann.expect("tournament_games", state="finished", timeout=30)
    assert last["games"] == [] and (await store.get_tournament("weekly")).state == "finished"  # type: ignore[union-attr]

    games = {frozenset((g.black, g.white)): g for g in await store.tournament_games("weekly")}
    played = games[frozenset(("ann", "bob"))]
    assert played.match_id == start["match"] and played.forfeit is None
    assert played.score == {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[end["result"]]
    for pair, game in games.items():
        if "cid" in pair:  # withdrawn: its loss, whoever the opponent (dan's absence came later)
            assert game.forfeit == "withdrawn" and game.score == (0.0 if game.black == "cid" else 1.0), game
        elif "dan" in pair:
            assert game.forfeit == "absent" and game.score == (0.0 if game.black == "dan" else 1.0), game
            assert game.match_id is None
    await ann.close()
    await bob.close()


async def test_a_paused_tournament_starts_no_game_until_it_resumes_unrated(server: RunningServer) -> None:
    store = server.hub.store
    tokens = {name: await store.add_player(name, "bot") for name in ("ann", "bob")}
    spec = TournamentSpec.check({"format": "round_robin", "game": "tictactoe", "clock": CLOCK, "rated": False})
    await lifecycle.create(store, "paused", spec, list(tokens))
    await lifecycle.start(store, "paused")
    await store.set_tournament_state("paused", "paused")
    ann, bob = [await Client.connect(server.url, token=tokens[name]) for name in ("ann", "bob")]
    told = await ann.expect("tournament_games")
    assert told["state"] == "paused"
    server.hub.tournaments.kick()
    await server.hub.tournaments.wait_idle()
    assert not ann.pending("match_start") and not server.hub.matches.live
    await store.set_tournament_state("paused", "running")
    assert (await ann.expect("match_start"))["rated"] is False  # an unrated tournament's games are unrated
    await ann.close()
    await bob.close()


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"format": "knockout"}, "format is one of"),
        ({"game": "chess"}, "no game 'chess'"),
        ({"params": {"m": 0}}, "bad rules for tictactoe"),
        ({"clock": {"initial_ms": 0}}, "positive"),
        ({"concurrency": 0}, "concurrency is a whole number"),
        ({"grace_s": -1}, "grace_s"),
        ({"entry": "anyone"}, "entry is one of"),
        ({"surprise": 1}, "unknown tournament settings: surprise"),
    ],
)
def test_bad_settings_are_refused_saying_which(changes: dict[str, object], says: str) -> None:
    with pytest.raises(SpecError, match=says):
        TournamentSpec.check({"format": "round_robin", "game": "tictactoe", **changes})


def test_the_command_refuses_bad_input_and_changes_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "arbiter.db")
    runner = CliRunner()
    made = runner.invoke(main, ["tournament", "create", "cup", "--game", "tictactoe", "--player", "nobody", "--db", db])
    assert made.exit_code == 2 and "no player named 'nobody'" in made.stderr
    for args, says in [
        (["create", "cup", "--game", "tictactoe", "--clock", "fast"], "times are seconds"),
        (["create", "cup", "--game", "tictactoe", "--param", "m=0"], "m"),
        (["create", "cup", "--game", "tictactoe", "--start-at", "tonight"], "ISO time"),
        (["show", "missing"], "no tournament named 'missing'"),
        (["start", "missing"], "no tournament named 'missing'"),
        (["withdraw", "missing", "ann"], "no tournament named 'missing'"),
    ]:
        result = runner.invoke(main, ["tournament", *args, "--db", db])
        assert result.exit_code == 2 and says in result.stderr, (args, result.output)
    listed = runner.invoke(main, ["tournament", "list", "--db", db])
    assert listed.exit_code == 0 and "cup" not in listed.output  # the refused creations left nothing
    assert runner.invoke(main, ["player", "add", "ann", "--kind", "bot", "--db", db]).exit_code == 0
    made = runner.invoke(main, ["tournament", "create", "duo", "--game", "tictactoe", "--player", "ann", "--db", db])
    assert made.exit_code == 0, made.output
    alone = runner.invoke(main, ["tournament", "start", "duo", "--db", db])
    assert alone.exit_code == 2 and "needs two at least" in alone.stderr
    paused = runner.invoke(main, ["tournament", "pause", "duo", "--db", db])
    assert paused.exit_code == 2 and "not running" in paused.stderr
    assert asyncio.run(_state(db, "duo")) == "open"


async def _state(db: str, name: str) -> str:
    store = SqliteStore(db)
    await store.open()
    try:
        found = await store.get_tournament(name)
        assert found is not None
        return found.state
    finally:
        await store.close()


async def test_a_player_enters_an_open_tournament_over_the_protocol(server: RunningServer) -> None:
    store = server.hub.store
    token = await store.add_player("eve", "bot")
    open_spec = TournamentSpec.check({"format": "round_robin", "game": "tictactoe", "clock": CLOCK, "entry": "open"})
    await lifecycle.create(store, "open-cup", open_spec, [])
    await lifecycle.create(store, "invited", TournamentSpec.check({"format": "round_robin", "game": "tictactoe"}), [])
    eve, guest = await Client.connect(server.url, token=token), await Client.connect(server.url)
    assert (await eve.request("tournament_enter", tournament="open-cup"))["type"] == "ok"
    assert (await eve.request("tournament_enter", tournament="OPEN-CUP"))["type"] == "ok"  # in the field already
    for client, name, code in [(guest, "open-cup", "rated_needs_account"), (eve, "nothing", "unknown_tournament"),
                               (eve, "invited", "entry_closed")]:  # fmt: skip
        refused = await client.request("tournament_enter", tournament=name)
        assert (refused["type"], refused["code"]) == ("error", code), refused
    assert [entry.name for entry in await store.tournament_entries("open-cup")] == ["eve"]
    assert await store.tournament_entries("invited") == []
    await eve.close()
    await guest.close()


async def test_arbiter_bot_s_tournament_setting_enters_it_after_each_welcome(server: RunningServer) -> None:
    store = server.hub.store
    token = await store.add_player("rand", "bot")
    spec = TournamentSpec.check({"format": "round_robin", "game": "tictactoe", "clock": CLOCK, "entry": "open"})
    await lifecycle.create(store, "bots-cup", spec, [])
    settings = BotSettings(games=("tictactoe",), tournaments=("bots-cup", "no-such-cup"), ponder=False)
    async with (
        BrainPool(RandomBrain, workers=1) as pool,
        BotClient(server.url, token=token, pool=pool, settings=settings).running(),
    ):
        async with asyncio.timeout(30):
            while not await store.tournament_entries("bots-cup"):
                await asyncio.sleep(0.05)
        assert server.hub.roster.get("rand") is not None  # the refused entry did not stop the bot
    assert [entry.name for entry in await store.tournament_entries("bots-cup")] == ["rand"]
