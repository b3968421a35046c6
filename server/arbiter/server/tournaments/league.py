"""Leagues as Gomocup runs them: divisions, each a round robin, and between editions promotion
and relegation.

A league is a list of divisions, the top one first, each a list of names. Each edition every
division plays its own round robin (round_robin.py) and is ranked by standings.table; the next
edition moves the ``relegate`` lowest of each division down one and the ``promote`` highest of
each up one. With ``promote == relegate`` the divisions keep their sizes; otherwise they change by
the difference (the top division grows by ``promote − relegate``, the bottom one shrinks by it).
Players level on everything at the line are taken in the table's order (by name).
"""

from __future__ import annotations

from collections.abc import Iterable

from arbiter.server.tournaments.model import Entrant, FormatError, by_seed, check_field
from arbiter.server.tournaments.standings import Standing


def first_edition(entrants: list[Entrant], size: int) -> list[list[str]]:
    """The divisions of a new league: ``size`` players each by seed, the top seeds on top; a last
    division of fewer than two joins the one above it."""
    check_field(entrants)
    if size < 2:
        raise FormatError("bad_division", f"a division has at least 2 players, not {size}")
    names = [e.name for e in by_seed(entrants)]
    divisions = [names[i : i + size] for i in range(0, len(names), size)]
    if len(divisions) > 1 and len(divisions[-1]) < 2:
        last = divisions.pop()
        divisions[-1] += last
    return divisions


def next_edition(
    divisions: list[list[str]],
    tables: list[list[Standing]],
    *,
    promote: int,
    relegate: int,
    leaving: Iterable[str] = (),
    newcomers: Iterable[str] = (),
) -> list[list[str]]:
    """The divisions of the next edition from this one's final tables (one per division, best
    first). In each new division the players relegated into it come first, then those who stayed,
    then those promoted into it, each in their table's order; ``leaving`` players are dropped after
    the moves (a place they leave is not refilled) and ``newcomers`` join the bottom division."""
    if len(tables) != len(divisions):
        raise FormatError("bad_tables", f"{len(divisions)} divisions but {len(tables)} tables")
    if promote < 0 or relegate < 0:
        raise FormatError("bad_promotion", "promote and relegate count players: 0 or more")
    ranked = []
    for i, (division, standings) in enumerate(zip(divisions, tables, strict=True)):
        order = [s.name for s in standings]
        if sorted(order) != sorted(division):
            raise FormatError("bad_tables", f"division {i + 1}'s table does not rank exactly its players")
        up = promote if i > 0 else 0
        down = relegate if i < len(divisions) - 1 else 0
        if up + down > len(order):
            raise FormatError("bad_promotion", f"division {i + 1} has {len(order)} players: it cannot move {up + down}")
        ranked.append(order)
    moved: list[list[str]] = []
    for i, order in enumerate(ranked):
        up = promote if i > 0 else 0
        down = relegate if i < len(ranked) - 1 else 0
        from_above = ranked[i - 1][len(ranked[i - 1]) - relegate :] if i > 0 and relegate else []
        from_below = ranked[i + 1][:promote] if i < len(ranked) - 1 else []
        moved.append([*from_above, *order[up : len(order) - down], *from_below])
    gone = set(leaving)
    new = [[name for name in division if name not in gone] for division in moved]
    already = {name for division in new for name in division}
    new[-1] += [name for name in newcomers if name not in already and name not in gone]
    return new
