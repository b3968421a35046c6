"""A swap opening across a cluster: the owner of a match in its opening phase dies (kill -9), another
node adopts it, and the phase comes back as it stood: the stones, the choices made, who must act."""

from __future__ import annotations

from arbiter.server.store.postgresql import PostgresStore
from tests.support.wsclient import play_move, start_match

SWAP = {"features": ["swap"]}


async def test_a_swap_phase_survives_kill_9_of_its_node(cluster, connect, postgres_url: str) -> None:
    nodes, tokens = cluster
    opener = await connect(nodes["n1"], token=tokens["alice"], **SWAP)
    chooser = await connect(nodes["n2"], token=tokens["bob"], **SWAP)
    clock = {"initial_ms": 120_000, "increment_ms": 1_000}
    match = await start_match(opener, chooser, "gomoku", params={"opening": "swap2"}, clock=clock)
    for ply, stone in enumerate([[7, 7], [8, 7], [7, 9]]):
        assert (await play_move(opener, match, ply, stone))["type"] == "moved"
    assert (await chooser.request("swap", match=match, choice="place"))["type"] == "ok"
    for ply, stone in enumerate([[6, 8], [9, 6]], start=3):
        assert (await play_move(chooser, match, ply, stone))["type"] == "moved"
    nodes["n2"].process.kill()  # the owner of the match (the challenged player's node)
    assert await nodes["n2"].process.wait() == -9
    state = await opener.expect("match_state", match=match, timeout=30)
    assert state["ply"] == 5 and state["swap"]["phase"] == "choose" and state["swap"]["to_act"] == 0
    assert state["swap"]["choices"] == [{"by": 1, "choice": "place", "ply": 3}]
    chooser = await connect(nodes["n3"], token=tokens["bob"], **SWAP)
    await chooser.expect("match_state", match=match, timeout=30)
    assert (await opener.request("swap", match=match, choice="white"))["type"] == "ok"
    swapped = await chooser.expect("swapped", match=match)
    assert [p["name"] for p in swapped["players"]] == ["bob", "alice"]
    assert (await play_move(opener, match, 5, [0, 0]))["by"] == 1  # alice is white now
    assert (await chooser.request("resign", match=match))["type"] == "ok"
    assert (await opener.expect("end", match=match))["result"] == "0-1"
    store = PostgresStore(postgres_url)
    await store.open()
    record = await store.get_game(match)
    await store.close()
    assert record is not None and record.start.players == ("bob", "alice")
    assert record.swap == [{"by": "bob", "choice": "place", "ply": 3}, {"by": "alice", "choice": "white", "ply": 5}]
