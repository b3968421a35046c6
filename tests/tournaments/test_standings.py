"""Standings: points, the tie-breaks on small tables computed by hand (one of them published),
forfeits and byes as the formats count them, the crosstable, BayesElo with its intervals."""

from __future__ import annotations

import pytest

from arbiter.server.tournaments import standings
from arbiter.server.tournaments.model import Entrant, FormatError, Outcome, Pairing


def game(round_: int, black: str, white: str | None, score: float | None, forfeit: str | None = None) -> Outcome:
    return Outcome(Pairing(round_, 1, black, white, None), score, forfeit)


def entrants(*names: str) -> list[Entrant]:
    return [Entrant(name, i) for i, name in enumerate(names, 1)]


# Sensei's Library, "Sonneborn-Berger" (senseis.xmp.net/?SonnebornBerger): a double round robin of
# A, B, C, D; A and B score 4, C 3, D 1; Sonneborn-Berger A 11, B 9, C 6, D 4.
SENSEI = [
    game(1, "A", "B", 1.0), game(1, "C", "D", 1.0),
    game(2, "A", "C", 1.0), game(2, "B", "D", 1.0),
    game(3, "A", "D", 1.0), game(3, "B", "C", 1.0),
    game(4, "B", "A", 1.0), game(4, "D", "C", 0.0),
    game(5, "C", "A", 0.0), game(5, "C", "B", 1.0),
    game(6, "D", "A", 1.0), game(6, "D", "B", 0.0),
]  # fmt: skip


def test_sonneborn_berger_and_head_to_head_on_a_published_double_round_robin() -> None:
    table = standings.table("round_robin", entrants("A", "B", "C", "D"), SENSEI)
    assert [(s.rank, s.name, s.points) for s in table] == [(1, "A", 4.0), (2, "B", 4.0), (3, "C", 3.0), (4, "D", 1.0)]
    assert [s.tiebreaks["sonneborn_berger"] for s in table] == [11.0, 9.0, 6.0, 4.0]
    assert [s.tiebreaks["head_to_head"] for s in table] == [1.0, 1.0, 0.0, 0.0]  # A and B won one each
    assert (table[0].played, table[0].wins, table[0].draws, table[0].losses) == (6, 4, 0, 2)


def test_head_to_head_ranks_before_sonneborn_berger() -> None:
    # a single round robin of four, by hand: A and B 2 points, B beat A; A's wins are over the stronger
    outcomes = [
        game(1, "B", "A", 1.0), game(1, "C", "D", 0.5),
        game(2, "A", "C", 1.0), game(2, "D", "B", 0.5),
        game(3, "A", "D", 1.0), game(3, "B", "C", 0.5),
    ]  # fmt: skip
    table = standings.table("round_robin", entrants("A", "B", "C", "D"), outcomes)
    # points A 2, B 2, C 1, D 1; SB A = C 1 + D 1 = 2, B = A 2 + ½·1 + ½·1 = 3; head to head B 1, A 0
    assert [(s.name, s.points, s.tiebreaks["head_to_head"], s.tiebreaks["sonneborn_berger"]) for s in table] == [
        ("B", 2.0, 1.0, 3.0),
        ("A", 2.0, 0.0, 2.0),
        ("C", 1.0, 0.5, 1.5),  # C: ½ with D (level: 1 point each), ½ with B: ½·1 + ½·2
        ("D", 1.0, 0.5, 1.5),
    ]
    assert [s.rank for s in table] == [1, 2, 3, 3]  # C and D level on everything share a rank


def test_buchholz_and_its_median_with_a_bye_and_a_forfeit_as_virtual_opponents() -> None:
    # a Swiss of five over three rounds, by hand
    outcomes = [
        game(1, "A", "B", 1.0), game(1, "C", "D", 0.5), game(1, "E", None, None),
        game(2, "E", "A", 0.0), game(2, "B", "C", 1.0, forfeit="absent"), game(2, "D", None, None),
        game(3, "A", "D", 0.5), game(3, "C", "E", 0.0), game(3, "B", None, None),
    ]  # fmt: skip
    table = {s.name: s for s in standings.table("swiss", entrants("A", "B", "C", "D", "E"), outcomes)}
    # points: A 1+1+½ = 2.5, B 0+1(forfeit)+1(bye) = 2, C ½+0+0 = ½, D ½+1(bye)+½ = 2, E 1(bye)+0+1 = 2
    assert {name: s.points for name, s in table.items()} == {"A": 2.5, "B": 2.0, "C": 0.5, "D": 2.0, "E": 2.0}
    # A met B (2), E (2), D (2): 6, median 2. B met A (2.5), then two unplayed rounds (its own 2 each): 6.5,
    # median 2. C met D (2), the forfeit (its own ½), E (2): 4.5, median 2. D met C (½), bye (2), A (2.5): 5,
    # median 2. E: bye (2), A (2.5), C (½): 5, median 2.
    assert {name: s.tiebreaks["buchholz"] for name, s in table.items()} == {
        "A": 6.0, "B": 6.5, "C": 4.5, "D": 5.0, "E": 5.0,
    }  # fmt: skip
    assert {s.tiebreaks["buchholz_median"] for s in table.values()} == {2.0}
    ranked = standings.table("swiss", entrants("A", "B", "C", "D", "E"), outcomes)
    assert [(s.rank, s.name) for s in ranked] == [(1, "A"), (2, "B"), (3, "D"), (3, "E"), (5, "C")]
    assert (table["B"].played, table["B"].wins, table["B"].losses) == (2, 1, 1)  # the forfeit won counts, the bye not


def test_a_round_robin_bye_scores_nothing_and_unfinished_games_count_for_nothing() -> None:
    outcomes = [game(1, "A", "B", 1.0), game(1, "C", None, None), game(2, "C", "A", None)]
    table = {s.name: s for s in standings.table("round_robin", entrants("A", "B", "C"), outcomes)}
    assert (table["A"].points, table["A"].played, table["C"].points, table["C"].played) == (1.0, 1, 0.0, 0)


def test_the_crosstable_lists_each_pairs_scores_in_round_order() -> None:
    cross = standings.crosstable(entrants("A", "B", "C", "D"), SENSEI)
    assert cross["A"] == {"B": [1.0, 0.0], "C": [1.0, 1.0], "D": [1.0, 0.0]}
    assert cross["D"] == {"C": [0.0, 0.0], "B": [0.0, 0.0], "A": [0.0, 1.0]}
    assert standings.crosstable(entrants("A", "Z"), []) == {"A": {}, "Z": {}}


def test_bayeselo_fits_the_played_games_with_intervals_and_leaves_forfeits_out() -> None:
    outcomes = [*SENSEI, game(7, "A", "D", 1.0, forfeit="absent")]
    ratings = standings.bayeselo(outcomes)
    assert set(ratings) == {"A", "B", "C", "D"}
    assert ratings == standings.bayeselo(SENSEI)  # the forfeit changes nothing
    for elo, low, high in ratings.values():
        assert low < elo < high
    assert ratings["A"][0] > ratings["C"][0] > ratings["D"][0]
    assert abs(sum(elo for elo, _, _ in ratings.values())) < 1e-6  # relative to the field's average


def test_bad_input_is_refused_with_a_code() -> None:
    for kind, outcomes, code in [
        ("knockout", [], "bad_kind"),
        ("swiss", [game(1, "A", "Z", 1.0)], "unknown_player"),
        ("swiss", [game(1, "A", "B", 2.0)], "bad_score"),
    ]:
        with pytest.raises(FormatError) as error:
            standings.table(kind, entrants("A", "B"), outcomes)
        assert error.value.code == code
