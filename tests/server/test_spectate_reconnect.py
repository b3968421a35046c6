"""Spectators (snapshot, live updates, no power) and players dropping and coming back."""

from __future__ import annotations

import pytest

from arbiter.server import ServerConfig
from tests.support.wsclient import Client, play_move, start_match


def with_config(**overrides):
    return pytest.mark.parametrize("config", [ServerConfig(port=0, **overrides)])


async def test_spectator_joins_mid_game(connect, server):
    alice, bob, watcher = await connect(), await connect(), await connect()
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [1, 1])
    await play_move(bob, match, 1, [0, 0])
    snapshot = await watcher.request("spectate", match=match)
    assert snapshot["type"] == "match_state"
    assert snapshot["moves"] == [[1, 1], [0, 0]] and snapshot["ply"] == 2 and snapshot["to_move"] == 0
    assert snapshot["color"] is None and snapshot["game"] == "tictactoe"
    assert [p["name"] for p in snapshot["players"]] == [alice.name, bob.name]
    assert snapshot["connected"] == [True, True] and snapshot["draw_offer"] is None
    assert all(0 < c <= 60_000 for c in snapshot["clocks"])
    await play_move(alice, match, 2, [2, 2])
    moved = await watcher.expect("moved", match=match, ply=2)
    assert moved["move"] == [2, 2] and moved["by"] == 0
    # A spectator can never act in the match, and trying changes nothing.
    before = list(server.hub.matches.live[match].match.moves)
    for kind, extra in [("move", {"ply": 3, "move": [0, 1]}), ("resign", {}), ("abort", {}),
                        ("offer_draw", {}), ("accept_draw", {}), ("decline_draw", {})]:  # fmt: skip
        reply = await watcher.request(kind, match=match, **extra)
        assert reply["code"] == "not_a_player", (kind, reply)
    assert server.hub.matches.live[match].match.moves == before
    await play_move(bob, match, 3, [0, 1])
    await play_move(alice, match, 4, [0, 2])
    await play_move(bob, match, 5, [2, 1])
    await play_move(alice, match, 6, [2, 0])  # the 2,0 - 1,1 - 0,2 diagonal
    end = await watcher.expect("end", match=match)
    assert (end["result"], end["reason"]) == ("1-0", "line")
    assert (await watcher.request("sync", match=match))["code"] == "match_over"


async def test_unspectate_stops_updates(connect, server):
    alice, bob, watcher = await connect(), await connect(), await connect()
    match = await start_match(alice, bob)
    await watcher.request("spectate", match=match)
    assert (await watcher.request("sync", match=match))["type"] == "match_state"
    assert (await watcher.request("unspectate", match=match))["type"] == "ok"
    await play_move(alice, match, 0, [1, 1])
    assert (await watcher.request("ping"))["type"] == "pong"
    assert watcher.pending("moved") == []
    assert (await watcher.request("sync", match=match))["code"] == "not_a_player"
    assert (await watcher.request("spectate", match="nope"))["code"] == "unknown_match"


@with_config(max_spectated=1)
async def test_spectating_is_limited(connect):
    players = [await connect() for _ in range(4)]
    first = await start_match(players[0], players[1])
    second = await start_match(players[2], players[3])
    watcher = await connect()
    assert (await watcher.request("spectate", match=first))["type"] == "match_state"
    assert (await watcher.request("spectate", match=second))["code"] == "too_many_spectated"


async def test_reconnect_within_grace_resyncs(connect, server, store):
    token = await store.add_player("dropper", "bot")
    alice = await connect(token=token)
    bob = await connect()
    match = await start_match(alice, bob, clock={"initial_ms": 30_000})
    await play_move(alice, match, 0, [1, 1])
    await alice.close()
    left = await bob.expect("player_left", match=match)
    assert left["color"] == 0 and left["grace_ms"] == int(server.hub.config.reconnect_grace_s * 1000)
    await play_move(bob, match, 1, [0, 0])  # the opponent's clock now runs while it is away
    back = await connect(token=token)
    assert back.welcome["resumed"] == [match]
    state = await back.expect("match_state", match=match)
    assert state["color"] == 0 and state["moves"] == [[1, 1], [0, 0]] and state["to_move"] == 0
    assert state["connected"] == [True, True] and state["clocks"][0] < 30_000
    assert (await bob.expect("player_returned", match=match))["color"] == 0
    await play_move(back, match, 2, [2, 2])
    await play_move(bob, match, 3, [0, 2])
    assert (await play_move(back, match, 4, [0, 1]))["type"] == "moved"
    assert (await back.request("resign", match=match))["type"] == "ok"
    assert (await bob.expect("end", match=match))["reason"] == "resign"


async def test_guest_resumes_with_its_resume_token(connect):
    guest = await connect()
    bob = await connect()
    match = await start_match(guest, bob)
    name, resume = guest.name, guest.welcome["resume_token"]
    await guest.close()
    await bob.expect("player_left", match=match)
    back = await connect(token=resume)
    assert back.name == name and back.welcome["resumed"] == [match]
    assert (await back.expect("match_state", match=match))["color"] == 0
    assert (await play_move(back, match, 0, [1, 1]))["type"] == "moved"


@with_config(reconnect_grace_s=0.3)
async def test_grace_expiry_abandons(connect, store):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [1, 1])
    await bob.close()
    end = await alice.expect("end", match=match, timeout=5)
    assert (end["result"], end["winner"], end["reason"]) == ("1-0", 0, "abandoned")
    assert (await store.get_game(match)).reason == "abandoned"


@with_config(reconnect_grace_s=0.3)
async def test_both_gone_is_no_result(server, store, connect):
    alice, bob = await connect(), await connect()
    watcher = await connect()
    match = await start_match(alice, bob)
    await watcher.request("spectate", match=match)
    await watcher.request("subscribe")
    await alice.close()
    await bob.close()
    end = await watcher.expect("end", match=match, timeout=5)
    assert (end["result"], end["reason"]) == (None, "abandoned")
    for name in sorted([alice.name, bob.name]):  # each leaves when its own grace expires, maybe after the end
        await watcher.expect("player_offline", name=name, timeout=5)
    assert len(server.hub.roster) == 1


@with_config(reconnect_grace_s=5.0)
async def test_end_while_away_is_delivered_on_return(connect, store):
    token = await store.add_player("late", "bot")
    alice, bob = await connect(token=token), await connect()
    match = await start_match(alice, bob)
    await alice.close()
    await bob.request("resign", match=match)
    await bob.expect("end", match=match)
    back = await connect(token=token)
    assert back.welcome["resumed"] == []
    assert (await back.expect("end", match=match))["reason"] == "resign"


async def test_disconnecting_spectator_is_forgotten(connect, server):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    watcher = await Client.connect(server.url)
    await watcher.request("spectate", match=match)
    await watcher.close()
    await play_move(alice, match, 0, [1, 1])
    assert (await alice.request("ping"))["type"] == "pong"
    assert not server.hub.matches.live[match].spectators
