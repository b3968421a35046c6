"""Any Arbiter brain as a Gomocup engine: the pbrain protocol as a state machine, lines in, lines out.

The Gomocup managers (Piskvork and the tournament managers) talk to an engine ("brain") over its
standard input and output, one command a line (the "new protocol" of the Gomocup documents):
``START size`` / ``RECTSTART w,h`` (answer ``OK`` or ``ERROR why``), ``RESTART`` (``OK``), ``BEGIN``
(we open: answer our move), ``TURN x,y`` (their move: answer ours), ``BOARD`` + ``x,y,who`` lines +
``DONE`` (a whole position, 1 = our stones, 2 = theirs: answer our move), ``INFO key value`` (time
limits and rules; no answer), ``ABOUT`` (our name), ``END``. A move is ``x,y``, 0-based, x the column.
An engine may also print ``MESSAGE``/``DEBUG``/``ERROR``/``UNKNOWN`` lines at any time.

``SWAP2BOARD`` (Gomocup's swap2 extension, 2020) + stone lines + ``DONE`` asks a swap2 decision: on
an empty board three stones (``x,y x,y x,y``); on three, ``SWAP`` (we take black), one move (we
stay white and play it) or two (we place two more and hand the choice back); on five, ``SWAP`` or a
move. A stone line is ``x,y`` (Gomocup's text) or ``x,y,who`` (BOARD's, as Rapfi reads it); the
stones are black and white alternately from black, whatever ``who`` says. The decisions come from
the brain's own search, as our bots decide them on a server (bots/arbiter/bots/swap.py); the
stones we answer are on our board, so a TURN may follow.

``PbrainEngine`` knows no input or output of its own: ``handle(line)`` returns the lines to print,
and it thinks through the ``Brain`` it is given, so tests drive it line by line. The board maps to
an Arbiter game: 3×3 is tic-tac-toe, 4×4 its 4×4 form (four in a row), anything from 5 up five in a
row on that board under ``INFO rule`` (engine/arbiter/engine/gomocup.py: 0 free style, 1 exact
five, 4 renju, 8 caro, 9 exact-five caro), with the engine's rules, so a forbidden point is never
played. A rule the brain does not play (the alpha-beta bot plays no renju yet) or no rule at all
is refused with an ``ERROR`` line, which is how a Gomocup engine says so, and the rule before it
stays; a size the brain cannot play is an ``ERROR`` at START.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from arbiter.engine import EngineError, Game, ParamError, State, create_game
from arbiter.engine.gomocup import rule_name, rule_params

from .. import swap
from ..brain import Brain, ThinkRequest
from ..timeman import TimeManager, moves_left

FASTEST_MS = 100  # timeout_turn 0 means "as fast as possible"
TURN_SHARE = 0.8  # of timeout_turn, what one search may take (the rest: start-up, output, the manager)
TURN_SAFETY = 0.03  # seconds


class PbrainError(ValueError):
    """A command the engine cannot take; its message becomes the ``ERROR`` line."""


@dataclass
class Limits:
    """INFO's time limits, in milliseconds (Gomocup: 0 match time means no limit)."""

    timeout_turn: int = 5_000
    timeout_match: int = 0
    time_left: int = 0
    rule: int = 0


def board_game(width: int, height: int, rule: int) -> Game:
    """The Arbiter game of a Gomocup board: tic-tac-toe, its 4×4 form, or five in a row under ``rule``
    (ParamError for a board or a rule there is no such game of)."""
    if width == height == 3:
        return create_game("tictactoe")
    if width == height == 4:
        return create_game("tictactoe4")
    return create_game(*rule_params(width, height, rule))


