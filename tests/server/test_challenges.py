"""Direct challenges (accept, decline, cancel, expiry, disconnect), open seeks, and their refusals."""

from __future__ import annotations

import pytest

from arbiter.server import ServerConfig

CLOCK = {"initial_ms": 60_000, "increment_ms": 0}


def with_config(**overrides):
    return pytest.mark.parametrize("config", [ServerConfig(port=0, reconnect_grace_s=2.0, **overrides)])


async def challenge(sender, target, **fields):
    message = {"to": target.name, "game": "tictactoe", "clock": CLOCK, **fields}
    return await sender.request("challenge", **message)


async def test_challenge_offered_then_declined(connect, server):
    alice, bob = await connect(), await connect()
    created = await challenge(alice, bob, color="second", params={"exact": True})
    assert created["type"] == "challenge_created"
    offer = created["challenge"]
    assert offer["from"] == alice.name and offer["to"] == bob.name and offer["color"] == "second"
    assert offer["params"] == {"m": 3, "n": 3, "k": 3, "exact": True, "opening": "none"} and offer["rated"] is False
    assert 0 < offer["expires_ms"] <= 60_000
    assert (await bob.expect("challenge_offered"))["challenge"] == offer
    assert (await bob.request("decline", challenge=offer["id"]))["type"] == "ok"
    for client in (alice, bob):
        closed = await client.expect("challenge_closed", challenge=offer["id"])
        assert closed["reason"] == "declined"
    assert (await bob.request("accept", challenge=offer["id"]))["code"] == "unknown_challenge"
    assert not server.hub.matches.live


async def test_challenge_cancelled(connect):
    alice, bob = await connect(), await connect()
    cid = (await challenge(alice, bob))["challenge"]["id"]
    assert (await bob.request("cancel", challenge=cid))["code"] == "not_your_challenge"
    assert (await alice.request("cancel", challenge=cid))["type"] == "ok"
    assert (await bob.expect("challenge_closed", challenge=cid))["reason"] == "cancelled"
    assert (await bob.request("accept", challenge=cid))["code"] == "unknown_challenge"


@with_config(challenge_ttl_s=0.3)
async def test_challenge_expires(connect, server):
    alice, bob = await connect(), await connect()
    created = await challenge(alice, bob)
    cid = created["challenge"]["id"]
    assert created["challenge"]["expires_ms"] <= 300
    for client in (alice, bob):
        assert (await client.expect("challenge_closed", challenge=cid))["reason"] == "expired"
    assert (await bob.request("accept", challenge=cid))["code"] == "unknown_challenge"
    assert not server.hub.challenges.open


async def test_challenger_leaving_closes_its_challenges(connect, server):
    alice, bob = await connect(), await connect()
    cid = (await challenge(alice, bob))["challenge"]["id"]
    await alice.close()
    assert (await bob.expect("challenge_closed", challenge=cid))["reason"] == "offline"
    assert not server.hub.challenges.open


async def test_open_seek_listed_and_accepted(connect):
    watcher, alice, bob = await connect(), await connect(), await connect()
    await watcher.request("subscribe")
    created = await alice.request("challenge", game="gomoku10", clock=CLOCK, color="first")
    seek = created["challenge"]
    assert seek["to"] is None
    assert (await watcher.expect("seek_added"))["seek"]["id"] == seek["id"]
    assert [s["id"] for s in (await bob.request("lobby"))["seeks"]] == [seek["id"]]
    accepted = await bob.request("accept", challenge=seek["id"])
    match = accepted["match"]
    start = await alice.expect("match_start", match=match)
    assert start["color"] == 0 and start["game"] == "gomoku10" and start["challenge"] == seek["id"]
    assert (await bob.expect("match_start", match=match))["challenge"] == seek["id"]
    assert (await alice.expect("challenge_closed", challenge=seek["id"]))["match"] == match
    assert (await watcher.expect("seek_removed", seek=seek["id"]))["reason"] == "accepted"
    listed = await watcher.expect("match_listed")
    assert listed["match"]["match"] == match and listed["match"]["players"] == [alice.name, bob.name]
    lobby = await watcher.request("lobby")
    assert lobby["seeks"] == [] and [m["match"] for m in lobby["matches"]] == [match]
    assert {p["name"]: p["playing"] for p in lobby["players"]}[alice.name] == 1
    await alice.request("resign", match=match)
    unlisted = await watcher.expect("match_unlisted", match=match)
    assert unlisted["result"] == "0-1" and unlisted["reason"] == "resign"


