"""The bot client over a real server on 127.0.0.1: complete games, 200 perfect-vs-random games,
challenge filters, a search too slow for the clock, and a bot killed mid-game that comes back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgpack
import numpy as np
import pytest
from click.testing import CliRunner
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.client import BotClient, BotFatal, BotSettings, ChallengeFilter, ChallengeRefused
from arbiter.bots.perfect import PerfectBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain, random_move
from arbiter.cli import main
from arbiter.engine import Game, create_game
from arbiter.protocol.errors import CloseCode
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.config import LadderConfig
from arbiter.server.results.consistency import check_store
from arbiter.server.store.memory import MemoryStore
from arbiter.server.store.sqlite import SqliteStore
from tests.support.store_check import assert_store_clean

pytestmark = pytest.mark.timeout(180)

CLOCK = {"initial_ms": 60_000, "increment_ms": 1_000}
SMALL_GAMES = ("tictactoe", "tictactoe4", "vanishing", "ttt3d")


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0, reconnect_grace_s=30.0), MemoryStore()) as running:
        yield running


@contextlib.asynccontextmanager
async def running_bot(
    server: RunningServer, name: str, brain: type[Brain], **settings: Any
) -> AsyncIterator[BotClient]:
    """A registered bot with its own one-worker pool, connected and playing until the block ends."""
    token = await server.hub.store.add_player(name, "bot")
    games = settings.pop("games", SMALL_GAMES)
    accept = settings.pop("accept", ChallengeFilter(games=frozenset(games)))
    async with (
        BrainPool(brain, workers=1) as pool,
        BotClient(
            server.url, token=token, pool=pool, settings=BotSettings(games=tuple(games), accept=accept, **settings)
        ).running() as client,
    ):
        yield client


VALUE_RANK = {"loss": 0, "draw": 1, "win": 2}


def assert_held(record: dict[str, Any]) -> None:
    """``perfect`` played every move itself and never made its result worse: the exact value it
    reported never fell, and the game ended as its last value said. So a game it lost was lost
    before its first move (the 3×3×3 cube is a first-player win: a random first player can,
    rarely, play the winning line)."""
    assert record["decisions"] and all(d["source"] == "brain" for d in record["decisions"])
    values = [VALUE_RANK[d["info"]["value"]] for d in record["decisions"]]
    assert values == sorted(values), values
    assert record["winner"] == {2: record["color"], 1: None, 0: 1 - record["color"]}[values[-1]], values


async def test_two_bots_play_complete_games_of_every_small_game(server: RunningServer, tmp_path: Path) -> None:
    log_file = tmp_path / "games.jsonl"
    async with (
        running_bot(server, "perfect-bot", PerfectBrain, game_log=log_file) as perfect,
        running_bot(server, "random-bot", RandomBrain) as rand,
    ):
        for game in SMALL_GAMES:
            await perfect.challenge("random-bot", game, CLOCK, color="second")
        records = await asyncio.wait_for(perfect.wait_finished(len(SMALL_GAMES)), 60)
        await asyncio.wait_for(rand.wait_finished(len(SMALL_GAMES)), 10)
    assert sorted(r["game"] for r in records) == sorted(SMALL_GAMES)
    for record in records:
        assert record["reason"] in ("line", "board_full", "repetition", "move_limit")
        assert_held(record)
        replay = create_game(record["game"], record["params"]).new_state()
        for move in record["moves"]:
            replay.play(replay.game.decode_move(move))
        assert replay.is_terminal
    logged = log_file.read_text().splitlines()
    assert len(logged) == len(SMALL_GAMES)


async def test_perfect_never_loses_200_games_to_random_through_the_server(server: RunningServer) -> None:
    batch = 20
    async with (
        running_bot(server, "perfect-bot", PerfectBrain, max_matches=batch) as perfect,
        running_bot(server, "random-bot", RandomBrain, max_matches=batch),
    ):
        for start in range(0, 200, batch):
            for number in range(start, start + batch):
                game = SMALL_GAMES[number % len(SMALL_GAMES)]
                color = "first" if number // len(SMALL_GAMES) % 2 == 0 else "second"
                await perfect.challenge("random-bot", game, CLOCK, color=color)
            await asyncio.wait_for(perfect.wait_finished(start + batch), 120)
        records = perfect.finished
    assert len(records) == 200
    differences: list[object] = []  # `arbiter check` of the (memory) store the 200 games went into
    summary = await check_store(server.hub.store, differences.append)
    assert summary.games == 200 and summary.clean, differences
    for record in records:
        assert_held(record)
    assert {r["color"] for r in records} == {0, 1}
    assert sum(r["winner"] == r["color"] for r in records) > 120


async def test_bots_on_the_ladder_are_paired_into_rated_games(tmp_path: Path) -> None:
    config = ServerConfig(port=0, ladder=LadderConfig(window=5000.0, rematch_after_s=0.0, retry_s=0.05, seed=1))
    async with run_server(config, SqliteStore(tmp_path / "arbiter.db")) as server:
        ladder = {"games": ("tictactoe",), "ladder": True, "max_matches": 2}
        async with (
            running_bot(server, "perfect-bot", PerfectBrain, **ladder) as perfect,
            running_bot(server, "random-bot", RandomBrain, **ladder),
        ):
            records = await asyncio.wait_for(perfect.wait_finished(6), 60)
    assert all(r["rated"] and r["game"] == "tictactoe" for r in records)
    assert {r["color"] for r in records} == {0, 1}  # the ladder alternates colours
    assert all(r["winner"] in (None, r["color"]) for r in records)
    assert any(r["rating_changes"] for r in records)
    await asyncio.to_thread(assert_store_clean, tmp_path / "arbiter.db")


async def test_challenges_outside_the_filter_are_declined(server: RunningServer) -> None:
    only_fast_casual_tictactoe = ChallengeFilter(games=frozenset({"tictactoe"}), rated=False, max_initial_ms=120_000)
    async with (
        running_bot(server, "picky-bot", RandomBrain, accept=only_fast_casual_tictactoe) as picky,
        running_bot(server, "asking-bot", RandomBrain) as asking,
    ):
        refused = [
            ("tictactoe4", CLOCK, False),
            ("tictactoe", {"initial_ms": 600_000}, False),
            ("tictactoe", CLOCK, True),
        ]
        for game, clock, rated in refused:
            await asking.challenge("picky-bot", game, clock, rated=rated)
        await asking.challenge("picky-bot", "tictactoe", CLOCK)
        records = await asyncio.wait_for(asking.wait_finished(1), 30)
        assert records[0]["game"] == "tictactoe" and not records[0]["rated"]
        assert len(picky.finished) + len(picky.games) == 1
        with pytest.raises(ChallengeRefused, match="unknown_player"):
            await asking.challenge("nobody", "tictactoe", CLOCK)


class StuckBrain(Brain):
    """Thinks far longer than any clock allows."""

    name = "stuck"

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def think(self, request: ThinkRequest) -> ThinkResult:
        import time

        time.sleep(30)
        return ThinkResult(random_move(request.position(), np.random.default_rng(0)))

    def fallback_move(self, request: ThinkRequest) -> ThinkResult:
        """Its quick answer (run on the client's loop, so it must be quick): any legal move."""
        return ThinkResult(random_move(request.position(), np.random.default_rng(1)))


async def test_a_search_slower_than_the_clock_still_moves_in_time(server: RunningServer) -> None:
    fast_clock = {"initial_ms": 2_000, "increment_ms": 0}
    async with (
        running_bot(server, "stuck-bot", StuckBrain) as stuck,
        running_bot(server, "random-bot", RandomBrain) as rand,
    ):
        await rand.challenge("stuck-bot", "tictactoe", fast_clock, color="second")
        (record,) = await asyncio.wait_for(stuck.wait_finished(1), 60)
    assert record["reason"] != "timeout"
    assert record["decisions"] and all(d["source"].startswith("fallback") for d in record["decisions"])
    # each fallback told to the server with its move, and counted there by player and cause
    count = float(len(record["decisions"]))
    assert stuck.fallbacks == {"deadline": count}
    assert f'arbiter_fallback_moves_total{{cause="deadline",player="stuck-bot"}} {count}' in (
        server.hub.metrics.render().decode()
    )
    assert sum(d["used"] for d in record["decisions"]) < 2.0


class Opponent:
    """A plain protocol client for the restart test: it challenges, plays random moves, reports."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.backlog: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.ws:
                self.backlog.append(msgpack.unpackb(frame, raw=False))
                self.arrived.set()

    async def send(self, **message: Any) -> None:
        await self.ws.send(msgpack.packb(message))

    async def expect(
        self, kinds: str | tuple[str, ...], where: Callable[[dict[str, Any]], bool] = bool, **fields: Any
    ) -> dict[str, Any]:
        """The first message so far (or to come) of one of ``kinds`` with these field values, ``where`` true."""
        kinds = (kinds,) if isinstance(kinds, str) else kinds
        async with asyncio.timeout(60):
            while True:
                for i, message in enumerate(self.backlog):
                    if (
                        message["type"] in kinds
                        and all(message.get(k) == v for k, v in fields.items())
                        and where(message)
                    ):
                        return self.backlog.pop(i)
                self.arrived.clear()
                await self.arrived.wait()


def start_bot_process(server: RunningServer, token_file: Path, log_file: Path) -> subprocess.Popen[bytes]:
    """``arbiter bot perfect`` as its own process, as a container runs it (token and health files)."""
    command = [sys.executable, "-m", "arbiter.cli", "bot", "perfect", "--server", server.url, "--workers", "1",
               "--games", "tictactoe4", "--token-file", str(token_file), "--game-log", str(log_file),
               "--health-file", str(log_file.with_suffix(".alive"))]  # fmt: skip
    return subprocess.Popen(command, env={**os.environ, "ARBITER_BOT_LOG_LEVEL": "warning"})


async def test_a_bot_killed_mid_game_comes_back_and_finishes(server: RunningServer, tmp_path: Path) -> None:
    """Two matches at once; the bot process is SIGKILLed after its second move in the first one,
    started again while we move, and finishes both from the server's resync."""
    store = server.hub.store
    token_file = tmp_path / "perfect-bot.token"
    token_file.write_text(await store.add_player("perfect-bot", "bot") + "\n")
    opponent_token = await store.add_player("tester", "human")
    log_file = tmp_path / "games.jsonl"
    async with connect(server.url, compression=None) as ws:
        me = Opponent(ws)
        await me.send(type="hello", id=1, protocol=1, client="tests/1", token=opponent_token)
        await me.expect("welcome")
        await me.send(type="subscribe", id=2)
        await me.expect("lobby_state")
        bot = start_bot_process(server, token_file, log_file)
        try:
            await me.expect(
                "presence", where=lambda m: m["player"]["name"] == "perfect-bot" and not m["player"]["away"]
            )
            states = {}
            for request_id in (3, 4):
                await me.send(
                    type="challenge", id=request_id, to="perfect-bot", game="tictactoe4", clock=CLOCK, color="first"
                )
                states[(await me.expect("match_start"))["match"]] = create_game("tictactoe4").new_state()
            first_match = next(iter(states))
            rng = np.random.default_rng(4)
            ends = {}
            killed_at = None
            for match, state in states.items():  # we move first in both
                move = state.game.encode_move(random_move(state, rng))
                await me.send(type="move", id=100, match=match, ply=0, move=move)
            while len(ends) < len(states):
                event = await me.expect(("moved", "end"), where=lambda m: m.get("match") in states)
                match, state = event["match"], states[event["match"]]
                if event["type"] == "end":
                    ends[match] = event
                    continue
                state.play(state.game.decode_move(event["move"]))
                if event["by"] == 1 and killed_at is None and match == first_match and state.ply >= 4:
                    bot.send_signal(signal.SIGKILL)  # right after its second move in the first match
                    bot.wait()
                    killed_at = state.ply
                    await me.expect("player_left", match=match, color=1)
                    bot = start_bot_process(server, token_file, log_file)
                if state.to_move == 0 and not state.is_terminal:
                    move = state.game.encode_move(random_move(state, rng))
                    await me.send(type="move", id=100 + state.ply, match=match, ply=state.ply, move=move)
            assert killed_at is not None
            assert log_file.with_suffix(".alive").exists()  # touched while connected
            for end in ends.values():
                assert end["reason"] in ("line", "board_full")
                assert end["winner"] in (None, 1)  # perfect, even restarted, does not lose
        finally:
            bot.send_signal(signal.SIGTERM)
            bot.wait(timeout=30)
    records = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert sorted(r["match"] for r in records) == sorted(states)
    assert all(r["resyncs"] == 1 for r in records)  # the second process learnt both games from the resync


async def opponent_for(server: RunningServer, name: str) -> Opponent:
    token = await server.hub.store.add_player(name, "human")
    ws = await connect(server.url, compression=None)
    opponent = Opponent(ws)
    await opponent.send(type="hello", id=1, protocol=1, client="tests/1", token=token)
    await opponent.expect("welcome")
    return opponent


async def test_a_dropped_connection_reconnects_resyncs_and_finishes(server: RunningServer) -> None:
    async with running_bot(server, "perfect-bot", PerfectBrain, backoff_initial=0.05) as perfect:
        me = await opponent_for(server, "tester")
        await me.send(type="challenge", id=2, to="perfect-bot", game="tictactoe4", clock=CLOCK, color="first")
        match = (await me.expect("match_start"))["match"]
        state = create_game("tictactoe4").new_state()
        rng = np.random.default_rng(9)
        dropped = False
        while True:
            if state.to_move == 0 and not state.is_terminal:
                move = state.game.encode_move(random_move(state, rng))
                await me.send(type="move", id=10 + state.ply, match=match, ply=state.ply, move=move)
            event = await me.expect(("moved", "end"), match=match)
            if event["type"] == "end":
                break
            state.play(state.game.decode_move(event["move"]))
            if not dropped and event["by"] == 1:  # cut the bot off the server right after its first move
                server.hub.roster.get("perfect-bot").session.close(CloseCode.GOING_AWAY, "test")
                await me.expect("player_left", match=match, color=1)
                dropped = True
        await me.ws.close()
        (record,) = await asyncio.wait_for(perfect.wait_finished(1), 30)
    assert event["reason"] in ("line", "board_full") and event["winner"] in (None, 1)
    assert perfect.connections == 2 and record["resyncs"] == 1
    assert record["moves"] == [state.game.encode_move(m) for m in state.moves()]


async def test_a_refused_token_stops_the_bot_instead_of_retrying(server: RunningServer) -> None:
    async with BrainPool(RandomBrain, workers=1) as pool:
        client = BotClient(server.url, token="not-a-token", pool=pool, settings=BotSettings(games=("tictactoe",)))
        with pytest.raises(BotFatal, match="auth_failed"):
            await asyncio.wait_for(client.run(), 10)
        assert client.connections == 0


async def test_a_banned_bot_stops_instead_of_retrying(server: RunningServer) -> None:
    """Banned while it plays (close 4010), and banned at its next hello: either way the bot stops."""
    token = await server.hub.store.add_player("banned-bot", "bot")
    async with BrainPool(RandomBrain, workers=1) as pool:
        settings = BotSettings(games=("tictactoe",))
        client = BotClient(server.url, token=token, pool=pool, settings=settings)
        running = asyncio.ensure_future(client.run())
        await asyncio.wait_for(client.connected.wait(), 10)
        await server.hub.store.add_ban("player", "banned-bot")
        with pytest.raises(BotFatal, match="banned"):
            await asyncio.wait_for(running, 10)
        again = BotClient(server.url, token=token, pool=pool, settings=settings)
        with pytest.raises(BotFatal, match="banned"):
            await asyncio.wait_for(again.run(), 10)
        assert again.connections == 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["bot"], "name a bot"),
        (["bot", "nobody", "--server", "ws://x/", "--token", "t"], "unknown bot"),
        (["bot", "perfect", "--token", "t"], "needs --server"),
        (["bot", "perfect", "--server", "http://x/", "--token", "t"], "ws://"),
        (["bot", "perfect", "--server", "ws://x/", "--token", "t", "--games", "gomoku"], "does not play gomoku"),
        (["bot", "perfect", "--server", "ws://x/", "--token", "t", "--level", "7"], "levels 1 to 1"),
        (["bot", "perfect", "--server", "ws://x/", "--token", "t", "--workers", "0"], "--workers"),
        (["bot", "perfect", "--server", "ws://x/", "--token-file", "/nonexistent/t"], "cannot read the token file"),
    ],
)
def test_bad_bot_arguments_are_one_line_and_exit_2(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(main, arguments, env={"ARBITER_TOKEN": ""})
    assert result.exit_code == 2
    assert message in result.output


def test_an_unreachable_server_is_retried_until_stopped() -> None:
    """No server at the address: the bot keeps retrying with back-off; SIGTERM ends it with no trace."""
    bot = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arbiter.cli",
            "bot",
            "random",
            "--server",
            "ws://127.0.0.1:9/",
            "--workers",
            "1",
            "--log-level",
            "warning",
        ],
        env={**os.environ, "ARBITER_TOKEN": "t"},
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = [bot.stderr.readline(), bot.stderr.readline()]  # two failed attempts, then we stop it
    bot.send_signal(signal.SIGTERM)
    rest = bot.communicate(timeout=30)[1]
    assert bot.returncode == 0
    assert all('"connection lost"' in line for line in lines)
    assert "Traceback" not in rest


