"""GET /metrics over a real server: the counters and histograms follow real play, and the text parses."""

from __future__ import annotations

import asyncio
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from arbiter.server.metrics import CONTENT_TYPE
from tests.support.wsclient import play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


def fetch(url: str) -> tuple[str, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.headers["Content-Type"], response.read().decode()


async def scrape(server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample on /metrics by (name, labels)."""
    content_type, text = await asyncio.to_thread(fetch, server.http_url + "/metrics")
    assert content_type == CONTENT_TYPE
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def test_metrics_follow_play_errors_and_the_ladder(server, store, connect) -> None:
    before = await scrape(server)
    assert before[("arbiter_connections", ())] == 0 and before[("arbiter_moves_total", ())] == 0

    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    for ply, move in enumerate(FIRST_WINS[:3]):
        await play_move(alice if ply % 2 == 0 else bob, match, ply, move)
    assert (await bob.request("move", match=match, ply=3, move=[0, 0]))["code"] == "illegal_move"
    assert (await bob.request("resign", match="nope"))["code"] == "unknown_match"
    carol = await connect(token=await store.add_player("carol", "bot"))
    assert (await carol.request("ladder_join", game="gomoku"))["type"] == "ladder_joined"

    during = await scrape(server)
    assert during[("arbiter_connections", ())] == 3
    assert during[("arbiter_live_matches", ())] == 1
    assert during[("arbiter_moves_total", ())] == 3
    assert during[("arbiter_moves_per_second", ())] > 0
    assert during[("arbiter_move_latency_seconds_count", ())] == 3
    assert during[("arbiter_move_latency_seconds_bucket", (("le", "+Inf"),))] == 3
    assert 0 < during[("arbiter_move_latency_seconds_sum", ())] < 3  # seconds, from arrival to broadcast
    assert during[("arbiter_errors_total", (("code", "illegal_move"),))] == 1
    assert during[("arbiter_errors_total", (("code", "unknown_match"),))] == 1
    assert during[("arbiter_ladder_queue_size", (("game", "gomoku"),))] == 1
    assert during[("arbiter_ladder_members", (("game", "gomoku"),))] == 1

    for ply, move in enumerate(FIRST_WINS[3:], start=3):
        await play_move(alice if ply % 2 == 0 else bob, match, ply, move)
    await alice.expect("end", match=match)
    await bob.expect("end", match=match)  # sent once the end is committed: the store write is timed by then
    await alice.request("subscribe")
    await carol.close()
    await alice.expect("player_offline", name="carol")  # published after the connection is counted out
    after = await scrape(server)
    assert after[("arbiter_live_matches", ())] == 0
    assert after[("arbiter_moves_total", ())] == 5
    assert after[("arbiter_store_write_seconds_count", ())] == 1
    assert after[("arbiter_connections", ())] == 2


async def test_a_resignation_s_cause_is_counted_by_player_and_cause(server, store, connect) -> None:
    alice, bob = await connect(token=await store.add_player("alice", "bot")), await connect()
    match = await start_match(alice, bob)
    assert (await alice.request("resign", match=match, cause="sometimes"))["code"] == "bad_field"
    assert (await alice.request("resign", match=match, cause="crash"))["type"] == "ok"
    end = await bob.expect("end", match=match)
    assert end["reason"] == "resign"
    samples = await scrape(server)
    assert samples[("arbiter_bot_resignations_total", (("cause", "crash"), ("player", "alice")))] == 1


async def test_guests_share_one_label_so_guest_rounds_add_no_series(server, connect) -> None:
    async def guest_round() -> None:
        first, second = await connect(), await connect()
        match = await start_match(first, second)
        await first.send({"type": "move", "match": match, "ply": 0, "move": [0, 0], "info": {"fallback": "deadline"}})
        await second.expect("moved", match=match, ply=0)
        assert (await second.request("resign", match=match, cause="crash"))["type"] == "ok"
        await first.expect("end", match=match)
        await asyncio.gather(first.close(), second.close())

    await guest_round()
    series = set(await scrape(server))
    for _ in range(20):
        await guest_round()
    samples = await scrape(server)
    assert set(samples) == series  # no series per generated guest name
    assert samples[("arbiter_bot_resignations_total", (("cause", "crash"), ("player", "guest")))] == 21
    assert samples[("arbiter_fallback_moves_total", (("cause", "deadline"), ("player", "guest")))] == 21
