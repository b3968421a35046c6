"""One ladder across the nodes: six players, two on each of three nodes, play 200 ladder games of
tic-tac-toe. One node pairs at a time, so no player is ever in two ladder games at once (each
plays one at a time), and every game is rated once. When the node pairing the ladder dies, another
takes the lease and the ladder goes on."""

from __future__ import annotations

import asyncio
import itertools
import random
import urllib.request

import psycopg
import pytest

from arbiter.engine import create_game
from arbiter.server.store.postgresql import PostgresStore
from tests.support.store_check import assert_store_clean
from tests.support.wsclient import Client, random_move

GAMES = 200
PLAYERS = [f"p{i}" for i in range(6)]


@pytest.fixture
def node_options() -> tuple[str, ...]:
    return ("--ladder-rematch-after", "0")  # six players: the same pairs meet again and again


async def next_message_unless(client: Client, event: asyncio.Event) -> dict | None:
    """The client's next message, or None as soon as ``event`` is set (the message stays queued)."""
    message, done = asyncio.ensure_future(client.expect(timeout=30)), asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait((message, done), return_when=asyncio.FIRST_COMPLETED)
    finally:
        done.cancel()
        if not message.done():
            message.cancel()
    return message.result() if message.done() and not message.cancelled() else None


async def play_the_ladder(
    client: Client, seed: int, ended: set[str], enough: asyncio.Event, goal: int = GAMES,
    games: tuple[str, ...] = ("tictactoe",),
) -> None:  # fmt: skip
    """Join the ladder of each of ``games`` and play random moves in every match it gives, one at a
    time, until ``goal`` games ended (``enough``); then leave and finish the match under way."""
    rng = random.Random(seed)
    for name in games:
        joined = await client.request("ladder_join", game=name)
        assert joined["type"] == "ladder_joined", joined
    rules = {name: create_game(name) for name in games}
    states: dict[str, tuple] = {}
    left = False
    # Once the leave is answered no pairing can name this player, and every match_start made before
    # it is already here (both come from the pairing node, in order): play those out too.
    while not (left and not states and not any(m["type"] == "match_start" for m in client.backlog)):
        if enough.is_set() and not left:
            for name in games:
                assert (await client.request("ladder_leave", game=name))["type"] == "ok"
            left = True
            continue
        message = await client.expect(timeout=30) if left else await next_message_unless(client, enough)
        if message is None:
            continue  # enough games: leave now, though nothing came (a player waiting for a pairing)
        kind = message["type"]
        assert kind != "error", message
        if kind == "match_start":
            assert not states, f"{client.name} was paired into a second match at once"
            states[message["match"]] = (rules[message["game"]].new_state(), message["color"])
        elif kind == "moved" and message["match"] in states:
            state = states[message["match"]][0]
            state.play(state.game.decode_move(message["move"]))
        elif kind == "match_state" and message["color"] is not None:  # a resync: the match moved node
            state = rules[message["game"]].new_state()
            for move in message["moves"]:
                state.play(state.game.decode_move(move))
            states[message["match"]] = (state, message["color"])
        elif kind == "end":
            states.pop(message["match"], None)
            if message["reason"] != "interrupted":  # void: paired on a node that died before storing it
                ended.add(message["match"])
            if len(ended) >= goal:
                enough.set()
            continue
        else:
            continue
        match = message["match"]
        state, color = states[match]
        if not state.is_terminal and state.to_move == color:
            wire = random_move(state, rng)
            await client.send({"type": "move", "id": f"{match}-{state.ply}", "match": match, "ply": state.ply,
                               "move": wire})  # fmt: skip


async def test_200_ladder_games_across_nodes_each_paired_once_and_rated_once(
    cluster, connect, postgres_url: str
) -> None:
    nodes, tokens = cluster
    store = PostgresStore(postgres_url)
    await store.open()
    try:
        for name in PLAYERS:
            tokens[name] = await store.add_player(name, "bot")
        order = list(nodes.values())
        clients = [await connect(order[i % 3], token=tokens[name]) for i, name in enumerate(PLAYERS)]
        ended: set[str] = set()
        enough = asyncio.Event()
        async with asyncio.timeout(240):
            await asyncio.gather(*(play_the_ladder(c, seed, ended, enough) for seed, c in enumerate(clients)))
        assert len(ended) >= GAMES

        games = [g for g in await store.list_games(game="tictactoe", limit=None, finished=True) if g.start.rated]
        assert {g.start.match_id for g in games} == ended  # every game ended once, stored once
        pool = games[0].start.pool
        for name in PLAYERS:
            mine = sorted((g for g in games if name in g.start.players), key=lambda g: g.start.started)
            for before, after in itertools.pairwise(mine):
                assert before.ended is not None and after.start.started >= before.ended - 0.001, name
            rating = await store.get_rating(name, pool)
            assert rating.games == len(mine)  # rated once per game, none twice
        assert all(set(g.rating_changes) == set(g.start.players) for g in games)
        await asyncio.to_thread(assert_store_clean, postgres_url)  # every game replays, every rating recomputes
    finally:
        await store.close()


