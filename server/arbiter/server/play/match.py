"""One match as a pure state machine: moves checked by the engine, clocks, draw offers, the result.

Nothing here does I/O or reads a clock: every call takes ``now`` (seconds, monotonic scale), and
a request that is not allowed raises ``MatchError`` with a protocol error code and leaves the
match exactly as it was. The server's ``LiveMatch`` wraps it with sockets, timers and storage.

Colours: 0 is the first player, 1 the second. ``ply`` is the index of a move in the match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arbiter.engine import Game, IllegalMove, MoveFormatError
from arbiter.engine.five import FiveState
from arbiter.protocol.errors import ErrorCode, ProtocolError

from ..basics.clock import ClockSpec, FischerClock
from ..results.recovery import VOIDED_REASON

RESULT_STRINGS = {0: "1-0", 1: "0-1", None: "1/2-1/2"}


class MatchError(ProtocolError):
    """A request the match refuses, with the protocol error code the client gets."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a match ended. ``result`` is "1-0", "0-1", "1/2-1/2", or None when aborted (no result)."""

    winner: int | None
    result: str | None
    reason: str

    @classmethod
    def win(cls, winner: int, reason: str) -> Result:
        return cls(winner, RESULT_STRINGS[winner], reason)

    @classmethod
    def draw(cls, reason: str) -> Result:
        return cls(None, RESULT_STRINGS[None], reason)

    @classmethod
    def no_result(cls, reason: str) -> Result:
        return cls(None, None, reason)


@dataclass(slots=True)  # not frozen: built on every move, and a frozen __init__ costs twice as much
class MovePlayed:
    """A move the match accepted: what every player and spectator is told."""

    ply: int
    move: list[Any]  # the wire value, as the engine re-encodes it
    by: int
    clocks_ms: list[int]
    elapsed_ms: int