class PbrainEngine:
    """One engine's conversation with its manager; ``handle`` takes a line, returns the lines to print."""

    def __init__(
        self,
        brain: Brain,
        *,
        name: str,
        timeman: TimeManager | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.brain = brain
        self.name = name
        self.timeman = timeman or TimeManager()
        self.clock = clock
        self.limits = Limits()
        self.size: tuple[int, int] | None = None  # from START: the game itself is made at its first move
        self.game: Game | None = None
        self.state: State | None = None
        self.match = 0  # a new id for each game, so the brain never mixes up two games' memory
        self.board_lines: list[tuple[int, int, int]] | None = None  # while a BOARD block comes in
        self.swap_block = False  # whether that block is a SWAP2BOARD's
        self.finished = False

    # --- the conversation ---------------------------------------------------------------------------
    def handle(self, line: str) -> list[str]:
        """The answer to one line from the manager (empty lines are ignored, as the protocol says)."""
        text = line.strip()
        if not text:
            return []
        if self.board_lines is not None:
            return self._board_line(text)
        command, _, argument = text.partition(" ")
        handler = getattr(self, f"_cmd_{command.upper()}", None)
        if handler is None:
            return [f"UNKNOWN {command} is not a command of this engine"]
        try:
            return handler(argument.strip())
        except PbrainError as error:
            return [f"ERROR {error}"]

    def _cmd_START(self, argument: str) -> list[str]:
        try:
            size = int(argument)
        except ValueError:
            raise PbrainError(f"START takes a board size, not {argument!r}") from None
        return self._start(size, size)

    def _cmd_RECTSTART(self, argument: str) -> list[str]:
        width, height = _pair(argument, "RECTSTART takes width,height")
        return self._start(width, height)

    def _cmd_RESTART(self, argument: str) -> list[str]:
        if self.size is None:
            raise PbrainError("RESTART before START")
        return self._start(*self.size)

    def _cmd_BEGIN(self, argument: str) -> list[str]:
        state = self._position()
        if state.ply:
            raise PbrainError("BEGIN on a board that is not empty; RESTART first")
        return self._move()

    def _cmd_TURN(self, argument: str) -> list[str]:
        state = self._position()
        x, y = _pair(argument, "TURN takes x,y")
        self._play(state, x, y)
        return self._move()

    def _cmd_BOARD(self, argument: str) -> list[str]:
        self._position()
        self.board_lines, self.swap_block = [], False
        return []

    def _cmd_SWAP2BOARD(self, argument: str) -> list[str]:
        self._position()
        self.board_lines, self.swap_block = [], True
        return []

    def _cmd_INFO(self, argument: str) -> list[str]:
        key, _, value = argument.partition(" ")
        key = key.lower()
        if key in ("timeout_turn", "timeout_match", "time_left", "rule"):
            try:
                number = int(value)
            except ValueError:
                raise PbrainError(f"INFO {key} takes a whole number, not {value!r}") from None
            if key == "rule":
                return self._rule(number)
            setattr(self.limits, key, max(0, number))
        return []  # max_memory, game_type, folder, evaluate: nothing to do

    def _cmd_ABOUT(self, argument: str) -> list[str]:
        return [f'name="{self.name}", version="{_version()}", author="Arbiter", country="--"']

    def _cmd_END(self, argument: str) -> list[str]:
        self.finished = True
        return []

    def _rule(self, rule: int) -> list[str]:
        """Take ``INFO rule`` if the brain plays five in a row under it (on the board of START, or
        15×15 before one), else an ERROR and the rule stays as it was."""
        try:
            rule_params(15, 15, rule)  # a rule at all, whatever the board
            game = board_game(*(self.size or (15, 15)), rule)
        except ParamError as error:
            raise PbrainError(f"{error}; the rule stays {self.limits.rule}") from None
        if not self.brain.plays(game):
            raise PbrainError(f"{self.brain.name} does not play {rule_name(game)}; the rule stays {self.limits.rule}")
        self.limits.rule = rule
        return []

    # --- positions ------------------------------------------------------------------------------------
    def _start(self, width: int, height: int) -> list[str]:
        try:
            game = board_game(width, height, self.limits.rule)
        except ParamError as error:
            raise PbrainError(f"unsupported board {width}x{height}: {error}") from None
        if not self.brain.plays(game):
            raise PbrainError(f"{self.brain.name} does not play {width}x{height} ({game.name})")
        self._new_game()
        self.size = (width, height)
        return ["OK"]

    def _new_game(self) -> None:
        """Forget the last game; the next is made at its first move (INFO rule may come after START)."""
        if self.state is not None:
            self.brain.forget(f"pbrain-{self.match}")
        self.game, self.state = None, None
        self.match += 1

    def _position(self) -> State:
        if self.size is None:
            raise PbrainError("START first")
        if self.state is None:
            self.game = board_game(*self.size, self.limits.rule)
            self.state = self.game.new_state()
        return self.state

    def _play(self, state: State, x: int, y: int) -> None:
        assert self.game is not None
        try:
            state.play(self.game.decode_move([x, y]))
        except EngineError as error:
            raise PbrainError(f"move {x},{y}: {error}") from None

    def _board_line(self, text: str) -> list[str]:
        assert self.board_lines is not None
        if text.upper() == "DONE":
            stones, self.board_lines = self.board_lines, None
            return self._swap2(stones) if self.swap_block else self._set_board(stones)
        parts = text.split(",")
        if self.swap_block and len(parts) == 2:
            parts.append("0")  # Gomocup's x,y: the colour is the stone's place in the list
        try:
            x, y, who = (int(part) for part in parts)
        except ValueError:
            self.board_lines = None
            shape = "x,y or x,y,who" if self.swap_block else "x,y,who"
            return [f"ERROR a {'SWAP2BOARD' if self.swap_block else 'BOARD'} line is {shape}, not {text!r}; "
                    "the position is left as it was"]  # fmt: skip
        self.board_lines.append((x, y, who))
        return []

    def _swap2(self, stones: list[tuple[int, int, int]]) -> list[str]:
        """A swap2 decision at ``stones`` (0, 3 or 5, black first), answered as the module docstring says."""
        if len(stones) not in (0, 3, 5):
            return [f"ERROR SWAP2BOARD decides at 0, 3 or 5 stones, not {len(stones)}"]
        self._new_game()
        state = self._position()
        assert self.game is not None
        moves = [[x, y] for x, y, _ in stones]
        try:
            for move in moves:
                state.play(self.game.decode_move(move))
        except EngineError as error:
            self.state = None
            return [f"ERROR the stones are not a position of {self.game.name}: {error}"]
        if state.is_terminal:
            self.state = None
            return ["ERROR the position is already over"]
        budget = self._budget(state)
        if moves:  # a choice: SWAP (black), white and its move, or (at three) two more stones
            options = ["black", "white", "place"] if len(moves) == 3 else ["black", "white"]
            choice = self._decide(moves, {"phase": "choose", "stones": len(moves), "options": options}, budget / 3)
            if choice == "black":
                return ["SWAP"]
            if choice == "white":
                return self._move()
        placed: list[list[int]] = []
        upto = 5 if moves else 3  # the opener's three, or two more
        phase: dict[str, Any] = {"phase": "place", "stones": upto, "options": []}
        for _ in range(upto - len(moves)):
            stone = self._decide(moves + placed, phase, budget / 3)
            state.play(self.game.decode_move(stone))
            placed.append(stone)
        return [" ".join(f"{x},{y}" for x, y in placed)]

    def _decide(self, moves: list[list[int]], phase: dict[str, Any], budget: float) -> Any:
        """The brain's swap decision (swap.py, as the client asks it): the next stone or a choice."""
        assert self.game is not None
        decision = {"rule": "swap2", "to_act": 0, "choices": [], **phase}
        request = ThinkRequest(f"pbrain-{self.match}", self.game.name, dict(self.game.params), moves, budget,
                               seed=len(moves), swap=decision)  # fmt: skip
        return swap.decide(self.brain, request).move

    def _set_board(self, stones: list[tuple[int, int, int]]) -> list[str]:
        """A whole position (our stones 1, theirs 2): replayed alternately, the side with more first."""
        self._new_game()
        self._position()
        assert self.game is not None
        ours = [(x, y) for x, y, who in stones if who == 1]
        theirs = [(x, y) for x, y, who in stones if who in (2, 3)]
        if len(theirs) not in (len(ours), len(ours) + 1):
            return [f"ERROR a position with {len(ours)} of our stones and {len(theirs)} of theirs is not our turn"]
        first, second = (theirs, ours) if len(theirs) > len(ours) else (ours, theirs)
        state = self.game.new_state()
        try:
            for i in range(len(first) + len(second)):
                x, y = (first if i % 2 == 0 else second)[i // 2]
                state.play(self.game.decode_move([x, y]))
        except EngineError as error:
            return [f"ERROR the position is not a game of {self.game.name}: {error}"]
        if state.is_terminal:
            return ["ERROR the position is already over"]
        self.state = state
        return self._move()

    # --- thinking -------------------------------------------------------------------------------------
    def _move(self) -> list[str]:
        state = self._position()
        assert self.game is not None
        if state.is_terminal:
            raise PbrainError("the game is over")
        budget = self._budget(state)
        moves = [self.game.encode_move(move) for move in state.moves()]
        request = ThinkRequest(f"pbrain-{self.match}", self.game.name, dict(self.game.params), moves, budget,
                               seed=len(moves), deadline=self.clock() + budget)  # fmt: skip
        result = self.brain.think(request)
        move = self.game.decode_move(result.move)
        state.play(move)
        x, y = self.game.encode_move(move)
        lines = []
        analysis = self.brain.analysis(result)
        if analysis:
            lines.append("MESSAGE " + " ".join(f"{key} {_short(value)}" for key, value in analysis.items()))
        return [*lines, f"{x},{y}"]

    def _budget(self, state: State) -> float:
        """Seconds for this move: most of the turn's limit, and no more than the match's time allows
        (spread by the time manager over the moves still to come)."""
        limits = self.limits
        turn_ms = limits.timeout_turn if limits.timeout_turn > 0 else FASTEST_MS
        budget = max(self.timeman.min_budget, turn_ms / 1000 * TURN_SHARE - TURN_SAFETY)
        if limits.timeout_match > 0:  # 0: no limit on the whole match
            plan = self.timeman.plan(remaining_ms=limits.time_left, moves_left=moves_left(state))
            budget = min(budget, plan.budget)
        return budget


def _pair(text: str, usage: str) -> tuple[int, int]:
    try:
        a, b = (int(part) for part in text.split(","))
    except ValueError:
        raise PbrainError(f"{usage}, not {text!r}") from None
    return a, b


def _short(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(",".join(map(str, move)) for move in value)
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _version() -> str:
    return version("arbiter-bots")
