"""Three ``arbiter serve --cluster`` nodes as separate processes on one PostgreSQL and one Redis
(both started by the tests): a client may connect to any node and sees one server.

- a challenge reaches a player on another node, and the two play a whole game across nodes;
- a spectator on the third node watches it live;
- a player who reconnects to a different node within the grace resumes with a full resync;
- one connection per player across the cluster: a second connection anywhere replaces the first;
- after kill -9 of the node that owns a live match, a survivor adopts it from the store and the
  players, reconnected anywhere, finish it with every move kept and both clocks right (and the
  lobby counts the adopted match once);
- a dead node's match that was never stored ends void (no result) for its players, who are free
  again at once;
- after Redis restarts empty, the nodes write their part again, the players' live-match counts
  included, and play goes on;
- each node answers /healthz with its own id.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request

import psycopg
from lobby_updates import listed

from arbiter.protocol.errors import CloseCode
from arbiter.server.store.postgresql import PostgresStore
from tests.support.wsclient import Client, play_move, play_out, start_match

ARBITER = [sys.executable, "-m", "arbiter.cli"]


async def play_moves(first: Client, second: Client, match: str, moves: list, start: int = 0) -> dict:
    """Play ``moves`` from ply ``start``, each by the side to move, each seen by the other; the last ``moved``."""
    moved: dict = {}
    for ply, move in enumerate(moves, start=start):
        mover, other = (first, second) if ply % 2 == 0 else (second, first)
        moved = await play_move(mover, match, ply, move)
        assert moved["type"] == "moved", moved
        assert (await other.expect("moved", match=match, ply=ply))["move"] == move
    return moved


def assert_clocks_stood(state: dict, last: dict, ran_s: float) -> None:
    """The clocks after a failover are those of the last move (the failover's time is not charged): the waiting
    side's to the millisecond of each stored move, the side to move's less at most ``ran_s``, the time its clock
    can have run since the adoption, which the caller bounds."""
    mover = state["to_move"]
    waiting = 1 - mover
    assert abs(state["clocks"][waiting] - last["clocks"][waiting]) <= 20, (state, last)
    assert last["clocks"][mover] - 1000 * ran_s <= state["clocks"][mover] <= last["clocks"][mover] + 20, (state, last)


async def test_a_game_across_nodes_with_a_spectator_on_a_third(cluster, connect, postgres_url: str) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    bob = await connect(nodes["n2"], token=tokens["bob"])
    carol = await connect(nodes["n3"], token=tokens["carol"])
    match = await start_match(alice, bob, rated=True)
    watched = await carol.request("spectate", match=match)
    assert watched["type"] == "match_state" and watched["match"] == match and watched["color"] is None
    end = await play_out((alice, bob), match, "tictactoe", None, seed=5)
    assert set(end["rating_changes"]) == {"alice", "bob"}
    seen = await carol.expect("end", match=match)
    assert seen["result"] == end["result"]
    assert len([m for m in carol.pending("moved") if m["match"] == match]) == end["ply"]

    store = PostgresStore(postgres_url)
    await store.open()
    record = await store.get_game(match)
    await store.close()
    assert record is not None and record.result == end["result"] and len(record.moves) == end["ply"]


async def test_reconnecting_to_another_node_resumes_the_match(cluster, connect) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    bob = await connect(nodes["n2"], token=tokens["bob"])
    match = await start_match(alice, bob)
    await play_moves(alice, bob, match, [[1, 1]])
    await alice.close()
    left = await bob.expect("player_left", match=match)
    assert left["color"] == 0

    again = await connect(nodes["n3"], token=tokens["alice"])  # another node than before
    state = await again.expect("match_state", match=match)
    assert state["color"] == 0 and state["moves"] == [[1, 1]] and state["to_move"] == 1
    await bob.expect("player_returned", match=match)
    assert (await play_move(bob, match, 1, [0, 0]))["type"] == "moved"
    assert (await again.expect("moved", match=match, ply=1))["move"] == [0, 0]
    assert (await play_move(again, match, 2, [2, 2]))["type"] == "moved"
    assert (await bob.expect("moved", match=match, ply=2))["move"] == [2, 2]


async def test_one_connection_per_player_across_the_cluster(cluster, connect) -> None:
    nodes, tokens = cluster
    first = await connect(nodes["n1"], token=tokens["alice"])
    await connect(nodes["n2"], token=tokens["alice"])
    code, _ = await first.wait_closed()
    assert code == CloseCode.REPLACED


def test_each_node_names_itself_in_healthz_and_metrics(cluster) -> None:
    nodes, _ = cluster
    pairing = []
    for name, node in nodes.items():
        with urllib.request.urlopen(f"{node.http}/healthz", timeout=10) as response:
            health = json.loads(response.read())
        assert health["node"] == name and health["status"] == "ok"
        with urllib.request.urlopen(f"{node.http}/metrics", timeout=10) as response:
            metrics = response.read().decode()
        assert f'arbiter_cluster_node{{node="{name}"}} 1.0' in metrics
        pairing.append("arbiter_ladder_pairing 1.0" in metrics)
    assert pairing == [True, False, False]  # the first node took the ladder's lease, and holds it


def test_a_cluster_needs_a_postgresql_store() -> None:
    done = subprocess.run([*ARBITER, "serve", "--db", ":memory:", "--cluster", "redis://127.0.0.1:1/0"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and "postgresql" in done.stderr


async def test_a_match_survives_kill_9_of_its_node(cluster, connect, postgres_url: str) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    bob = await connect(nodes["n2"], token=tokens["bob"])
    watcher = await connect(nodes["n1"])
    await watcher.request("subscribe")
    match = await start_match(alice, bob, "gomoku", clock={"initial_ms": 120_000, "increment_ms": 1_000})
    await listed(watcher, {"alice": {"playing": 1}, "bob": {"playing": 1}})
    moves = [[7, 7], [7, 8], [8, 8], [6, 6]]
    last = await play_moves(alice, bob, match, moves)
    # At once, without waiting for the store: a move a player has seen is in Redis already.
    killed = time.monotonic()
    nodes["n2"].process.kill()  # the owner of the match (the challenged player's node)
    assert await nodes["n2"].process.wait() == -9
    bob = await connect(nodes["n3"], token=tokens["bob"])  # bob's node died: he comes back elsewhere
    # alice, connected throughout, hears the state as the match is adopted: her clock has barely run (1 s is
    # slack). bob's may be built when he comes back, after the adoption: at most the time since the kill.
    for player, ran_s in ((alice, 1.0), (bob, None)):
        state = await player.expect("match_state", match=match, timeout=30)
        assert state["moves"] == moves and state["to_move"] == 0
        assert_clocks_stood(state, last, ran_s or time.monotonic() - killed)

    rest = [[9, 9], [5, 5], [10, 10], [4, 4], [11, 11]]  # alice completes five on the diagonal
    await play_moves(alice, bob, match, rest, start=len(moves))
    ends = [await player.expect("end", match=match) for player in (alice, bob)]
    assert ends[0]["result"] == "1-0" and ends[0]["ply"] == len(moves) + len(rest)
    # The adopter counted the match once, as its first owner had: its end leaves no live match.
    await listed(watcher, {"alice": {"playing": 0}, "bob": {"playing": 0, "away": False}})

    store = PostgresStore(postgres_url)
    await store.open()
    record = await store.get_game(match)
    await store.close()
    assert record is not None and [m.move for m in record.moves] == moves + rest and record.result == "1-0"


async def test_a_dead_node_s_match_that_was_never_stored_ends_void_and_frees_its_players(
    cluster, connect, postgres_url: str
) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    bob = await connect(nodes["n2"], token=tokens["bob"])
    watcher = await connect(nodes["n1"])
    await watcher.request("subscribe")
    match = await start_match(alice, bob, "gomoku")
    await play_moves(alice, bob, match, [[7, 7]])
    await listed(watcher, {"alice": {"playing": 1}, "bob": {"playing": 1}})
    # As if n2 died before its store wrote the match: its row (written after the start, so waited for) removed.
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        async with asyncio.timeout(10):
            while not await (await conn.execute("SELECT 1 FROM games WHERE match_id = %s", (match,))).fetchone():
                await asyncio.sleep(0.05)
        await conn.execute("DELETE FROM moves WHERE game_id IN (SELECT id FROM games WHERE match_id = %s)", (match,))
        await conn.execute("DELETE FROM games WHERE match_id = %s", (match,))
    nodes["n2"].process.kill()  # the owner of the match
    assert await nodes["n2"].process.wait() == -9

    end = await alice.expect("end", match=match, timeout=30)  # from the survivor that found nothing to adopt
    assert end["reason"] == "interrupted" and end["result"] is None and end["winner"] is None
    bob = await connect(nodes["n3"], token=tokens["bob"])
    await listed(watcher, {"alice": {"playing": 0}, "bob": {"playing": 0, "away": False}})
    again = await start_match(alice, bob, "gomoku")  # both free: a new match starts and is played
    assert again != match
    await play_moves(alice, bob, again, [[7, 7], [8, 8]])
    assert (await alice.request("spectate", match=match))["code"] == "unknown_match"  # the void match is gone


async def test_sigterm_hands_a_node_s_matches_over_to_the_others(cluster, connect, postgres_url: str) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    bob = await connect(nodes["n2"], token=tokens["bob"])
    match = await start_match(alice, bob, "gomoku", clock={"initial_ms": 120_000, "increment_ms": 1_000})
    moves = [[7, 7], [7, 8], [8, 8]]
    last = await play_moves(alice, bob, match, moves)

    stopped = time.monotonic()
    nodes["n2"].process.terminate()  # the match's owner leaves: no heartbeat to wait for, nothing lost
    code, _ = await bob.wait_closed()
    assert code == CloseCode.GOING_AWAY
    assert await nodes["n2"].process.wait() == 0
    bob = await connect(nodes["n3"], token=tokens["bob"])
    # As after kill -9: alice's state comes with the adoption, bob's perhaps when he comes back after it, and his
    # clock (he is to move) runs from the adoption on.
    for player, ran_s in ((alice, 1.0), (bob, None)):
        state = await player.expect("match_state", match=match, timeout=15)
        assert state["moves"] == moves and state["to_move"] == 1
        assert_clocks_stood(state, last, ran_s or time.monotonic() - stopped)

    rest = [[6, 6], [9, 9], [5, 5], [10, 10], [4, 4], [11, 11]]  # alice's diagonal, 7,7 to 11,11
    await play_moves(alice, bob, match, rest, start=len(moves))
    assert (await alice.expect("end", match=match))["result"] == "1-0"
    store = PostgresStore(postgres_url)
    await store.open()
    record = await store.get_game(match)
    await store.close()
    assert record is not None and [m.move for m in record.moves] == moves + rest and record.reason == "line"


async def test_a_guest_resumes_on_another_node_with_its_resume_token(cluster, connect) -> None:
    nodes, tokens = cluster
    guest = await connect(nodes["n1"])
    name, resume = guest.name, guest.welcome["resume_token"]
    alice = await connect(nodes["n2"], token=tokens["alice"])
    match = await start_match(guest, alice)
    assert (await play_move(guest, match, 0, [1, 1]))["type"] == "moved"
    await guest.close()

    again = await connect(nodes["n3"], token=resume)  # the same guest, through another node
    assert again.name == name and again.welcome["resume_token"] == resume
    state = await again.expect("match_state", match=match)
    assert state["color"] == 0 and state["moves"] == [[1, 1]]
    assert (await play_move(alice, match, 1, [0, 0]))["type"] == "moved"
    assert (await again.expect("moved", match=match, ply=1))["move"] == [0, 0]


async def test_the_cluster_carries_on_after_redis_restarts_empty(cluster, connect, redis_server) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    bob = await connect(nodes["n2"], token=tokens["bob"])
    match = await start_match(alice, bob)
    await play_moves(alice, bob, match, [[1, 1]])

    await asyncio.to_thread(redis_server.restart)  # the directory, the lobby and the lease are gone
    carol = await connect(nodes["n3"], token=tokens["carol"])
    async with asyncio.timeout(20):  # each node writes its entries again at its next heartbeat
        while not {"alice", "bob"} <= {p["name"] for p in (await carol.request("lobby"))["players"]}:
            await asyncio.sleep(0.2)
        while (watched := await carol.request("spectate", match=match))["type"] != "match_state":
            await asyncio.sleep(0.2)
    assert watched["moves"] == [[1, 1]]
    assert (await play_move(bob, match, 1, [0, 0]))["type"] == "moved"  # on the owner, bob's node
    assert (await alice.expect("moved", match=match, ply=1))["move"] == [0, 0]
    assert (await carol.expect("moved", match=match, ply=1))["move"] == [0, 0]
    assert (await play_move(alice, match, 2, [2, 2]))["type"] == "moved"  # forwarded from alice's node
    assert (await bob.expect("moved", match=match, ply=2))["move"] == [2, 2]
    # The live-match counts went with the rest and were written again: the end takes them to 0, not below.
    await carol.request("subscribe")
    assert (await alice.request("resign", match=match))["type"] == "ok"
    await listed(carol, {"alice": {"playing": 0}, "bob": {"playing": 0}})


async def test_an_end_sent_across_nodes_to_a_dying_socket_comes_after_the_next_welcome(cluster, connect) -> None:
    """The match lives on the challenger's node; the winner's socket, on another node, dies as it sends the
    winning move (or once its ``moved`` came). The owner keeps the end until the winner's home confirms its
    client read it (a pong), so the winner's next welcome, on a third node, is followed by it."""
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    for point in ("with_move", "after_moved"):
        bob = await connect(nodes["n2"], token=tokens["bob"])
        match = await start_match(alice, bob)  # on n1: alice moves first, bob wins the first column
        await play_moves(alice, bob, match, [[2, 2], [0, 0], [2, 1], [0, 1], [1, 2]])
        await bob.send({"type": "move", "match": match, "ply": 5, "move": [0, 2]})
        if point == "after_moved":
            await bob.expect("moved", match=match, ply=5)
        bob.ws.transport.close()  # the socket goes, without a websocket close
        await bob.wait_closed()
        assert (await alice.expect("end", match=match))["result"] == "0-1"
        back = await connect(nodes["n3"], token=tokens["bob"])
        assert back.welcome["resumed"] == []
        end = await back.expect("end", match=match)
        assert (end["result"], end["winner"], end["reason"], end["ply"]) == ("0-1", 1, "line", 6)
        await back.close()