async def test_a_subscriber_sees_a_player_s_live_matches_counted_as_they_start_and_end(connect):
    alice, bob, watcher = await connect(), await connect(), await connect()
    await watcher.request("subscribe")  # after both came online: each presence from now on is a count

    async def counts() -> dict[str, int]:
        updates = [(await watcher.expect("presence"))["player"] for _ in range(2)]
        return {player["name"]: player["playing"] for player in updates}

    cid = (await challenge(alice, bob))["challenge"]["id"]
    match = (await bob.request("accept", challenge=cid))["match"]
    assert await counts() == {alice.name: 1, bob.name: 1}
    assert (await alice.request("resign", match=match))["type"] == "ok"
    assert await counts() == {alice.name: 0, bob.name: 0}
    assert (await watcher.request("ping"))["type"] == "pong"
    assert watcher.pending("presence") == []  # once each: no update that changes nothing


@with_config(seek_ttl_s=0.3)
async def test_seek_expires(connect):
    watcher, alice = await connect(), await connect()
    await watcher.request("subscribe")
    sid = (await alice.request("challenge", game="tictactoe", clock=CLOCK))["challenge"]["id"]
    assert (await watcher.expect("seek_removed", seek=sid))["reason"] == "expired"
    assert (await alice.expect("challenge_closed", challenge=sid))["reason"] == "expired"


async def test_presence_updates_for_subscribers(connect):
    watcher = await connect()
    snapshot = await watcher.request("subscribe")
    assert [p["name"] for p in snapshot["players"]] == [watcher.name]
    bot = await connect(games=["tictactoe", "gomoku"])
    online = await watcher.expect("presence")
    assert online["player"] == {"name": bot.name, "kind": "human", "guest": True, "games": ["tictactoe", "gomoku"],
                                "levels": None, "playing": 0, "away": False}  # fmt: skip
    await bot.close()
    assert (await watcher.expect("player_offline"))["name"] == bot.name
    assert (await watcher.request("unsubscribe"))["type"] == "ok"
    await connect()
    assert (await watcher.request("ping"))["type"] == "pong"
    assert watcher.pending("presence") == []


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"game": "chess"}, "unknown_game"),
        ({"params": {"k": 4}}, "bad_params"),
        ({"params": {"exact": "maybe"}}, "bad_params"),
        ({"params": {"colour": 1}}, "bad_params"),
        ({"clock": {"initial_ms": 10}}, "bad_clock"),
        ({"clock": {"initial_ms": 60_000, "increment_ms": 10**9}}, "bad_clock"),
        ({"clock": {"initial_ms": 60_000, "move_limit_ms": 1}}, "bad_clock"),
        ({"to": "nobody-here"}, "unknown_player"),
        ({"rated": True}, "rated_needs_account"),
        ({"color": "white"}, "bad_field"),
    ],
)
async def test_bad_challenges_are_refused(connect, server, fields, code):
    alice, bob = await connect(), await connect()
    reply = await challenge(alice, bob, **fields)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert not server.hub.challenges.open
    assert bob.pending("challenge_offered") == []


async def test_self_challenge_and_own_seek(connect):
    alice = await connect()
    assert (await challenge(alice, alice))["code"] == "self_challenge"
    sid = (await alice.request("challenge", game="tictactoe", clock=CLOCK))["challenge"]["id"]
    assert (await alice.request("accept", challenge=sid))["code"] == "self_challenge"
    assert (await alice.request("decline", challenge=sid))["code"] == "not_your_challenge"


