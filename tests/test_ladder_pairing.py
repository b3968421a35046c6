"""Ladder pairing: rating proximity with randomness, a widening window, no immediate rematch,
alternating colours, capacity for bots that play several matches at once, never one owner's accounts."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise

import pytest

from arbiter.server.ranking.pairing import LadderQueue


def queue(seed: int = 1, **options: float) -> LadderQueue:
    return LadderQueue("gomoku", rng=random.Random(seed), **options)


def test_two_close_players_are_paired_at_once_and_only_once() -> None:
    ladder = queue()
    ladder.join("alice", 1500, now=0)
    assert ladder.pair(now=0) == []
    ladder.join("bob", 1550, now=1)
    [(first, second)] = ladder.pair(now=1)
    assert {first, second} == {"alice", "bob"}
    assert ladder.waiting() == [] and ladder.pair(now=2) == []


def test_accounts_of_one_owner_are_never_paired() -> None:
    ladder = queue(window=1000)
    ladder.join("dana-one", 1500, now=0, owner="dana")
    ladder.join("dana-two", 1500, now=0, owner="dana")
    ladder.join("dana", 1500, now=0, owner="dana")
    assert ladder.pair(now=3600) == []  # however long they wait
    ladder.join("operators-bot", 1500, now=3600)  # nobody's: plays anyone
    ladder.join("eve-bot", 1500, now=3600, owner="eve")
    pairs = ladder.pair(now=3600)
    assert len(pairs) == 2 and all(not set(pair) <= {"dana", "dana-one", "dana-two"} for pair in pairs)


def test_the_window_widens_with_waiting_time() -> None:
    ladder = queue(window=200, widen_per_s=10)
    ladder.join("low", 1200, now=0)
    ladder.join("high", 1700, now=0)
    assert ladder.pair(now=29) == []  # 500 apart: the window reaches 500 after 30 s
    assert len(ladder.pair(now=30)) == 1


def test_close_ratings_are_likely_not_certain() -> None:
    partners: Counter[str] = Counter()
    for seed in range(400):
        ladder = queue(seed)
        ladder.join("me", 1500, now=0)
        ladder.join("near", 1520, now=1)
        ladder.join("far", 1680, now=1)
        [pair] = ladder.pair(now=1)
        partners[(set(pair) - {"me"}).pop()] += 1
    assert partners["near"] > 3 * partners["far"] > 0


def test_no_immediate_rematch_unless_nobody_else_comes() -> None:
    ladder = queue(rematch_after_s=30)
    for name in ("a", "b", "c"):
        ladder.join(name, 1500, now=0)
    first, second = ladder.pair(now=0)[0]
    [third] = set(ladder.members()) - {first, second}
    ladder.match_over(first, second, now=10)
    [pair] = ladder.pair(now=10)  # the one who waited plays one of them; they do not meet again
    assert third in pair
    # Two lone players who just met wait rematch_after_s before meeting again.
    lone = queue(rematch_after_s=30)
    lone.join("x", 1500, now=0)
    lone.join("y", 1500, now=0)
    pair = lone.pair(now=0)[0]
    lone.match_over(*pair, now=100)
    assert lone.pair(now=129) == []
    assert len(lone.pair(now=130)) == 1


def test_rematch_avoided_when_someone_else_waits() -> None:
    ladder = queue(rematch_after_s=30)
    for name in ("a", "b", "c", "d"):
        ladder.join(name, 1500, now=0)
    played = {frozenset(p) for p in ladder.pair(now=0)}
    assert len(played) == 2
    for first, second in list(played):
        ladder.match_over(first, second, now=5)
    again = {frozenset(p) for p in ladder.pair(now=5)}
    assert len(again) == 2 and not again & played


def test_colours_alternate() -> None:
    ladder = queue(rematch_after_s=0)
    ladder.join("a", 1500, now=0)
    ladder.join("b", 1500, now=0)
    firsts = []
    for t in range(10):
        first, second = ladder.pair(now=t)[0]
        firsts.append(first)
        ladder.match_over(first, second, now=t + 0.5)
    assert all(x != y for x, y in pairwise(firsts))


def test_who_moved_first_moves_second_against_a_newcomer() -> None:
    for newcomer_plays in ("first", "second"):
        ladder = queue(rematch_after_s=1000)
        ladder.join("p", 1500, now=0)
        ladder.join("q", 1500, now=0)
        first, second = ladder.pair(now=0)[0]
        ladder.match_over(first, second, now=1)
        ladder.leave(second if newcomer_plays == "first" else first)
        ladder.join("new", 1500, now=1)
        veteran = first if newcomer_plays == "first" else second
        expected = ("new", veteran) if newcomer_plays == "first" else (veteran, "new")
        assert ladder.pair(now=1) == [expected]


def test_capacity_lets_a_bot_play_several_opponents_but_one_match_per_pair() -> None:
    ladder = queue()
    ladder.join("bot", 1500, now=0, capacity=3)
    for name in ("p", "q", "r", "s"):
        ladder.join(name, 1500, now=1)
    live: Counter[frozenset[str]] = Counter()
    for t in range(10):
        for pair in ladder.pair(now=2 + t):
            live[frozenset(pair)] += 1
        for pair in [p for p in live if "bot" not in p]:  # the others finish at once
            ladder.match_over(*pair, now=2.5 + t)
            del live[pair]
    assert sum(1 for p in live if "bot" in p) == 3 and set(live.values()) == {1}
    assert "bot" not in ladder.waiting()
    with pytest.raises(ValueError):
        ladder.join("z", 1500, now=0, capacity=0)


def test_members_who_cannot_play_now_are_skipped() -> None:
    ladder = queue()
    for name in ("a", "b", "c"):
        ladder.join(name, 1500, now=0)
    [pair] = ladder.pair(now=0, can_play=lambda name: name != "a")
    assert set(pair) == {"b", "c"} and ladder.waiting() == ["a"]
    ladder.set_rating("a", 1612.5)
    assert ladder.rating_of("a") == 1612.5 and ladder.rating_of("zed") is None


def test_leaving_mid_match_then_rejoining_keeps_the_count() -> None:
    ladder = queue()
    ladder.join("a", 1500, now=0)
    ladder.join("b", 1500, now=0)
    first, second = ladder.pair(now=0)[0]
    assert ladder.leave("a") and not ladder.leave("a")
    ladder.join("a", 1500, now=1)  # still playing its match: not available
    assert ladder.waiting() == []
    ladder.match_over(first, second, now=2)
    assert ladder.waiting() == ["a", "b"]