async def test_a_match_that_ends_while_away_is_still_logged(server: RunningServer) -> None:
    async with running_bot(server, "perfect-bot", PerfectBrain, backoff_initial=1.0) as perfect:
        me = await opponent_for(server, "tester")
        await me.send(type="challenge", id=2, to="perfect-bot", game="tictactoe", clock=CLOCK, color="second")
        match = (await me.expect("match_start"))["match"]
        await me.expect("moved", match=match, by=0)  # the bot opened; now it is our turn
        server.hub.roster.get("perfect-bot").session.close(CloseCode.GOING_AWAY, "test")
        await me.expect("player_left", match=match)
        await me.send(type="resign", id=3, match=match)  # ends while the bot is away (it waits >= 0.5 s)
        await me.expect("end", match=match)
        (record,) = await asyncio.wait_for(perfect.wait_finished(1), 30)
        await me.ws.close()
    assert record["reason"] == "resign" and record["winner"] == record["color"] == 0
    assert perfect.connections == 2 and not perfect.games


async def test_running_raises_on_entry_when_the_bot_is_refused(server: RunningServer) -> None:
    settings = BotSettings(games=SMALL_GAMES)
    async with BrainPool(RandomBrain, workers=1) as pool:
        with pytest.raises(BotFatal, match="auth_failed"):
            async with BotClient(server.url, token="not-a-token", pool=pool, settings=settings).running():
                raise AssertionError("the block must not run for a refused bot")
