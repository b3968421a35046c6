"""The lobby of a cluster is one lobby: presence, seeks and live matches of every node, whichever
node a client asked, kept current by updates from every node; a dead node's entries go."""

from __future__ import annotations

from lobby_updates import listed, presence_of, until

from tests.support.wsclient import start_match


def names(state: dict) -> set[str]:
    return {player["name"] for player in state["players"]}


async def test_every_node_lists_every_node_s_players_seeks_and_matches(cluster, connect) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    watcher = await connect(nodes["n2"])  # a guest on another node
    assert (await watcher.request("subscribe"))["type"] == "lobby_state"

    bob = await connect(nodes["n3"], token=tokens["bob"])
    assert (await presence_of(watcher, "bob"))["player"]["away"] is False
    snapshot = await bob.request("lobby")  # asked on n3: n1's and n2's players too
    assert {"alice", "bob", watcher.name} <= names(snapshot)

    created = await bob.request("challenge", game="tictactoe", clock={"initial_ms": 60_000})  # a seek, on n3
    seek = created["challenge"]["id"]
    added = await until(watcher, "seek_added")
    assert added["seek"]["id"] == seek
    assert [s["id"] for s in (await alice.request("lobby"))["seeks"]] == [seek]

    accepted = await alice.request("accept", challenge=seek)  # from n1, the seek lives on n3
    assert accepted["type"] == "ok", accepted
    match = accepted["match"]
    assert (await until(bob, "match_start", match=match))["color"] in (0, 1)
    assert (await until(watcher, "seek_removed"))["seek"] == seek
    assert (await until(watcher, "match_listed"))["match"]["match"] == match
    snapshot = await watcher.request("lobby")
    assert [m["match"] for m in snapshot["matches"]] == [match]
    # Each player's count is of its matches on every node: alice's home (n1) lists her, her match is on n3.
    await listed(watcher, {"alice": {"playing": 1}, "bob": {"playing": 1}})
    assert {p["name"]: p["playing"] for p in (await watcher.request("lobby"))["players"]}["alice"] == 1

    resigned = await alice.request("resign", match=match)
    assert resigned["type"] == "ok", resigned
    unlisted = await until(watcher, "match_unlisted", match=match)
    assert unlisted["reason"] == "resign"
    await listed(watcher, {"alice": {"playing": 0}, "bob": {"playing": 0}})

    await alice.close()
    assert (await until(watcher, "player_offline", name="alice"))["name"] == "alice"
    assert "alice" not in names(await bob.request("lobby"))


async def test_a_player_s_new_home_lists_the_matches_it_plays_on_other_nodes(cluster, connect) -> None:
    nodes, tokens = cluster
    alice = await connect(nodes["n1"], token=tokens["alice"])
    bob = await connect(nodes["n2"], token=tokens["bob"])
    match = await start_match(alice, bob)  # on n2, bob's node
    watcher = await connect(nodes["n1"])
    await watcher.request("subscribe")
    await alice.close()
    await bob.expect("player_left", match=match)
    await listed(watcher, {"alice": {"away": True}})  # the updates from here on are of her return
    await connect(nodes["n3"], token=tokens["alice"])  # her new home: her match is on n2
    await listed(watcher, {"alice": {"away": False, "playing": 1}})


async def test_a_dead_node_s_players_and_seeks_leave_the_lobby(cluster, connect) -> None:
    nodes, tokens = cluster
    watcher = await connect(nodes["n1"], token=tokens["alice"])
    await watcher.request("subscribe")
    carol = await connect(nodes["n3"], token=tokens["carol"])
    seek = (await carol.request("challenge", game="tictactoe", clock={"initial_ms": 60_000}))["challenge"]["id"]
    await until(watcher, "seek_added")
    assert "carol" in names(await watcher.request("lobby"))

    nodes["n3"].process.kill()
    assert await nodes["n3"].process.wait() == -9
    # Within the heartbeat's expiry (5 s) and a look: the survivors list nothing of n3.
    assert (await until(watcher, "player_offline", name="carol"))["name"] == "carol"
    assert (await until(watcher, "seek_removed", seek=seek))["reason"] == "offline"
    state = await watcher.request("lobby")
    assert "carol" not in names(state) and state["seeks"] == []
