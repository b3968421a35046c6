"""Round robins from the Berger tables: every pair meets once (twice in a double, colours swapped,
one opening), colours balanced, byes for odd fields, the same schedule from the same seed."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.server.tournaments import round_robin
from arbiter.server.tournaments.model import Entrant, FormatError, Pairing


def field(n: int) -> list[Entrant]:
    return [Entrant(f"p{i:02d}", i) for i in range(1, n + 1)]


def games(pairings: list[Pairing]) -> list[Pairing]:
    return [p for p in pairings if p.white is not None]


def test_the_berger_table_of_six_is_fides() -> None:
    # FIDE Handbook C.05 Annex 1, the table for 5 or 6 players
    assert round_robin.berger_rounds(6) == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@given(n=st.integers(2, 24), seed=st.integers(0, 2**32), openings=st.integers(0, 40))
def test_a_single_round_robin_pairs_everyone_once_with_balanced_colours(n: int, seed: int, openings: int) -> None:
    pairings = round_robin.schedule(field(n), double=False, seed=seed, openings=openings)
    rounds = n - 1 if n % 2 == 0 else n
    assert {p.round for p in pairings} == set(range(1, rounds + 1))
    pairs = Counter(frozenset((p.black, p.white)) for p in games(pairings))
    assert len(pairs) == n * (n - 1) // 2 and set(pairs.values()) == {1}
    for r in range(1, rounds + 1):
        seated = [name for p in pairings if p.round == r for name in p.players]
        assert sorted(seated) == [e.name for e in field(n)]  # everyone once a round, a bye included
        assert [p.board for p in pairings if p.round == r] == list(range(1, (n + 1) // 2 + 1))
    first, second = Counter(p.black for p in games(pairings)), Counter(p.white for p in games(pairings))
    for e in field(n):
        assert abs(first[e.name] - second[e.name]) <= 1
    byes = Counter(p.black for p in pairings if p.white is None)
    assert sum(byes.values()) == (rounds if n % 2 else 0) and set(byes.values()) <= {1}
    for p in games(pairings):
        assert (p.opening is None) == (openings == 0)
        assert p.opening is None or 0 <= p.opening < openings


@given(n=st.integers(2, 16), seed=st.integers(0, 2**32), openings=st.integers(0, 10))
def test_a_double_round_robin_plays_each_pair_twice_colours_swapped_from_one_opening(
    n: int, seed: int, openings: int
) -> None:
    pairings = round_robin.schedule(field(n), double=True, seed=seed, openings=openings)
    by_pair: dict[frozenset[str | None], list[Pairing]] = defaultdict(list)
    for p in games(pairings):
        by_pair[frozenset((p.black, p.white))].append(p)
    assert len(by_pair) == n * (n - 1) // 2
    cycle = n - 1 if n % 2 == 0 else n
    for one, two in by_pair.values():
        assert (one.black, one.white) == (two.white, two.black)
        assert one.opening == two.opening
        assert two.round == one.round + cycle
    first, second = Counter(p.black for p in games(pairings)), Counter(p.white for p in games(pairings))
    assert all(first[e.name] == second[e.name] for e in field(n))


def test_openings_are_dealt_evenly() -> None:
    pairings = round_robin.schedule(field(10), double=False, seed=3, openings=15)
    counts = Counter(p.opening for p in pairings)
    assert sorted(counts) == list(range(15)) and set(counts.values()) == {3}  # 45 games over 15 openings


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another() -> None:
    one = round_robin.schedule(field(8), double=True, seed=7, openings=20)
    assert one == round_robin.schedule(list(reversed(field(8))), double=True, seed=7, openings=20)
    assert one != round_robin.schedule(field(8), double=True, seed=8, openings=20)


def test_fields_it_cannot_pair_are_refused_with_a_code() -> None:
    with pytest.raises(FormatError) as small:
        round_robin.schedule(field(1), double=False, seed=1, openings=0)
    assert small.value.code == "field_too_small"
    with pytest.raises(FormatError) as twice:
        round_robin.schedule([Entrant("a", 1), Entrant("a", 2)], double=False, seed=1, openings=0)
    assert twice.value.code == "duplicate_entrant"
    with pytest.raises(FormatError) as bad:
        round_robin.schedule(field(4), double=False, seed=1, openings=-1)
    assert bad.value.code == "bad_openings"
