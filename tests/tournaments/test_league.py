"""Leagues: the first edition's divisions by seed, promotion and relegation between editions."""

from __future__ import annotations

import pytest

from arbiter.server.tournaments import league, round_robin, standings
from arbiter.server.tournaments.model import Entrant, FormatError, Outcome
from arbiter.server.tournaments.standings import Standing


def ranked(*names: str) -> list[Standing]:
    """A final table in this order (the points only make the order)."""
    return [Standing(i + 1, name, float(len(names) - i), 0, 0, 0, 0, {}) for i, name in enumerate(names)]


def test_the_first_edition_splits_the_field_by_seed() -> None:
    field = [Entrant(f"p{i}", i) for i in range(1, 10)]
    assert league.first_edition(field, 4) == [["p1", "p2", "p3", "p4"], ["p5", "p6", "p7", "p8", "p9"]]
    assert league.first_edition(field, 3) == [["p1", "p2", "p3"], ["p4", "p5", "p6"], ["p7", "p8", "p9"]]


def test_the_best_go_up_and_the_worst_go_down_one_division() -> None:
    divisions = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3", "c4"]]
    tables = [ranked("a3", "a1", "a4", "a2"), ranked("b2", "b4", "b1", "b3"), ranked("c4", "c1", "c2", "c3")]
    assert league.next_edition(divisions, tables, promote=1, relegate=1) == [
        ["a3", "a1", "a4", "b2"],
        ["a2", "b4", "b1", "c4"],
        ["b3", "c1", "c2", "c3"],
    ]
    assert league.next_edition(divisions, tables, promote=2, relegate=1) == [
        ["a3", "a1", "a4", "b2", "b4"],
        ["a2", "b1", "c4", "c1"],
        ["b3", "c2", "c3"],
    ]


def test_leavers_and_newcomers() -> None:
    divisions = [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    tables = [ranked("a1", "a2", "a3"), ranked("b1", "b2", "b3")]
    assert league.next_edition(divisions, tables, promote=1, relegate=1, leaving=["a1"], newcomers=["n1", "b2"]) == [
        ["a2", "b1"],
        ["a3", "b2", "b3", "n1"],
    ]


def test_an_edition_played_as_round_robins_promotes_its_winner() -> None:
    divisions = [["a", "b", "c"], ["d", "e", "f"]]
    tables = []
    for division in divisions:
        field = [Entrant(name, i) for i, name in enumerate(division)]
        games = round_robin.schedule(field, double=True, seed=1, openings=0)
        # the lower seed wins every game
        seeds = {e.name: e.seed for e in field}
        outcomes = [
            Outcome(p, None if p.white is None else 1.0 if seeds[p.black] > seeds[p.white] else 0.0) for p in games
        ]
        tables.append(standings.table("round_robin", field, outcomes))
    assert league.next_edition(divisions, tables, promote=1, relegate=1) == [["c", "b", "f"], ["a", "e", "d"]]


def test_impossible_moves_are_refused_with_a_code() -> None:
    divisions = [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]]
    tables = [ranked("a1", "a2"), ranked("b1", "b2"), ranked("c1", "c2")]
    for kwargs, code in [
        ({"tables": tables[:2], "promote": 1, "relegate": 1}, "bad_tables"),
        ({"tables": [ranked("a1", "zz"), *tables[1:]], "promote": 1, "relegate": 1}, "bad_tables"),
        ({"tables": tables, "promote": 2, "relegate": 1}, "bad_promotion"),  # the middle division would move 3 of 2
        ({"tables": tables, "promote": -1, "relegate": 1}, "bad_promotion"),
    ]:
        with pytest.raises(FormatError) as error:
            league.next_edition(divisions, **kwargs)
        assert error.value.code == code
    with pytest.raises(FormatError) as error:
        league.first_edition([Entrant("a", 1), Entrant("b", 2)], 1)
    assert error.value.code == "bad_division"
