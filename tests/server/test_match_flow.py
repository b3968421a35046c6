"""Match endings other than the rules, over sockets: resign, abort, draw offers, flag fall, move limit."""

from __future__ import annotations

from tests.support.wsclient import play_move, start_match


async def test_resign(connect, store):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [1, 1])
    assert (await bob.request("resign", match=match))["type"] == "ok"
    for client in (alice, bob):
        end = await client.expect("end", match=match)
        assert (end["result"], end["winner"], end["reason"], end["ply"]) == ("1-0", 0, "resign", 1)
        assert end["rating_changes"] == {}
    assert (await store.get_game(match)).result == "1-0"
    assert (await alice.request("resign", match=match))["code"] == "match_over"


async def test_abort_before_each_sides_first_move(connect, store):
    alice = await connect(token=await store.add_player("alice", "bot"))
    bob = await connect(token=await store.add_player("bob", "bot"))
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [0, 0])
    assert (await alice.request("abort", match=match))["code"] == "abort_too_late"
    assert (await bob.request("abort", match=match))["type"] == "ok"
    end = await alice.expect("end", match=match)
    assert end["result"] is None and end["winner"] is None and end["reason"] == "abort"
    record = await store.get_game(match)
    assert record.result is None and record.reason == "abort"


async def test_abort_at_once(connect):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    assert (await alice.request("abort", match=match))["type"] == "ok"
    assert (await bob.expect("end", match=match))["reason"] == "abort"


async def test_a_guest_s_aborted_games_are_not_kept(connect, store):
    bot = await connect(token=await store.add_player("bot", "bot"))
    guest, other = await connect(), await connect()
    aborted = [await start_match(guest, other), await start_match(bot, guest)]
    for match in aborted:
        assert (await guest.request("abort", match=match))["type"] == "ok"
        await guest.expect("end", match=match)
    resigned = await start_match(guest, other)
    assert (await guest.request("resign", match=resigned))["type"] == "ok"
    await guest.expect("end", match=resigned)
    assert [await store.get_game(match) for match in aborted] == [None, None]  # filling the store costs nothing
    assert (await store.get_game(resigned)).reason == "resign"  # a played game is kept


async def test_no_abort_after_both_moved(connect):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [0, 0])
    await play_move(bob, match, 1, [1, 1])
    for client in (alice, bob):
        assert (await client.request("abort", match=match))["code"] == "abort_too_late"
    assert (await play_move(alice, match, 2, [2, 2]))["type"] == "moved"


async def test_draw_offer_accepted(connect):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [1, 1])
    assert (await bob.request("accept_draw", match=match))["code"] == "no_draw_offer"
    assert (await alice.request("offer_draw", match=match))["type"] == "ok"
    assert (await alice.request("offer_draw", match=match))["code"] == "draw_pending"
    for client in (alice, bob):
        assert (await client.expect("draw_offered", match=match))["by"] == 0
    assert (await bob.request("accept_draw", match=match))["type"] == "ok"
    end = await alice.expect("end", match=match)
    assert (end["result"], end["winner"], end["reason"]) == ("1/2-1/2", None, "draw_agreed")


async def test_draw_offer_declined_then_lapses_with_a_move(connect, server):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    await alice.request("offer_draw", match=match)
    assert (await bob.request("decline_draw", match=match))["type"] == "ok"
    assert (await alice.expect("draw_declined", match=match))["by"] == 1
    assert (await bob.request("decline_draw", match=match))["code"] == "no_draw_offer"
    await play_move(alice, match, 0, [1, 1])
    await bob.request("offer_draw", match=match)
    await play_move(bob, match, 1, [0, 0])  # the offerer's own move keeps the offer standing
    assert server.hub.matches.live[match].match.draw_offer == 1
    await play_move(alice, match, 2, [2, 2])  # answering with a move declines it
    assert server.hub.matches.live[match].match.draw_offer is None
    assert (await alice.request("accept_draw", match=match))["code"] == "no_draw_offer"


async def test_offering_against_a_standing_offer_agrees(connect):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    await alice.request("offer_draw", match=match)
    await bob.request("offer_draw", match=match)
    assert (await alice.expect("end", match=match))["reason"] == "draw_agreed"


async def test_flag_fall_ends_the_match(connect, store):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob, clock={"initial_ms": 400, "increment_ms": 0})
    for client in (alice, bob):  # nobody moves: the first player's flag falls, the server notices alone
        end = await client.expect("end", match=match, timeout=5)
        assert (end["result"], end["winner"], end["reason"], end["ply"]) == ("0-1", 1, "timeout", 0)
        assert end["clocks"] == [0, 400]
    assert (await store.get_game(match)).reason == "timeout"
    assert (await play_move(alice, match, 0, [1, 1]))["code"] == "match_over"


async def test_per_move_limit(connect):
    alice, bob = await connect(), await connect()
    clock = {"initial_ms": 60_000, "increment_ms": 0, "move_limit_ms": 1_000}
    match = await start_match(alice, bob, clock=clock)
    moved = await play_move(alice, match, 0, [1, 1])
    assert moved["clocks"][0] > 59_000 and moved["elapsed_ms"] < 1_000
    end = await alice.expect("end", match=match, timeout=5)
    assert (end["winner"], end["reason"]) == (0, "timeout")
    assert end["clocks"][1] > 58_000  # the total clock had plenty left: the move limit decided


async def test_increment_is_added_after_each_move(connect):
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob, clock={"initial_ms": 10_000, "increment_ms": 2_000})
    moved = await play_move(alice, match, 0, [1, 1])
    assert 10_000 < moved["clocks"][0] <= 12_000 - moved["elapsed_ms"]
    assert moved["clocks"][1] <= 10_000
