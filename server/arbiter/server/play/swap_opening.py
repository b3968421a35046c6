"""A swap opening (swap1, swap2) as a pure state machine over a ``Match``: who places, who chooses.

In a gomoku-family game with the parameter ``opening`` the colours are not known at the start.
The *opener* (seat 0, ``players[0]`` at the start) places three stones, black, white, black, as
ordinary moves; the *chooser* (seat 1) then takes a colour, or in swap2 places two more stones
(white, black) and hands the choice back to the opener, who takes a colour. Until the colours are
settled the match's colours are the seats (its clocks, results and records read seat for colour);
settling them swaps the two sides when the opener ends with white, and from then on the match goes
on as any other (ply *i* is played by colour *i* mod 2). The clock of whoever must act runs: each
stone and each choice is charged as a move (and earns the increment).

Nothing here does I/O: ``Matches`` calls ``place`` and ``choose`` with the time a message arrived.
A request the phase does not allow raises ``MatchError`` and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arbiter.protocol.errors import ErrorCode

from .match import Match, MatchError, MovePlayed

SWAP_FEATURE = "swap"  # what a client lists in hello.features to be given swap games
RULES = ("swap1", "swap2")
OPENER, CHOOSER = 0, 1
COLOURS = ("black", "white")
PROPOSED = 3  # stones the opener places
EXTENDED = 5  # stones on the board after swap2's "place"


@dataclass(frozen=True, slots=True)
class Choice:
    """One decision of the phase: ``by`` (a seat) chose ``choice`` with ``ply`` stones on the board."""

    by: int
    choice: str
    ply: int

    def describe(self) -> dict[str, Any]:
        return {"by": self.by, "choice": self.choice, "ply": self.ply}


class SwapOpening:
    """The phase of one match: ``place`` (``to_act`` places stones up to ``stones``), ``choose``
    (``to_act`` sends one of ``options()``), then ``done`` with ``colors[seat]`` each seat's colour."""

    __slots__ = ("choices", "colors", "phase", "rule", "stones", "to_act")

    def __init__(self, rule: str) -> None:
        if rule not in RULES:
            raise ValueError(f"no swap opening {rule!r}")
        self.rule = rule
        self.phase = "place"
        self.to_act: int | None = OPENER
        self.stones = PROPOSED
        self.choices: list[Choice] = []
        self.colors: list[int] | None = None  # by seat, once settled

    @property
    def done(self) -> bool:
        return self.phase == "done"

    @property
    def swapped(self) -> bool:
        """The opener ended with white: the seats and the colours are the other way round."""
        return self.colors is not None and self.colors[OPENER] == 1

    def options(self) -> list[str]:
        """What ``to_act`` may choose now (nothing outside the choose phase)."""
        if self.phase != "choose":
            return []
        if self.rule == "swap2" and self.to_act == CHOOSER:
            return [*COLOURS, "place"]
        return list(COLOURS)

    def describe(self) -> dict[str, Any]:
        """The ``swap`` field of match_start, match_state and swapped (SPEC.md, "Swap openings")."""
        return {
            "rule": self.rule,
            "phase": self.phase,
            "to_act": self.to_act,
            "stones": self.stones,
            "options": self.options(),
            "choices": [c.describe() for c in self.choices],
            "colors": self.colors,
        }


def opening_of(match: Match) -> SwapOpening | None:
    """A new phase for ``match`` if its game has a swap opening, else None."""
    rule = match.game.params.get("opening", "none")
    return None if rule == "none" else SwapOpening(rule)


def place(match: Match, opening: SwapOpening, seat: int, ply: int, wire: Any, now: float) -> MovePlayed:
    """``seat`` places the stone number ``ply`` (its colour: the ply's) at ``now``; the placer's
    clock goes on running until its last stone, then the next decider's starts."""
    if match.result is None:
        if opening.phase != "place":
            raise MatchError(ErrorCode.SWAP_PHASE, f"a choice is due ({' | '.join(opening.options())}), not a stone")
        if seat != opening.to_act:
            raise MatchError(ErrorCode.NOT_YOUR_TURN, "the opponent places the opening stones")
    clock, lag = match.clock, match.lag
    played = match.play(match.to_move, ply, wire, now)  # the engine's checks; charges the running clock: the placer's
    match.moves_by[played.by] -= 1  # counted by seat, not by the stone's colour
    match.moves_by[seat] += 1
    actor = seat
    if match.ply >= opening.stones:  # the last stone: a choice is due, the chooser's or (swap2, 5 stones) the opener's
        actor = OPENER if opening.stones == EXTENDED else CHOOSER
        opening.phase, opening.to_act = "choose", actor
    clock.running = actor
    clock.lag = lag[actor]
    played.by = seat
    played.clocks_ms = clock.remaining_ms(now)
    return played


