"""The one interface every game shares: rules (`Game`), positions (`State`), parameters, errors.

Two move granularities exist. An *action* is the kernel-level unit a search steps through (an
int: a cell index, or one paper-soccer step). A *move* is the unit a player submits and the
protocol carries (a cell as a tuple, or a whole paper-soccer turn as a tuple of steps). For
every game except paper soccer one move is exactly one action.

Positions live in one flat ``int64`` numpy array whose first ``HEADER`` slots are the same for
every game (see the slot constants below), so generic numba code (perft, playouts, MCTS) can
read the side to move, the status and the hash of any game without knowing which game it is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

# Header slots of every state array.
PLY = 0  # actions played so far
TO_MOVE = 1  # 0 = first player, 1 = second player
STATUS = 2  # one of the STATUS_* values below
HASH = 3  # Zobrist key of the position
REASON = 4  # one of the REASON_* values once the game is over
HEADER = 8  # game-specific data starts here

STATUS_ONGOING = 0
STATUS_WIN0 = 1  # the first player won
STATUS_WIN1 = 2  # the second player won
STATUS_DRAW = 3

REASON_NONE = 0
REASON_LINE = 1  # k (or n) in a row
REASON_GOAL = 2  # paper soccer: the ball reached a goal
REASON_STUCK = 3  # paper soccer: the player to step had no legal step
REASON_BOARD_FULL = 4
REASON_REPETITION = 5  # vanishing: the same position for the n-th time
REASON_MOVE_LIMIT = 6  # vanishing: the ply limit was reached

REASON_NAMES = {
    REASON_NONE: "none",
    REASON_LINE: "line",
    REASON_GOAL: "goal",
    REASON_STUCK: "stuck",
    REASON_BOARD_FULL: "board_full",
    REASON_REPETITION: "repetition",
    REASON_MOVE_LIMIT: "move_limit",
}

Move = tuple[int, ...]


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""


class ParamError(EngineError):
    """An unknown game, an unknown parameter, or a parameter value out of range."""


class MoveFormatError(EngineError):
    """A move that is not even well-formed for this game (wrong shape or type)."""


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid in this position. The state is unchanged."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: ``winner`` is 0, 1 or None for a draw."""

    winner: int | None
    reason: str

    @property
    def result(self) -> str:
        """The result from the first player's side: "1-0", "0-1" or "1/2-1/2"."""
        return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[self.winner]