async def test_only_the_target_accepts_a_direct_challenge(connect, server):
    alice, bob, carol = await connect(), await connect(), await connect()
    cid = (await challenge(alice, bob))["challenge"]["id"]
    assert (await carol.request("accept", challenge=cid))["code"] == "not_your_challenge"
    assert (await carol.request("decline", challenge=cid))["code"] == "not_your_challenge"
    assert cid in server.hub.challenges.open


async def test_rated_challenge_between_registered_players(connect, store):
    alice = await connect(token=await store.add_player("alice", "human"))
    bot = await connect(token=await store.add_player("robo", "bot"))
    created = await challenge(alice, bot, rated=True, color="first")
    accepted = await bot.request("accept", challenge=created["challenge"]["id"])
    start = await alice.expect("match_start", match=accepted["match"])
    assert start["rated"] is True
    assert (await store.get_game(accepted["match"])).start.rated is True


@with_config(max_open_challenges=2)
async def test_too_many_open_challenges(connect):
    alice, bob = await connect(), await connect()
    await challenge(alice, bob)
    await alice.request("challenge", game="tictactoe", clock=CLOCK)
    assert (await challenge(alice, bob))["code"] == "too_many_challenges"


@with_config(max_matches=1)
async def test_too_many_matches(connect, server):
    alice, bob, carol = await connect(), await connect(), await connect()
    first = await challenge(alice, bob)
    await bob.request("accept", challenge=first["challenge"]["id"])
    second = await challenge(carol, alice)
    assert (await alice.request("accept", challenge=second["challenge"]["id"]))["code"] == "too_many_matches"
    assert len(server.hub.matches.live) == 1
    assert second["challenge"]["id"] in server.hub.challenges.open


async def test_a_level_reaches_the_bot_and_both_match_starts(connect, server):
    watcher = await connect()
    await watcher.request("subscribe")
    bot = await connect(games=["tictactoe"], levels=5)
    assert (await watcher.expect("presence"))["player"]["levels"] == 5
    human = await connect()
    created = await challenge(human, bot, level=2, color="first")
    assert created["challenge"]["level"] == 2
    assert (await bot.expect("challenge_offered"))["challenge"]["level"] == 2
    match = (await bot.request("accept", challenge=created["challenge"]["id"]))["match"]
    assert (await bot.expect("match_start", match=match))["levels"] == [None, 2]  # the bot is second
    assert (await human.expect("match_start", match=match))["levels"] == [None, 2]
    assert (await watcher.request("spectate", match=match))["levels"] == [None, 2]
    assert (await challenge(human, bot))["challenge"]["level"] is None  # no level: the bot's own default


@pytest.mark.parametrize("level", [0, 6, "x", True, 2.0, -1])
async def test_a_bad_level_is_refused_and_creates_nothing(connect, server, level):
    bot = await connect(games=["tictactoe"], levels=5)
    human = await connect()
    refused = await challenge(human, bot, level=level)
    assert refused["type"] == "error" and refused["code"] == "bad_field", refused
    assert not server.hub.challenges.open and bot.pending("challenge_offered") == []


async def test_a_level_needs_a_bot_with_levels_and_a_target(connect, server):
    human, other = await connect(), await connect()
    no_levels = await challenge(human, other, level=1)
    assert no_levels["code"] == "bad_field" and "no levels" in no_levels["message"]
    seek = await human.request("challenge", game="tictactoe", clock=CLOCK, level=1)
    assert seek["code"] == "bad_field" and "`to`" in seek["message"]
    assert not server.hub.challenges.open

    newcomer = await connect(hello=False)
    refused = await newcomer.request("hello", protocol=1, client="tests/1", levels=0)
    assert refused["code"] == "bad_field" and "levels" in refused["message"]
