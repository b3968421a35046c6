"""A Swiss tournament of nine players over a real server, each a client playing random legal moves
in every match it is given: every round is paired once the last is decided, nobody meets an
opponent twice or has more than one bye, colours stay balanced (never three of one in a row), and
the standings match a recomputation from the stored games."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from arbiter.engine import State, create_game
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore
from arbiter.server.tournaments import lifecycle, report, swiss
from arbiter.server.tournaments.model import BYE_POINTS
from arbiter.server.tournaments.spec import TournamentSpec
from tests.support.wsclient import Client, random_move

pytestmark = pytest.mark.timeout(300)

PLAYERS = [f"p{n}" for n in range(1, 10)]


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0, tournament_interval_s=0.05), MemoryStore()) as running:
        yield running


async def autoplay(client: Client, seed: int) -> None:
    """Random legal moves in every match the client is given, until cancelled."""
    rng = random.Random(seed)
    states: dict[str, tuple[State, int]] = {}
    while True:
        message: dict[str, Any] = await client.expect(None, timeout=300)
        match = message.get("match")
        if message["type"] == "match_start":
            states[match] = (create_game(message["game"], message["params"]).new_state(), message["color"])
        elif message["type"] == "moved" and match in states:
            state = states[match][0]
            state.play(state.game.decode_move(message["move"]))
        elif message["type"] == "end":
            states.pop(match, None)
            continue
        if match in states:
            state, color = states[match]
            if not state.is_terminal and state.to_move == color:
                ply = len(state.moves())
                await client.send({"type": "move", "id": f"{match}-{ply}", "match": match, "ply": ply,
                                   "move": random_move(state, rng)})  # fmt: skip


async def test_a_swiss_of_nine_is_paired_round_by_round_without_repeats(server: RunningServer) -> None:
    store = server.hub.store
    tokens = {name: await store.add_player(name, "bot") for name in PLAYERS}
    spec = TournamentSpec.check({"format": "swiss", "game": "tictactoe", "concurrency": 8, "seed": 9,
                                 "clock": {"initial_ms": 20_000, "increment_ms": 0}})  # fmt: skip
    await lifecycle.create(store, "swiss-9", spec, PLAYERS)
    clients = [await Client.connect(server.url, token=tokens[name], capacity=1) for name in PLAYERS]
    players = [asyncio.create_task(autoplay(client, seed)) for seed, client in enumerate(clients)]
    try:
        await lifecycle.start(store, "swiss-9")
        async with asyncio.timeout(240):
            while (await store.get_tournament("swiss-9")).state != "finished":  # type: ignore[union-attr]
                await asyncio.sleep(0.1)
    finally:
        for task in players:
            task.cancel()
        for client in clients:
            await client.close()

    games = await store.tournament_games("swiss-9")
    rounds = swiss.rounds_for(len(PLAYERS))
    assert sorted({g.round for g in games}) == list(range(1, rounds + 1))
    pairs = [frozenset((g.black, g.white)) for g in games if g.white is not None]
    assert len(pairs) == len(set(pairs))  # no pairing twice
    byes = [g.black for g in games if g.white is None]
    assert len(byes) == rounds and len(set(byes)) == rounds  # one a round, nobody twice
    for name in PLAYERS:
        colours = [0 if g.black == name else 1 for g in games if g.white is not None and name in (g.black, g.white)]
        assert abs(colours.count(0) - colours.count(1)) <= 2, (name, colours)
        assert all(len(set(colours[i : i + 3])) > 1 for i in range(len(colours) - 2)), (name, colours)
    points = dict.fromkeys(PLAYERS, 0.0)
    for game in games:
        if game.white is None:
            points[game.black] += BYE_POINTS["swiss"]
            continue
        record = await store.get_game(game.match_id)  # type: ignore[arg-type]
        assert record is not None and record.result is not None and game.forfeit is None
        score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[record.result]
        points[game.black] += score
        points[game.white] += 1 - score
    table = (await report.describe(store, "swiss-9"))["standings"]
    assert {row["name"]: row["points"] for row in table} == points
    assert all("buchholz" in row["tiebreaks"] for row in table)
