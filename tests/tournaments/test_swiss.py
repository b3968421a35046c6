"""Swiss pairing in the Dutch manner: no repeat pairing, one bye at most (to the lowest ranked),
colours within ±2 and never three alike in a row, score groups split top half against bottom half,
the same round from the same seed."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server.tournaments import swiss
from arbiter.server.tournaments.model import Entrant, FormatError, Outcome, Pairing


def field(n: int) -> list[Entrant]:
    return [Entrant(f"p{i}", i) for i in range(1, n + 1)]


def play(entrants: list[Entrant], rounds: int, *, seed: int, results: int, trouble: bool = False) -> list[Outcome]:
    """Every round paired and given random results (``results`` seeds them); with ``trouble``, a
    game in ten is forfeited and a player withdraws after round 2."""
    rng = random.Random(results)
    outcomes: list[Outcome] = []
    withdrawn: frozenset[str] = frozenset()
    for r in range(1, rounds + 1):
        for p in swiss.pair_round(entrants, outcomes, r, seed=seed, withdrawn=withdrawn):
            forfeit = "absent" if trouble and p.white is not None and rng.random() < 0.1 else None
            score = None if p.white is None else rng.choice([1.0, 0.0] if forfeit else [1.0, 0.5, 0.0])
            outcomes.append(Outcome(p, score, forfeit))
        if trouble and r == 2:
            withdrawn = frozenset({rng.choice(entrants).name})
    return outcomes


def colours_of(name: str, outcomes: list[Outcome]) -> list[int]:
    """The colours of its games played on the board (a forfeit gives none)."""
    return [
        0 if o.pairing.black == name else 1
        for o in outcomes
        if o.pairing.white and o.forfeit is None and name in o.pairing.players
    ]


@given(seed=st.integers(0, 2**32), results=st.integers(0, 2**32), n=st.sampled_from([9, 9, 9, 8, 13, 24]))
def test_a_swiss_over_all_its_rounds_keeps_the_absolute_rules(seed: int, results: int, n: int) -> None:
    rounds = swiss.rounds_for(n)
    outcomes = play(field(n), rounds, seed=seed, results=results)
    games = [o.pairing for o in outcomes if o.pairing.white is not None]
    assert len({frozenset(p.players) for p in games}) == len(games)  # no repeat pairing
    byes = Counter(o.pairing.black for o in outcomes if o.pairing.white is None)
    assert sum(byes.values()) == (rounds if n % 2 else 0) and set(byes.values()) <= {1}
    for r in range(1, rounds + 1):
        seated = [name for o in outcomes if o.pairing.round == r for name in o.pairing.players]
        assert sorted(seated) == sorted(e.name for e in field(n))
    for entrant in field(n):
        colours = colours_of(entrant.name, outcomes)
        assert abs(colours.count(0) - colours.count(1)) <= 2
        assert all(not (a == b == c) for a, b, c in zip(colours, colours[1:], colours[2:], strict=False))


@given(seed=st.integers(0, 2**32), results=st.integers(0, 2**32), n=st.sampled_from([9, 10, 13]))
def test_forfeits_and_a_withdrawal_break_none_of_the_rules(seed: int, results: int, n: int) -> None:
    outcomes = play(field(n), swiss.rounds_for(n), seed=seed, results=results, trouble=True)
    games = [o.pairing for o in outcomes if o.pairing.white is not None]
    assert len({frozenset(p.players) for p in games}) == len(games)  # a forfeited pairing is a meeting too
    assert set(Counter(o.pairing.black for o in outcomes if o.pairing.white is None).values()) <= {1}
    rounds_of: dict[str, set[int]] = {}
    for o in outcomes:
        for name in o.pairing.players:
            rounds_of.setdefault(name, set()).add(o.pairing.round)
    assert sorted(len(r) for r in rounds_of.values())[0] == 2  # the withdrawn player played rounds 1 and 2 only
    for entrant in field(n):
        colours = colours_of(entrant.name, outcomes)
        assert abs(colours.count(0) - colours.count(1)) <= 2
        assert all(not (a == b == c) for a, b, c in zip(colours, colours[1:], colours[2:], strict=False))


@settings(max_examples=20)
@given(seed=st.integers(0, 2**32), results=st.integers(0, 2**32))
def test_the_same_seed_and_results_give_the_same_rounds(seed: int, results: int) -> None:
    assert play(field(9), 5, seed=seed, results=results) == play(
        list(reversed(field(9))), 5, seed=seed, results=results
    )


def test_round_one_is_the_top_half_against_the_bottom_half_colours_alternating_by_board() -> None:
    pairings = swiss.pair_round(field(8), [], 1, seed=1)
    pairs = [(p.black, p.white) for p in pairings]
    top = pairings[0].black == "p1"  # the lot decides the top seed's colour; the boards alternate
    expected = [("p1", "p5"), ("p6", "p2"), ("p3", "p7"), ("p8", "p4")]
    assert pairs == (expected if top else [(b, a) for a, b in expected])
    lots = {swiss.pair_round(field(8), [], 1, seed=s)[0].black for s in range(20)}
    assert lots == {"p1", "p5"}


def result(round_: int, board: int, black: str, white: str | None, score: float | None) -> Outcome:
    return Outcome(Pairing(round_, board, black, white, None), score)


def test_round_two_pairs_the_score_groups_floating_the_odd_one_down_with_colours_alternating() -> None:
    # round 1 of 6: p1, p2 and p6 won (p6 moving second), p3, p4 and p5 lost
    round1 = [result(1, 1, "p1", "p4", 1.0), result(1, 2, "p5", "p2", 0.0), result(1, 3, "p3", "p6", 0.0)]
    pairings = swiss.pair_round(field(6), round1, 2, seed=3)
    # the 1-point bracket p1 p2 p6: S1 = p1 meets S2's first, p2; p6, its lowest, floats down and
    # meets the highest 0-point player it may: not p3 (met), not p4 (both should move first), p5;
    # p3 and p4 are left. Everyone gets the colour it did not have in round 1.
    assert [(p.board, p.black, p.white) for p in pairings] == [(1, "p2", "p1"), (2, "p6", "p5"), (3, "p4", "p3")]


def test_the_bye_goes_to_the_lowest_ranked_player_who_has_not_had_one() -> None:
    round1 = [result(1, 1, "p1", "p3", 1.0), result(1, 2, "p4", "p2", 0.0), result(1, 3, "p5", None, None)]
    # p3 and p4 lost, p4 is lower seeded and has not had the bye: it gets this one
    bye = [p for p in swiss.pair_round(field(5), round1, 2, seed=1) if p.white is None]
    assert [p.black for p in bye] == ["p4"]
    # a player who won by forfeit is passed over while someone else can take the bye: after two
    # rounds p2, p3 and p4 have a point each; p4, the lowest, won its by forfeit, p3 had the bye
    rounds = [
        result(1, 1, "p1", "p2", 1.0),
        Outcome(Pairing(1, 2, "p3", "p4", None), 0.0, forfeit="absent"),
        result(1, 3, "p5", None, None),
        result(2, 1, "p1", "p5", 0.5),
        result(2, 2, "p4", "p2", 0.0),
        result(2, 3, "p3", None, None),
    ]
    bye = [p for p in swiss.pair_round(field(5), rounds, 3, seed=1) if p.white is None]
    assert [p.black for p in bye] == ["p2"]


def test_withdrawn_players_are_not_paired() -> None:
    round1 = [result(1, 1, "p1", "p3", 1.0), result(1, 2, "p4", "p2", 0.0)]
    pairings = swiss.pair_round(field(4), round1, 2, seed=1, withdrawn=frozenset({"p4"}))
    assert "p4" not in {name for p in pairings for name in p.players}
    assert [p.white for p in pairings].count(None) == 1


def test_openings_are_dealt_per_board_from_the_seed() -> None:
    one = swiss.pair_round(field(10), [], 1, seed=4, openings=7)
    assert all(p.opening is not None and 0 <= p.opening < 7 for p in one)
    assert one == swiss.pair_round(field(10), [], 1, seed=4, openings=7)
    assert all(p.opening is None for p in swiss.pair_round(field(10), [], 1, seed=4))


@pytest.mark.parametrize(("n", "rounds"), [(2, 1), (3, 2), (6, 3), (9, 5), (16, 5), (1000, 11)])
def test_the_derived_number_of_rounds(n: int, rounds: int) -> None:
    assert swiss.rounds_for(n) == rounds


def test_what_cannot_be_paired_is_refused_with_a_code() -> None:
    unfinished = [result(1, 1, "p1", "p2", None)]
    for outcomes, round_, code in [
        (unfinished, 2, "round_unfinished"),
        ([result(1, 1, "p1", "zed", 1.0)], 2, "unknown_player"),
        ([result(2, 1, "p1", "p2", 1.0)], 2, "bad_round"),
        ([result(1, 1, "p1", "p2", 1.0)], 2, "no_pairing"),  # two players who have met
    ]:
        with pytest.raises(FormatError) as error:
            swiss.pair_round(field(2), outcomes, round_, seed=1)
        assert error.value.code == code
    with pytest.raises(FormatError) as error:
        swiss.rounds_for(1)
    assert error.value.code == "field_too_small"


def test_a_bracket_that_cannot_be_completed_takes_the_lowest_two_of_the_one_above() -> None:
    # Round 3 of a random Swiss of ten: p3 and p10, the two players on ½, have met, so the 1-point
    # bracket floats two players down to them, its lowest (p6 and p9), not the highest as merging
    # the brackets would. The pairs are those of caissify-pairings' FIDE Dutch on the same history.
    rng = random.Random(0)
    outcomes: list[Outcome] = []
    for r in (1, 2):
        for p in swiss.pair_round(field(10), outcomes, r, seed=0):
            outcomes.append(Outcome(p, rng.choice([1.0, 0.5, 0.0])))
    points = Counter[str]()
    for o in outcomes:
        assert o.score is not None and o.pairing.white is not None
        points[o.pairing.black] += o.score
        points[o.pairing.white] += 1 - o.score
    assert (points["p3"], points["p10"]) == (0.5, 0.5) and {"p3", "p10"} in [set(o.pairing.players) for o in outcomes]
    pairs = {frozenset(p.players) for p in swiss.pair_round(field(10), outcomes, 3, seed=0)}
    expected = [("p10", "p9"), ("p2", "p5"), ("p4", "p7"), ("p6", "p3"), ("p8", "p1")]
    assert pairs == {frozenset(pair) for pair in expected}