def choose(match: Match, opening: SwapOpening, seat: int, choice: str, now: float) -> Choice:
    """``seat`` chooses at ``now``: a colour (the colours are settled, and swapped when the opener
    ends with white: see ``settle``) or, in swap2, to place two more stones."""
    if match.result is not None:
        raise MatchError(ErrorCode.MATCH_OVER, f"the match is over ({match.result.reason})")
    if opening.phase != "choose":
        what = "stones are being placed" if opening.phase == "place" else "the colours are settled"
        raise MatchError(ErrorCode.SWAP_PHASE, f"no choice is due: {what}")
    if seat != opening.to_act:
        raise MatchError(ErrorCode.NOT_YOUR_TURN, "the opponent chooses")
    options = opening.options()
    if choice not in options:
        raise MatchError(ErrorCode.BAD_FIELD, f"swap.choice must be one of {', '.join(options)} now, not {choice!r}")
    clock = match.clock
    if clock.flagged(now):
        match.flag(now)
        raise MatchError(ErrorCode.MATCH_OVER, "the choice arrived after your time ran out")
    made = Choice(seat, choice, match.ply)
    opening.choices.append(made)
    match.moves_by[seat] += 1  # a decision, as a move: abort is too late after it
    if choice == "place":
        clock.press(now, CHOOSER, match.lag[CHOOSER])
        opening.phase, opening.to_act, opening.stones = "place", CHOOSER, EXTENDED
        return made
    clock.press(now, None)
    colour = COLOURS.index(choice)
    opening.colors = [colour, 1 - colour] if seat == OPENER else [1 - colour, colour]
    opening.phase, opening.to_act = "done", None
    if opening.swapped:
        clock.remaining.reverse()
        match.moves_by.reverse()
        match.lag.reverse()
        if match.draw_offer is not None:
            match.draw_offer = 1 - match.draw_offer
    clock.start(match.to_move, now, match.lag[match.to_move])
    return made


def resume(
    match: Match, opening: SwapOpening, moves: list[tuple[Any, int]], choices: list[Choice], now: float, *,
    charged_s: float = 0.0,
) -> None:  # fmt: skip
    """``Match.resume`` through a swap opening: replay the stored stones and ``choices`` (each at its
    ply; a choice's own time is not stored, so it is charged nothing), the side to act having been
    thinking for ``charged_s`` by ``now``. MatchError if they do not replay."""
    at = now - charged_s - sum(elapsed_ms for _, elapsed_ms in moves) / 1000
    match.start(at)
    pending = sorted(choices, key=lambda c: c.ply)
    for ply, (wire, elapsed_ms) in enumerate([*moves, (None, 0)]):
        while pending and pending[0].ply == ply:
            made = pending.pop(0)
            choose(match, opening, made.by, made.choice, at)
        if wire is None:
            break
        at += elapsed_ms / 1000
        if opening.done:
            match.play(match.to_move, ply, wire, at)
        else:
            assert opening.to_act is not None
            place(match, opening, opening.to_act, ply, wire, at)


def stored_choices(record_swap: list[dict[str, Any]], seats: tuple[str, str]) -> list[Choice]:
    """A record's choices (by player name) as seats' choices, ``seats`` the opener then the chooser."""
    return [Choice(seats.index(c["by"]), c["choice"], c["ply"]) for c in record_swap]


def stored_seats(record_swap: list[dict[str, Any]], players: tuple[str, str]) -> tuple[str, str]:
    """The opener and the chooser of a stored game whose players are in its record's order (colour
    order once a colour was chosen): the first choice is always the chooser's."""
    if not record_swap:
        return players
    chooser = record_swap[0]["by"]
    return (players[1], players[0]) if players[0] == chooser else players