@dataclass(frozen=True)
class Param:
    """One rule parameter: its type, default and allowed range, validated on every game created."""

    name: str
    kind: type  # int, bool or str
    default: Any
    doc: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None

    def coerce(self, value: Any) -> Any:
        """Turn a wire or command-line value into this parameter's type, or raise ParamError."""
        if isinstance(value, str) and self.kind is not str:
            value = _parse_text(self, value)
        if self.kind is bool:
            if not isinstance(value, bool):
                raise ParamError(f"parameter {self.name!r} must be true or false, not {value!r}")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParamError(f"parameter {self.name!r} must be an integer, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise ParamError(f"parameter {self.name!r} must be at least {self.minimum}, not {value}")
            if self.maximum is not None and value > self.maximum:
                raise ParamError(f"parameter {self.name!r} must be at most {self.maximum}, not {value}")
            return value
        if not isinstance(value, str) or (self.choices and value not in self.choices):
            raise ParamError(f"parameter {self.name!r} must be one of {', '.join(self.choices or ())}, not {value!r}")
        return value

    def describe(self) -> dict[str, Any]:
        """The parameter as a plain msgpack-able map (for the server's handshake)."""
        out: dict[str, Any] = {"name": self.name, "type": self.kind.__name__, "default": self.default, "doc": self.doc}
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.choices:
            out["choices"] = list(self.choices)
        return out


def _parse_text(param: Param, text: str) -> Any:
    if param.kind is bool:
        lowered = text.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        raise ParamError(f"parameter {param.name!r} must be true or false, not {text!r}")
    try:
        return int(text)
    except ValueError:
        raise ParamError(f"parameter {param.name!r} must be an integer, not {text!r}") from None


class Game(ABC):
    """The rules of one game with fixed parameters. Immutable; create states from it.

    Subclasses declare ``family`` (the game's name), ``gid`` (its index in the numba dispatch),
    ``PARAMS`` and implement the abstract methods. ``name`` is the family or the preset name.
    """

    family: ClassVar[str]
    gid: ClassVar[int]
    PARAMS: ClassVar[tuple[Param, ...]]
    allows_draw_offer: ClassVar[bool] = True

    def __init__(self, params: Mapping[str, Any] | None = None, *, name: str | None = None) -> None:
        given = dict(params or {})
        known = {p.name: p for p in self.PARAMS}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ParamError(f"unknown parameter {unknown[0]!r} for {self.family}; known: {', '.join(known)}")
        self.params: dict[str, Any] = {
            p.name: p.coerce(given[p.name]) if p.name in given else p.default for p in self.PARAMS
        }
        self.name = name or self.family
        self.validate()
        self.param_array = np.asarray(self._param_values(), dtype=np.int64)

    def validate(self) -> None:  # noqa: B027 (an optional hook, not an abstract method)
        """Check constraints between parameters; raise ParamError. Single values are already checked."""

    @abstractmethod
    def _param_values(self) -> Sequence[int]:
        """The parameters as the int vector the kernels take."""

    @property
    @abstractmethod
    def state_size(self) -> int:
        """Length of the state array."""

    @property
    @abstractmethod
    def max_actions(self) -> int:
        """Upper bound on the number of legal actions in any position."""

    @abstractmethod
    def new_state(self) -> State:
        """The start position."""

    # --- moves as values, text and wire ---------------------------------------------------
    @abstractmethod
    def decode_move(self, value: Any) -> Move:
        """A wire value (list of ints) to a move; MoveFormatError when it has the wrong shape."""

    def encode_move(self, move: Move) -> list[int]:
        """A move to its wire value: a plain list of ints."""
        return list(move)

    @abstractmethod
    def move_to_text(self, move: Move) -> str:
        """The move in this game's text notation."""

    @abstractmethod
    def move_from_text(self, text: str) -> Move:
        """Parse the text notation; MoveFormatError on anything else."""

    def describe(self) -> dict[str, Any]:
        """The game as a msgpack-able map: name, family and its parameters."""
        return {"name": self.name, "family": self.family, "params": dict(self.params)}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"<{type(self).__name__} {self.name} {args}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.family, self.params) == (other.family, other.params)

    def __hash__(self) -> int:
        return hash((self.family, tuple(sorted(self.params.items()))))


class State(ABC):
    """A mutable position of a game. ``s`` is the state array the kernels work on."""

    def __init__(self, game: Game, s: np.ndarray) -> None:
        self.game = game
        self.s = s
        self._move_plies: list[int] = []  # PLY before each whole move, so undo() can unwind it

    # --- action level (search) --------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> np.ndarray:
        """Legal actions in a fixed order (an int64 array; empty when the game is over)."""

    @abstractmethod
    def _play_action_unchecked(self, action: int) -> None: ...

    @abstractmethod
    def _undo_action(self) -> None: ...

    def is_legal_action(self, action: int) -> bool:
        """Whether ``action`` is legal here. Games whose legality is one lookup override this: the
        server asks it for every move it receives, and listing every legal action is O(board)."""
        return action in self.legal_actions()

    def play_action(self, action: int) -> None:
        """Play one action; IllegalMove (state unchanged) if it is not legal here."""
        if not self.is_legal_action(int(action)):
            raise IllegalMove(f"action {action} is not legal here")
        self._play_action_unchecked(int(action))

    def undo_action(self) -> None:
        """Take back the last action."""
        if self.ply == 0:
            raise IllegalMove("nothing to undo")
        self._undo_action()
        while self._move_plies and self._move_plies[-1] >= self.ply:
            self._move_plies.pop()

    # --- move level (the protocol's unit) -----------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """Every legal move. For paper soccer, prefer legal_actions (turns can be very many)."""
        return [self._action_to_move(int(a)) for a in self.legal_actions()]

    def _action_to_move(self, action: int) -> Move:
        raise NotImplementedError  # games whose move is one action override it

    def _move_to_actions(self, move: Move) -> list[int]:
        raise NotImplementedError

    def play(self, move: Move) -> None:
        """Play a whole move atomically: IllegalMove leaves the state exactly as it was."""
        if self.is_terminal:
            raise IllegalMove("the game is over")
        actions = self._move_to_actions(move)
        start = self.ply
        try:
            self._check_and_play_actions(actions)
        except IllegalMove:
            while self.ply > start:
                self._undo_action()
            raise
        self._move_plies.append(start)

    def play_wire(self, wire: Any) -> list[int]:
        """Decode a move as it came over the wire, play it, and return its canonical wire value.

        The server's one engine call per move received: MoveFormatError or IllegalMove leave the
        state as it was. Games whose moves are single cells override it with a leaner path.
        """
        move = self.game.decode_move(wire)
        self.play(move)
        return self.game.encode_move(move)

    def _check_and_play_actions(self, actions: list[int]) -> None:
        (action,) = actions
        if not self.is_legal_action(action):
            raise IllegalMove(f"{self.game.move_to_text(self._action_to_move(action))} is not legal here")
        self._play_action_unchecked(action)

    def undo(self) -> None:
        """Take back the last whole move played with play()."""
        if not self._move_plies:
            raise IllegalMove("no move to undo")
        start = self._move_plies.pop()
        while self.ply > start:
            self._undo_action()

    # --- reading the position (``item`` gives a Python int in half the time of ``int(s[i])``) -----
    @property
    def ply(self) -> int:
        return self.s.item(PLY)

    @property
    def to_move(self) -> int:
        """0 for the first player, 1 for the second."""
        return self.s.item(TO_MOVE)

    @property
    def status(self) -> int:
        return self.s.item(STATUS)

    @property
    def is_terminal(self) -> bool:
        return self.s.item(STATUS) != STATUS_ONGOING

    @property
    def outcome(self) -> Outcome | None:
        status = self.s.item(STATUS)
        if status == STATUS_ONGOING:
            return None
        winner = {STATUS_WIN0: 0, STATUS_WIN1: 1, STATUS_DRAW: None}[status]
        return Outcome(winner, REASON_NAMES[self.s.item(REASON)])

    def key(self) -> int:
        """Zobrist key of the position (equal positions, equal keys)."""
        return self.s.item(HASH)

    def copy(self) -> State:
        clone = type(self)(self.game, self.s.copy())
        clone._move_plies = list(self._move_plies)
        return clone

    @abstractmethod
    def diagram(self) -> str:
        """A text picture of the position."""

    # --- positions as plain values ------------------------------------------------------------
    def encode(self) -> dict[str, Any]:
        """The position as a msgpack-able map: the game and its move list (replayable exactly)."""
        return {"game": self.game.describe(), "moves": [self.game.encode_move(m) for m in self.moves()]}

    @abstractmethod
    def moves(self) -> list[Move]:
        """The moves played so far, from the start position."""
