"""Bot tools: ``arbiter winning-move`` (POJ 1568 by exact search) and ``arbiter bot`` (run or list bots)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

import click

from .errors import fail

POJ_SIDE = 4


class PuzzleFormatError(ValueError):
    """Input that is not a sequence of ``?`` + four board lines, ended by ``$``."""


def parse_puzzles(lines: Iterable[str]) -> list[list[str]]:
    """The boards of a POJ 1568 input, each as four rows of ``x``, ``o`` and ``.``.

    Blank lines are skipped; anything else out of place is a PuzzleFormatError naming the line.
    """
    boards: list[list[str]] = []
    current: list[str] | None = None
    ended = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if ended:
            raise PuzzleFormatError(f"line {number}: {line!r} after the final '$'")
        if current is None:
            if line == "$":
                ended = True
            elif line == "?":
                current = []
            else:
                raise PuzzleFormatError(f"line {number}: expected '?' or '$', not {line!r}")
            continue
        if len(line) != POJ_SIDE or set(line) - set("xo."):
            raise PuzzleFormatError(f"line {number}: a board row is 4 of 'x', 'o', '.', not {line!r}")
        current.append(line)
        if len(current) == POJ_SIDE:
            boards.append(current)
            current = None
    if current is not None:
        raise PuzzleFormatError(f"the input ends inside a board ({len(current)} of 4 rows)")
    if not ended:
        raise PuzzleFormatError("the input does not end with a '$' line")
    return boards


def winning_square(solver, rows: list[str]) -> str:
    """``(r,c)`` of the first square (row-major) from which x, to move, forces a win; else ``#####``.

    A board that already holds a line is over, so no move can win it.
    """
    text = "".join(rows)
    x = sum(1 << i for i, c in enumerate(text) if c == "x")
    o = sum(1 << i for i, c in enumerate(text) if c == "o")
    if solver.has_line(x) or solver.has_line(o):
        return "#####"
    cell = solver.first_forcing_cell(x, o)
    return "#####" if cell < 0 else f"({cell // POJ_SIDE},{cell % POJ_SIDE})"


@click.command("winning-move")
def winning_move() -> None:
    """Solve POJ 1568 "Find the Winning Move" from stdin, by exact search.

    The input repeats a '?' line and four board rows of 'x', 'o' and '.', and ends with '$'. For
    each board, with x to move, print the first square in row-major order from which x forces a
    win on 4x4 four-in-a-row, as (row,col), or ##### when there is none.
    """
    try:
        boards = parse_puzzles(sys.stdin)
    except PuzzleFormatError as error:
        fail(str(error))
    from arbiter.bots.perfect import LineSolver, mnk_lines

    solver = LineSolver(POJ_SIDE * POJ_SIDE, mnk_lines(POJ_SIDE, POJ_SIDE, POJ_SIDE))
    for rows in boards:
        click.echo(winning_square(solver, rows))


@click.command()
@click.option("--list", "list_bots", is_flag=True, help="List the bots and the games each plays, then exit.")
def bot(list_bots: bool) -> None:
    """Run a bot on a server, or list the bots with --list."""
    from arbiter.bots.registry import bot_names, brain_class, games_played

    if list_bots:
        for name in bot_names():
            click.echo(f"{name}: {', '.join(games_played(brain_class(name)))}")
        return
    fail("give --list")


COMMANDS = [winning_move, bot]
