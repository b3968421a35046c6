"""Takebacks and hints on one match, as pure state: who asked what at which ply, and the match taken back.

Like ``match.py``, nothing here does I/O or reads a clock: a refused request raises ``MatchError``
with its protocol code and changes nothing. A request is tied to the ply it was made at, so any
move played since makes it lapse without anyone having to clear it (``matches.py`` knows nothing of
takebacks). The rules (SPEC.md section 15):

- only in casual matches; a player takes back *its own last move*: one ply if the opponent has
  not answered it yet, two if it has (so a slip noticed after a bot's instant reply can be undone);
  never into the opening, which is no one's;
- the clocks give no time back: each side keeps the time it used, the increments the taken-back
  moves earned are taken off again, and the clock of the side to move starts at the takeback;
- one hint per player and turn, counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arbiter.engine import IllegalMove, MoveFormatError
from arbiter.protocol.errors import ErrorCode

from .match import Match, MatchError


@dataclass(frozen=True, slots=True)
class TakenBackMove:
    """A move the takeback removed: kept in the game's record as taken back."""

    ply: int
    move: list[Any]
    by: int
    elapsed_ms: int


@dataclass(slots=True)
class Asks:
    """One match's standing takeback request and its hints."""

    takeback_by: int | None = None
    takeback_at: int = -1  # the ply the request was made at: it lapses once the match moves on
    declined_at: list[int] = field(
        default_factory=lambda: [-1, -1]
    )  # by colour: the ply its last request was declined at
    hint_asked: list[int] = field(default_factory=lambda: [-1, -1])  # by colour: the ply of its last hint
    hint_waiting: int | None = None  # the colour whose hint the bot is asked for (at ``hint_asked``)
    hints_used: list[int] = field(default_factory=lambda: [0, 0])

    def standing(self, match: Match) -> int | None:
        """The colour whose takeback request stands now, or None."""
        return self.takeback_by if self.takeback_at == match.ply else None

    # --- takebacks -------------------------------------------------------------------------------
    def ask_takeback(self, match: Match, color: int) -> int:
        """``color`` asks to take back its last move: the ply the match would go back to."""
        _require_casual(match, ErrorCode.TAKEBACK_NOT_ALLOWED, "takebacks")
        keep = _own_last_move(match, color)
        if self.standing(match) is not None:
            raise MatchError(ErrorCode.TAKEBACK_PENDING, "a takeback request already stands")
        if self.declined_at[color] == match.ply:
            raise MatchError(ErrorCode.TAKEBACK_PENDING, "your request was declined: play on, or ask after a move")
        self.takeback_by, self.takeback_at = color, match.ply
        return keep

    def decline_takeback(self, match: Match, color: int) -> int:
        """The opponent of ``color`` declines its standing request: the colour that asked."""
        asker = self._asked_of(match, color)
        self.takeback_by = None
        self.declined_at[asker] = match.ply
        return asker

    def accept_takeback(self, match: Match, color: int, now: float) -> tuple[int, list[TakenBackMove]]:
        """``color`` grants its opponent's standing request: the colour that asked and the moves taken back."""
        asker = self._asked_of(match, color)
        taken = take_back(match, _own_last_move(match, asker), now)
        self.takeback_by = None
        return asker, taken

    def _asked_of(self, match: Match, color: int) -> int:
        if match.over:
            raise MatchError(ErrorCode.MATCH_OVER, f"the match is over ({match.result and match.result.reason})")
        asker = self.standing(match)
        if asker is None or asker == color:
            raise MatchError(ErrorCode.NO_TAKEBACK_REQUEST, "the opponent has no takeback request standing")
        return asker

    # --- hints -----------------------------------------------------------------------------------
    def ask_hint(self, match: Match, color: int, *, bot_gives_hints: bool) -> int:
        """``color`` asks for a hint on its turn: the ply the bot is asked about."""
        _require_casual(match, ErrorCode.HINT_NOT_ALLOWED, "hints")
        if not bot_gives_hints:
            raise MatchError(ErrorCode.HINT_NOT_ALLOWED, "the opponent is not a bot that gives hints")
        if color != match.to_move:
            raise MatchError(ErrorCode.NOT_YOUR_TURN, "a hint is for your own turn")
        if self.hint_asked[color] == match.ply:
            raise MatchError(ErrorCode.HINT_USED, "this turn's hint was asked already")
        self.hint_asked[color], self.hint_waiting = match.ply, color
        return match.ply

    def answer_hint(self, match: Match, bot: int, ply: int, wire: Any) -> tuple[int, list[Any], int]:
        """The bot (colour ``bot``) answers the hint asked at ``ply``: the colour it is for, the move
        (re-encoded) and that player's hints so far. An illegal suggestion is refused (``illegal_move``)."""
        asker = self.hint_waiting
        if match.over or asker is None or asker == bot or ply != match.ply or self.hint_asked[asker] != ply:
            raise MatchError(ErrorCode.NO_HINT_REQUEST, f"no hint is awaited of you at ply {ply}")
        trial = match.state.copy()
        try:
            move = trial.play_wire(wire)
        except (MoveFormatError, IllegalMove) as error:
            raise MatchError(ErrorCode.ILLEGAL_MOVE, f"the suggested move is not legal here: {error}") from None
        self.hint_waiting = None
        self.hints_used[asker] += 1
        return asker, move, self.hints_used[asker]


def _require_casual(match: Match, code: ErrorCode, what: str) -> None:
    if match.over:
        raise MatchError(ErrorCode.MATCH_OVER, f"the match is over ({match.result and match.result.reason})")
    if match.rated:
        raise MatchError(code, f"{what} are for casual games only (this one is rated)")


def _own_last_move(match: Match, color: int) -> int:
    """How many moves stay if ``color``'s last move is taken back (with the reply to it, if any)."""
    movers = _movers(match)
    for ply in range(match.ply - 1, max(match.opening, match.ply - 2) - 1, -1):
        if movers[ply] == color:
            return ply
    raise MatchError(ErrorCode.NOTHING_TO_TAKE_BACK, "you have no move of your own to take back")


def _movers(match: Match) -> list[int | None]:
    """Who played each ply: None for the opening's, then the colours in turn (the last, the side not to move)."""
    return [None if ply < match.opening else (match.to_move + match.ply - ply) % 2 for ply in range(match.ply)]


def take_back(match: Match, keep: int, now: float) -> list[TakenBackMove]:
    """Take the match back to its first ``keep`` moves at ``now`` (the clock rules in the docstring)."""
    movers = _movers(match)
    game = match.game
    state = game.new_state()
    for wire in match.moves[:keep]:
        state.play(game.decode_move(wire))
    clock = match.clock
    clock.remaining = [ms / 1000 for ms in clock.remaining_ms(now)]  # the running side's time so far stays used
    taken = []
    for ply in range(keep, match.ply):
        by = movers[ply]
        assert by is not None
        taken.append(TakenBackMove(ply, match.moves[ply], by, match.elapsed_ms[ply]))
        clock.remaining[by] = max(0.0, clock.remaining[by] - clock.increment)
        match.moves_by[by] -= 1
    del match.moves[keep:], match.elapsed_ms[keep:]
    match.state = state
    match.draw_offer = None
    clock.start(state.to_move, now, match.lag[state.to_move])
    return taken