async def test_a_bot_that_plays_one_match_at_a_time_gets_one_across_every_game_it_queues_for(
    cluster, connect, postgres_url: str
) -> None:
    """The live counts are read once per pairing pass: the pass's own pairings count too, or a bot in
    two games' queues is paired in both at once."""
    nodes, tokens = cluster
    order = list(nodes.values())
    clients = [
        await connect(order[0], token=tokens["alice"], capacity=1),
        await connect(order[1], token=tokens["bob"], capacity=1),
    ]
    ended: set[str] = set()
    enough = asyncio.Event()
    async with asyncio.timeout(120):
        await asyncio.gather(*(
            play_the_ladder(c, seed, ended, enough, goal=6, games=("tictactoe", "tictactoe4"))
            for seed, c in enumerate(clients)
        ))  # fmt: skip
    assert len(ended) >= 6


async def test_the_ladder_goes_on_when_the_node_pairing_it_dies(cluster, connect, postgres_url: str) -> None:
    nodes, tokens = cluster  # n1 started first: it holds the lease and pairs
    store = PostgresStore(postgres_url)
    await store.open()
    try:
        for name in PLAYERS[:4]:
            tokens[name] = await store.add_player(name, "bot")
        homes = ("n2", "n3", "n2", "n3")  # none on the node that dies
        clients = [await connect(nodes[home], token=tokens[name]) for home, name in zip(homes, PLAYERS, strict=False)]
        ended: set[str] = set()
        enough = asyncio.Event()
        players = asyncio.gather(*(play_the_ladder(c, seed, ended, enough, goal=40) for seed, c in enumerate(clients)))
        async with asyncio.timeout(120):
            while len(ended) < 10:
                await asyncio.sleep(0.05)
            nodes["n1"].process.kill()  # the pairing node, with the matches it paired
            at_kill = len(ended)
            await players  # the lease passes within 5 s, every node sends its joins again, 30 more games
        assert len(ended) >= 40 > at_kill

        games = [g for g in await store.list_games(game="tictactoe", limit=None, finished=True) if g.start.rated]
        assert {g.start.match_id for g in games} == ended
        for name in PLAYERS[:4]:
            mine = [g for g in games if name in g.start.players]
            assert (await store.get_rating(name, games[0].start.pool)).games == len(mine)  # rated once each
        await asyncio.to_thread(assert_store_clean, postgres_url)  # adopted and voided games replay too
    finally:
        await store.close()


# A game's start waiting for a lock (pg_stat_activity is read afresh outside a transaction only).
WAITING_START = "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO games%'"


def ladder_members(node_http: str) -> float:
    """The node's count of tic-tac-toe ladder members, waiting or playing (its /metrics)."""
    with urllib.request.urlopen(f"{node_http}/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith('arbiter_ladder_members{game="tictactoe"}'):
                return float(line.split()[-1])
    return 0.0


async def test_a_leave_is_answered_after_the_match_the_pairing_under_way_made(
    cluster, connect, postgres_url: str
) -> None:
    """A node announces a ladder match only once PostgreSQL has it. Leaves that reach the pairing
    node while such a start waits are answered after its ``match_start``, never before: a client
    takes the ``ok`` as "no more ladder matches" (the 200-game test's players stop reading then),
    so a match announced after it would be left to run out its clock, and be rated all the same."""
    nodes, tokens = cluster  # n1 pairs
    store = PostgresStore(postgres_url)
    await store.open()
    try:
        for name in PLAYERS[:2]:
            tokens[name] = await store.add_player(name, "bot")
        first = await connect(nodes["n2"], token=tokens["p0"])
        second = await connect(nodes["n3"], token=tokens["p1"])
        locker = await psycopg.AsyncConnection.connect(postgres_url)
        try:
            await locker.execute("LOCK TABLE games IN SHARE MODE")  # reads go on; a game's start waits
            for client in (first, second):
                assert (await client.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
            watch = await psycopg.AsyncConnection.connect(postgres_url, autocommit=True)
            async with asyncio.timeout(30), watch:
                while not await (await watch.execute(WAITING_START)).fetchone():  # paired, the start waits
                    await asyncio.sleep(0.02)
                for client in (first, second):
                    await client.send({"type": "ladder_leave", "id": "leave", "game": "tictactoe"})
                while await asyncio.to_thread(ladder_members, nodes["n1"].http):  # both leaves reached n1
                    await asyncio.sleep(0.02)
        finally:
            await locker.rollback()
            await locker.close()
        for client in (first, second):
            assert (await client.expect("ok", re="leave"))["type"] == "ok"
            [start] = client.pending("match_start")  # it came before the ok
        assert (await first.request("resign", match=start["match"]))["type"] == "ok"
        for client in (first, second):
            assert (await client.expect("end", match=start["match"]))["reason"] == "resign"
        rated = [g for g in await store.list_games(game="tictactoe", limit=None, finished=True) if g.start.rated]
        assert [g.start.match_id for g in rated] == [start["match"]]
        for name in PLAYERS[:2]:
            assert (await store.get_rating(name, rated[0].start.pool)).games == 1
    finally:
        await store.close()