class Match:
    """The rules, the clock and the outcome of one match between two colours."""

    def __init__(self, match_id: str, game: Game, clock: ClockSpec, *, rated: bool = False) -> None:
        self.id = match_id
        self.game = game
        self.clock_spec = clock
        self.rated = rated
        self.state = game.new_state()
        self.clock = FischerClock(clock)
        self.moves: list[list[Any]] = []
        self.elapsed_ms: list[int] = []
        self.moves_by = [0, 0]
        self.draw_offer: int | None = None  # the colour whose offer stands
        self.result: Result | None = None
        self.started = False
        self.opening = 0  # plies played from a balanced opening before the clocks started (openings.py)
        self.lag = [0.0, 0.0]  # by colour: the network allowance its turns get (its connection's round trip)
        self.renju = isinstance(self.state, FiveState) and game.params["rule"] == "renju"  # black has forbidden points

    # --- lifecycle ------------------------------------------------------------------------------
    def open_with(self, moves: list[Any]) -> None:
        """Play an opening before the start: no clock runs, and the moves count as neither player's.
        ValueError if the opening is not a legal, unfinished start of the game."""
        if self.started or self.moves:
            raise ValueError("an opening is played before anything else")
        for wire in moves:
            self.state.play(self.game.decode_move(wire))
            self.moves.append(self.game.encode_move(self.state.moves()[-1]))
            self.elapsed_ms.append(0)
        if self.state.is_terminal:
            raise ValueError("the opening ends the game")
        self.opening = len(moves)

    def resume(self, moves: list[tuple[Any, int]], now: float, *, charged_s: float = 0.0) -> None:
        """Go on with a match another server was playing (a cluster's failover): replay its stored
        moves after the opening, each charged the time it took, so both clocks stand as they did
        after the last move; the side to move has been thinking for ``charged_s`` by ``now`` (the
        time it had before the other server stopped), the rest of the failover is not charged.
        MatchError if the moves do not replay."""
        at = now - charged_s - sum(elapsed_ms for _, elapsed_ms in moves) / 1000
        self.start(at)
        for wire, elapsed_ms in moves:
            at += elapsed_ms / 1000
            self.play(self.state.to_move, len(self.moves), wire, at)

    def start(self, now: float) -> None:
        """Start the first mover's clock: called when match_start is sent."""
        self.started = True
        self.clock.start(self.state.to_move, now, self.lag[self.state.to_move])

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def to_move(self) -> int:
        return self.state.to_move

    @property
    def ply(self) -> int:
        return len(self.moves)

    def deadline(self) -> float | None:
        """When the side to move's flag falls (None once the match is over)."""
        return self.clock.deadline()

    def clocks_ms(self, now: float) -> list[int]:
        return self.clock.remaining_ms(now)

    def forbidden(self) -> list[dict[str, Any]]:
        """Black's forbidden points as {move, kind} when black is to move in renju (else none), for
        ``moved`` and ``match_state``: a board marks them so a click on one need not be refused. The
        empty cells the legal-move list leaves out: a tenth of the time of asking each cell."""
        state = self.state
        if not self.renju or self.result is not None or state.to_move != 0:
            return []
        assert isinstance(state, FiveState)
        left_out = state.board().ravel() == 0
        left_out[state.legal_actions()] = False
        m = self.game.params["m"]
        points = [(c % m, c // m) for c in left_out.nonzero()[0].tolist()]
        return [{"move": [x, y], "kind": state.forbidden_kind((x, y))} for x, y in points]

    # --- moves ----------------------------------------------------------------------------------
    def play(self, color: int, ply: int, wire: Any, now: float) -> MovePlayed:
        """Play ``color``'s move number ``ply`` received at ``now``.

        MatchError (nothing changed) for a finished match, the wrong side, a stale ply, a malformed
        or illegal move. A move that arrives after the mover's flag fell ends the match on time
        instead and raises MatchError(match_over): check ``over`` afterwards.
        """
        # Every move received comes here: locals, no nested calls where an inline test will do.
        if self.result is not None:
            self._require_live()
        state, clock, moves = self.state, self.clock, self.moves
        if color != state.to_move:
            raise MatchError(ErrorCode.NOT_YOUR_TURN, "it is the opponent's turn")
        if ply != len(moves):
            raise MatchError(ErrorCode.STALE_PLY, f"the next move has ply {len(moves)}, not {ply}")
        if clock.flagged(now):
            self.flag(now)
            raise MatchError(ErrorCode.MATCH_OVER, "the move arrived after your time ran out")
        try:
            encoded = state.play_wire(wire)
        except MoveFormatError as error:
            raise MatchError(ErrorCode.BAD_MOVE, str(error)) from None
        except IllegalMove as error:
            raise MatchError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
        if state.is_terminal:
            outcome = state.outcome
            assert outcome is not None
            self.result = Result(outcome.winner, outcome.result, outcome.reason)
            elapsed = clock.press(now, None)
        else:
            mover = state.to_move
            elapsed = clock.press(now, mover, self.lag[mover])
        moves.append(encoded)
        elapsed_ms = int(elapsed * 1000)
        self.elapsed_ms.append(elapsed_ms)
        self.moves_by[color] += 1
        if self.draw_offer is not None and self.draw_offer != color:
            self.draw_offer = None  # moving instead of accepting declines the opponent's offer
        return MovePlayed(ply, encoded, color, clock.remaining_ms(now), elapsed_ms)

    # --- endings other than the rules -------------------------------------------------------------
    def flag(self, now: float) -> Result | None:
        """End the match on time if the side to move's flag has fallen at ``now``; else None."""
        if self.result is not None or not self.clock.flagged(now):
            return None
        loser = self.clock.running
        assert loser is not None
        self.clock.stop(now)  # a spent total clock shows 0; a spent move limit leaves the rest
        self.result = Result.win(1 - loser, "timeout")
        return self.result

    def resign(self, color: int, now: float) -> Result:
        self._require_live()
        return self._end(Result.win(1 - color, "resign"), now)

    def abort(self, color: int, now: float) -> Result:
        """Allowed while ``color`` has not moved yet; no result."""
        self._require_live()
        if self.moves_by[color]:
            raise MatchError(ErrorCode.ABORT_TOO_LATE, "abort is only allowed before your first move")
        return self._end(Result.no_result("abort"), now)

    def abandon(self, color: int, now: float, *, opponent_present: bool) -> Result:
        """``color`` did not come back within the grace: it loses, or no result if both are gone."""
        self._require_live()
        if opponent_present:
            return self._end(Result.win(1 - color, "abandoned"), now)
        return self._end(Result.no_result("abandoned"), now)

    def ban(self, color: int, now: float, *, opponent_banned: bool = False) -> Result:
        """``color``'s player was banned by an operator: it loses at once (no result if its opponent is banned too)."""
        self._require_live()
        if opponent_banned:
            return self._end(Result.no_result("banned"), now)
        return self._end(Result.win(1 - color, "banned"), now)

    def interrupt(self, now: float) -> Result:
        """The server stops before the end (a drain's deadline): no result, as the restart rule voids a
        game a crash cut short; neither player is to blame."""
        self._require_live()
        return self._end(Result.no_result(VOIDED_REASON), now)

    # --- draw offers ------------------------------------------------------------------------------
    def offer_draw(self, color: int, now: float) -> Result | None:
        """Offer a draw; if the opponent's offer stands, this accepts it (returns the draw)."""
        self._require_live()
        if not self.game.allows_draw_offer:
            raise MatchError(ErrorCode.DRAW_NOT_ALLOWED, f"{self.game.name} does not allow draw offers")
        if self.draw_offer == color:
            raise MatchError(ErrorCode.DRAW_PENDING, "your draw offer already stands")
        if self.draw_offer == 1 - color:
            return self._end(Result.draw("draw_agreed"), now)
        self.draw_offer = color
        return None

    def accept_draw(self, color: int, now: float) -> Result:
        self._require_live()
        if self.draw_offer != 1 - color:
            raise MatchError(ErrorCode.NO_DRAW_OFFER, "the opponent has not offered a draw")
        return self._end(Result.draw("draw_agreed"), now)

    def decline_draw(self, color: int) -> None:
        self._require_live()
        if self.draw_offer != 1 - color:
            raise MatchError(ErrorCode.NO_DRAW_OFFER, "the opponent has not offered a draw")
        self.draw_offer = None

    # --- helpers ----------------------------------------------------------------------------------
    def _require_live(self) -> None:
        if self.result is not None:
            raise MatchError(ErrorCode.MATCH_OVER, f"the match is over ({self.result.reason})")

    def _end(self, result: Result, now: float) -> Result:
        self.clock.stop(now)
        self.draw_offer = None
        self.result = result
        return result
