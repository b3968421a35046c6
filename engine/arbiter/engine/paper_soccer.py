"""Paper soccer ("Piłkarzyki"): a ball kicked step by step across a field of grid points.

Field. Points are the grid intersections ``(x, y)`` with ``0 <= x <= width`` and
``0 <= y <= length``; y grows southwards. The centre ``c = width // 2`` marks each goal: the goal
points are ``(c-1, -1), (c, -1), (c+1, -1)`` beyond the north side and ``(c-1..c+1, length+1)``
beyond the south side. The field's edges are lines drawn before the game starts, except the goal
mouth between the posts ``(c-1, 0)`` and ``(c+1, 0)`` (likewise at ``y = length``); each goal's side
walls, post to the goal point behind it, are drawn too. The ball starts on ``(c, length // 2)``.

A step moves the ball to one of its 8 neighbours, numbered clockwise from north: 0 N (y-1), 1 NE,
2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW. It draws the segment it runs along, which must never have been
drawn before (so a step never runs along the border or a goal wall) and must stay on the field. A
step into a goal must cross the goal line between the posts: it starts on one of the three points
``(c-1..c+1, 0)`` (or ``y = length``), so a diagonal from beside a post into the goal's corner is
illegal, and so is the straight step from a post (it runs along the wall).

Turns. Landing on a touched point (one where any segment is already drawn, the border included)
is a bounce: the same player steps again. Landing on an untouched point ends the turn.

End. A ball on a goal point ends the game: the north goal (y = -1) is the one the first player
attacks, so a ball there wins for the first player whoever kicked it (an own goal loses), and a
ball in the south goal wins for the second player. A player who must step and has no legal step
is stuck: with ``stuck="lose"`` (the common online rule, the default) that player loses; with
``stuck="draw"`` (the rule of the source document) the game is drawn.

Moves. An *action* is one step (a direction 0..7); the protocol's *move* is a whole turn, the list
of its steps: every step but the last bounces, the last ends the turn or the game. Text notation:
the direction digits in order, e.g. ``"0312"``.

State array after the common header: ``ball`` (a point index), ``closed[points]`` and ``steps[]``.
Point ``(x, y)`` has index ``(y + 1) * (width + 1) + x``, over every grid point with
``-1 <= y <= length + 1``. ``closed[i]`` has bit ``d`` set when the step in direction ``d`` from the
point is not available: its segment is drawn (pre-drawn lines included) or it would leave the
field. Only border points have directions that leave the field, and every border point carries a
pre-drawn line, so a point is touched exactly when ``closed != 0``, and the legal steps from the
ball are the clear bits of its ``closed``. Goal points hold only their drawn bits (the ball never
leaves a goal) and grid points outside field and goals are fully closed. ``steps[ply]`` records
``direction | passed << 3`` (``passed``: the step ended the turn) for undo and for the move list.
``TO_MOVE`` changes only when a turn passes: after a goal it is the player who kicked, after a
player got stuck it is the stuck player. Kernels take ``p = [width, length, stuck_draw]``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
from numba import njit

from .base import (
    HASH,
    HEADER,
    PLY,
    REASON,
    REASON_GOAL,
    REASON_NONE,
    REASON_STUCK,
    STATUS,
    STATUS_DRAW,
    STATUS_ONGOING,
    STATUS_WIN0,
    STATUS_WIN1,
    TO_MOVE,
    EngineError,
    Game,
    IllegalMove,
    Move,
    MoveFormatError,
    Param,
    ParamError,
    State,
)
from .fastrandom import below, seed_from_numpy
from .zobrist import zobrist_table

MAX_SIDE = 30
MAX_POINTS = (MAX_SIDE + 1) * (MAX_SIDE + 3)
# Keys: segment (point, direction 0..3) at 4 * point + direction, ball at BALL_KEYS + point, then the side.
BALL_KEYS = 4 * MAX_POINTS
SIDE_KEY = 5 * MAX_POINTS
ZOBRIST = zobrist_table(5 * MAX_POINTS + 1, seed=0x50CCE2)

DX = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
DY = np.array([-1, -1, 0, 1, 1, 1, 0, -1], dtype=np.int64)
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
ALL_CLOSED = 0xFF
PASSED = 8  # flag in a step record: this step ended the turn

BALL = HEADER  # slot of the ball's point index
CLOSED = HEADER + 1  # first slot of the closed-direction masks

MOVE_LIST_LIMIT = 10_000  # legal_moves() refuses to list more complete turns than this


# --- layout helpers ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def point_count(p):
    """Grid points of the state array: the field plus the goal rows."""
    return (p[0] + 1) * (p[1] + 3)


@njit(cache=True, inline="always")
def point_index(p, x, y):
    """Index of the point (x, y); y may be -1 or length+1 (the goal rows)."""
    return (y + 1) * (p[0] + 1) + x


@njit(cache=True)
def ball_xy(p, s):
    """The ball's (x, y)."""
    columns = p[0] + 1
    return s[BALL] % columns, s[BALL] // columns - 1


@njit(cache=True)
def is_touched(p, s, x, y):
    """Whether a step landing on field point (x, y) would bounce."""
    return s[CLOSED + point_index(p, x, y)] != 0


@njit(cache=True)
def legal_mask(p, s):
    """The legal steps as a bit mask (bit d = direction d), 0 once the game is over."""
    if s[STATUS] != STATUS_ONGOING:
        return 0
    return ~s[CLOSED + s[BALL]] & ALL_CLOSED


@njit(cache=True)
def turn_complete(p, s):
    """Whether no turn is half-played: the last step passed the turn or ended the game (or no step yet).

    A search over whole turns plays steps until this is true again.
    """
    ply = s[PLY]
    if ply == 0 or s[STATUS] != STATUS_ONGOING:
        return True
    return (s[CLOSED + point_count(p) + ply - 1] & PASSED) != 0


@njit(cache=True)
def steps_in_turn(p, s):
    """Steps since the turn last passed: the unfinished turn's so far, or the final turn's once the game is over."""
    stack = CLOSED + point_count(p)
    count = 0
    ply = s[PLY]
    while ply > 0 and (s[stack + ply - 1] & PASSED) == 0:
        count += 1
        ply -= 1
    return count


@njit(cache=True)
def goal_distance(p, s, player):
    """Rows between the ball and the goal ``player`` attacks (1 on that goal line, 0 in the goal)."""
    y = s[BALL] // (p[0] + 1) - 1
    if player == 0:
        return y + 1
    return p[1] + 1 - y


# --- the four kernels every game provides -------------------------------------------------------
@njit(cache=True)
def legal(p, s, out):
    """Write the legal steps in direction order to ``out``; return how many."""
    if s[STATUS] != STATUS_ONGOING:
        return 0
    closed = s[CLOSED + s[BALL]]
    count = 0
    for d in range(8):
        if (closed >> d) & 1 == 0:
            out[count] = d
            count += 1
    return count


@njit(cache=True)
def play(p, s, d):
    """Kick the ball one legal step in direction ``d``: draw it, then bounce, pass the turn or end the game."""
    columns = p[0] + 1
    start = s[BALL]
    target = start + DY[d] * columns + DX[d]
    opposite = (d + 4) & 7
    bounce = s[CLOSED + target] != 0
    s[CLOSED + start] |= 1 << d
    s[CLOSED + target] |= 1 << opposite
    if d < 4:
        s[HASH] ^= ZOBRIST[4 * start + d]
    else:
        s[HASH] ^= ZOBRIST[4 * target + opposite]
    s[HASH] ^= ZOBRIST[BALL_KEYS + start] ^ ZOBRIST[BALL_KEYS + target]
    s[BALL] = target
    record = d
    y = target // columns - 1
    if y < 0:
        s[STATUS] = STATUS_WIN0
        s[REASON] = REASON_GOAL
    elif y > p[1]:
        s[STATUS] = STATUS_WIN1
        s[REASON] = REASON_GOAL
    else:
        if not bounce:
            s[TO_MOVE] = 1 - s[TO_MOVE]
            s[HASH] ^= ZOBRIST[SIDE_KEY]
            record |= PASSED
        if s[CLOSED + target] == ALL_CLOSED:
            s[REASON] = REASON_STUCK
            if p[2]:
                s[STATUS] = STATUS_DRAW
            else:
                s[STATUS] = 2 - s[TO_MOVE]  # the other player wins: STATUS_WIN0 == 1, STATUS_WIN1 == 2
    s[CLOSED + point_count(p) + s[PLY]] = record
    s[PLY] += 1


@njit(cache=True)
def undo(p, s):
    """Take back the last step."""
    columns = p[0] + 1
    s[PLY] -= 1
    slot = CLOSED + point_count(p) + s[PLY]
    record = s[slot]
    s[slot] = 0  # so that undo restores the array exactly, not just the position
    d = record & 7
    opposite = (d + 4) & 7
    target = s[BALL]
    start = target - DY[d] * columns - DX[d]
    s[CLOSED + start] &= ~(1 << d)
    s[CLOSED + target] &= ~(1 << opposite)
    if d < 4:
        s[HASH] ^= ZOBRIST[4 * start + d]
    else:
        s[HASH] ^= ZOBRIST[4 * target + opposite]
    s[HASH] ^= ZOBRIST[BALL_KEYS + start] ^ ZOBRIST[BALL_KEYS + target]
    s[BALL] = start
    if record & PASSED:
        s[TO_MOVE] = 1 - s[TO_MOVE]
        s[HASH] ^= ZOBRIST[SIDE_KEY]
    s[STATUS] = STATUS_ONGOING
    s[REASON] = REASON_NONE


def _open_step_tables() -> tuple[np.ndarray, np.ndarray]:
    """For every 8-bit mask of open steps: how many, and the i-th open direction at ``mask * 8 + i``."""
    counts = np.zeros(256, dtype=np.int64)
    nth = np.zeros(256 * 8, dtype=np.int64)
    for mask in range(256):
        directions = [d for d in range(8) if mask >> d & 1]
        counts[mask] = len(directions)
        nth[mask * 8 : mask * 8 + len(directions)] = directions
    return counts, nth


OPEN_COUNT, NTH_OPEN = _open_step_tables()


@njit(cache=True)
def playout_span(p):
    """State slots ``playout`` reads or writes: the header, the ball and the masks, not the step records."""
    return CLOSED + point_count(p)


@njit(cache=True)
def playout(p, s, buffer):
    """Uniformly random legal steps on ``s`` itself (pass a copy) to the end; return the final status.

    The same game ``play`` would give for the same choices, without its bookkeeping: a step is a
    table lookup (the pick-th open direction of the ball's mask, so the same order as ``legal``),
    two mask updates and the end checks, with the ball and the side to move in registers.
    Afterwards ``s`` holds the drawn segments, the ball, ``TO_MOVE``, ``PLY``, ``STATUS`` and
    ``REASON``; the hash and the step records are not kept (only the result matters to a
    playout). ``buffer`` holds the eight step offsets.
    """
    if s[STATUS] != STATUS_ONGOING:
        return s[STATUS]
    columns = p[0] + 1
    south_goal = (p[1] + 2) * columns  # first point of the south goal row; the north one ends at columns
    for d in range(8):
        buffer[d] = DY[d] * columns + DX[d]
    closed = s[CLOSED:]
    ball = s[BALL]
    to_move = s[TO_MOVE]
    steps = 0
    rng = seed_from_numpy()
    while True:
        open_steps = ~closed[ball] & ALL_CLOSED
        rng, pick = below(rng, OPEN_COUNT[open_steps])
        d = NTH_OPEN[open_steps * 8 + pick]
        target = ball + buffer[d]
        bounce = closed[target] != 0
        closed[ball] |= 1 << d
        closed[target] |= 1 << ((d + 4) & 7)
        ball = target
        steps += 1
        if target < columns:
            status, reason = STATUS_WIN0, REASON_GOAL
            break
        if target >= south_goal:
            status, reason = STATUS_WIN1, REASON_GOAL
            break
        if not bounce:
            to_move = 1 - to_move
        if closed[target] == ALL_CLOSED:
            status = STATUS_DRAW if p[2] else 2 - to_move  # the other player wins: STATUS_WIN0 == 1
            reason = REASON_STUCK
            break
    s[BALL] = ball
    s[TO_MOVE] = to_move
    s[PLY] += steps
    s[STATUS] = status
    s[REASON] = reason
    return status


# --- Python side ------------------------------------------------------------------------------
Point = tuple[int, int]


class TooManyTurns(EngineError):
    """legal_moves() was asked for a position with more complete turns than it will list."""


class PaperSoccerGame(Game):
    """Paper soccer: multi-step turns on a grid, bounce on touched points, score in the far goal."""

    family = "paper_soccer"
    gid = 3
    PARAMS = (
        Param("width", int, 8, "field width in units (even)", minimum=4, maximum=MAX_SIDE),
        Param("length", int, 10, "field length in units, goal line to goal line (even)", minimum=4, maximum=MAX_SIDE),
        Param(
            "stuck",
            str,
            "lose",
            "a player with no legal step loses (lose) or the game is drawn (draw)",
            choices=("lose", "draw"),
        ),
    )

    def validate(self) -> None:
        for name in ("width", "length"):
            if self.params[name] % 2:
                raise ParamError(
                    f"parameter {name!r} must be even (the ball starts on the centre point), not {self.params[name]}"
                )

    def _param_values(self) -> list[int]:
        return [self.params["width"], self.params["length"], int(self.params["stuck"] == "draw")]

    # --- geometry, computed once per game ---------------------------------------------------------
    @property
    def width(self) -> int:
        return self.params["width"]

    @property
    def length(self) -> int:
        return self.params["length"]

    @property
    def points(self) -> int:
        """Grid points in the state array (field and goal rows)."""
        return (self.width + 1) * (self.length + 3)

    @cached_property
    def goal_points(self) -> dict[Point, int]:
        """Each goal point and the player whose goal it is to score in (0 north, 1 south)."""
        c = self.width // 2
        return {(x, y): player for player, y in ((0, -1), (1, self.length + 1)) for x in (c - 1, c, c + 1)}

    @cached_property
    def predrawn(self) -> frozenset[frozenset[Point]]:
        """The lines drawn before the first step: the border except the goal mouths, and the goal walls."""
        w, n, c = self.width, self.length, self.width // 2
        lines = set()
        for y in range(n):
            lines |= {frozenset({(0, y), (0, y + 1)}), frozenset({(w, y), (w, y + 1)})}
        for x in range(w):
            if x not in (c - 1, c):
                lines |= {frozenset({(x, 0), (x + 1, 0)}), frozenset({(x, n), (x + 1, n)})}
        for x in (c - 1, c + 1):
            lines |= {frozenset({(x, 0), (x, -1)}), frozenset({(x, n), (x, n + 1)})}
        return frozenset(lines)

    def on_field(self, point: Point) -> bool:
        x, y = point
        return 0 <= x <= self.width and 0 <= y <= self.length

    def step_target(self, point: Point, d: int) -> Point:
        return point[0] + int(DX[d]), point[1] + int(DY[d])

    def step_stays_in(self, point: Point, d: int) -> bool:
        """Whether a step from field point ``point`` stays on the field or enters a goal through its mouth."""
        target = self.step_target(point, d)
        if self.on_field(target):
            return True
        c = self.width // 2
        goal_line = 0 if target[1] < 0 else self.length
        return target in self.goal_points and point[1] == goal_line and c - 1 <= point[0] <= c + 1

    @cached_property
    def max_steps(self) -> int:
        """Segments that can ever be drawn: no game, and so no turn, has more steps."""
        count = 0.0
        for x in range(self.width + 1):
            for y in range(self.length + 1):
                for d in range(8):
                    target = self.step_target((x, y), d)
                    if self.step_stays_in((x, y), d) and frozenset({(x, y), target}) not in self.predrawn:
                        count += 1 if target in self.goal_points else 0.5
        return int(count)

    @cached_property
    def _start(self) -> np.ndarray:
        s = np.zeros(self.state_size, dtype=np.int64)
        columns = self.width + 1
        closed = s[CLOSED : CLOSED + self.points]
        closed[:] = ALL_CLOSED
        for y in range(-1, self.length + 2):
            for x in range(columns):
                if (x, y) in self.goal_points:
                    mask = 0
                    for d in range(8):
                        if frozenset({(x, y), self.step_target((x, y), d)}) in self.predrawn:
                            mask |= 1 << d
                elif self.on_field((x, y)):
                    mask = 0
                    for d in range(8):
                        segment = frozenset({(x, y), self.step_target((x, y), d)})
                        if segment in self.predrawn or not self.step_stays_in((x, y), d):
                            mask |= 1 << d
                else:
                    continue
                closed[(y + 1) * columns + x] = mask
        centre = (self.length // 2 + 1) * columns + self.width // 2
        s[BALL] = centre
        s[HASH] = ZOBRIST[BALL_KEYS + centre]
        s.flags.writeable = False
        return s

    # --- Game interface ---------------------------------------------------------------------------
    @property
    def state_size(self) -> int:
        return CLOSED + self.points + self.max_steps

    @property
    def max_actions(self) -> int:
        return 8

    def new_state(self) -> PaperSoccerState:
        return PaperSoccerState(self, self._start.copy())

    def decode_move(self, value: Any) -> Move:
        if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= self.max_steps:
            raise MoveFormatError(f"a paper soccer move is a list of 1 to {self.max_steps} steps (0..7), not {value!r}")
        for step in value:
            if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= 7:
                raise MoveFormatError(f"a step is a direction 0..7 (0 north, clockwise), not {step!r}")
        return tuple(int(step) for step in value)

    def move_to_text(self, move: Move) -> str:
        return "".join(str(step) for step in move)

    def move_from_text(self, text: str) -> Move:
        text = text.strip()
        if not text or any(ch not in "01234567" for ch in text):
            raise MoveFormatError(f"{text!r} is not a turn like '0312' (direction digits 0..7, 0 north, clockwise)")
        return self.decode_move([int(ch) for ch in text])


class PaperSoccerState(State):
    game: PaperSoccerGame

    # --- actions (steps) ----------------------------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        out = np.empty(8, dtype=np.int64)
        return out[: legal(self.game.param_array, self.s, out)]

    def _play_action_unchecked(self, action: int) -> None:
        play(self.game.param_array, self.s, action)

    def _undo_action(self) -> None:
        undo(self.game.param_array, self.s)

    # --- moves (turns) ----------------------------------------------------------------------------
    def _move_to_actions(self, move: Move) -> list[int]:
        return list(self.game.decode_move(move))

    def _check_and_play_actions(self, actions: list[int]) -> None:
        mover = self.to_move
        text = self.game.move_to_text(tuple(actions))
        for index, step in enumerate(actions):
            if self.is_terminal or self.to_move != mover:
                raise IllegalMove(f"turn {text} goes on after it ended at step {index}: the ball reached {self.ball}")
            if step not in self.legal_actions():
                name = DIRECTION_NAMES[step]
                raise IllegalMove(f"turn {text}: step {index + 1} ({name}) from {self.ball} {self._why_illegal(step)}")
            self._play_action_unchecked(step)
        if not self.is_terminal and self.to_move == mover:
            raise IllegalMove(
                f"incomplete turn {text}: the ball bounced on {self.ball}, so player {mover} must step again"
            )

    def _why_illegal(self, step: int) -> str:
        ball = self.ball
        target = self.game.step_target(ball, step)
        if not self.game.step_stays_in(ball, step):
            if target in self.game.goal_points:
                return "enters the goal outside the mouth between the posts"
            return "leaves the field"
        if frozenset({ball, target}) in self.game.predrawn:
            return "runs along the border or a goal wall"
        return "runs along a line already drawn"

    def legal_turns(self, limit: int) -> list[Move]:
        """Up to ``limit`` complete turns from here, as step tuples, in depth-first direction order.

        Different step orders that reach the same position are different turns here. Bounce chains
        make the number of turns grow exponentially, so search code should step through actions.
        """
        p, s = self.game.param_array, self.s
        turns: list[Move] = []
        if self.is_terminal or limit <= 0:
            return turns
        mover = self.to_move
        path: list[int] = []
        pending = [list(reversed(self.legal_actions().tolist()))]
        while pending:
            if not pending[-1]:
                pending.pop()
                if path:
                    path.pop()
                    undo(p, s)
                continue
            step = pending[-1].pop()
            play(p, s, step)
            path.append(step)
            if s[STATUS] != STATUS_ONGOING or s[TO_MOVE] != mover:
                turns.append(tuple(path))
                path.pop()
                undo(p, s)
                if len(turns) >= limit:
                    break
            else:
                pending.append(list(reversed(self.legal_actions().tolist())))
        while path:
            path.pop()
            undo(p, s)
        return turns

    def legal_moves(self) -> list[Move]:
        """Every complete turn, if there are at most MOVE_LIST_LIMIT; TooManyTurns otherwise."""
        turns = self.legal_turns(MOVE_LIST_LIMIT + 1)
        if len(turns) > MOVE_LIST_LIMIT:
            raise TooManyTurns(
                f"more than {MOVE_LIST_LIMIT} complete turns here; use legal_turns(limit) or legal_actions()"
            )
        return turns

    def moves(self) -> list[Move]:
        """The turns played so far; a turn still unfinished (steps played with play_action) comes last."""
        stack = CLOSED + self.game.points
        turns: list[Move] = []
        current: list[int] = []
        for record in self.s[stack : stack + self.ply].tolist():
            current.append(record & 7)
            if record & PASSED:
                turns.append(tuple(current))
                current = []
        if current:
            turns.append(tuple(current))
        return turns

    # --- reading the position ---------------------------------------------------------------------
    @property
    def ball(self) -> Point:
        """The ball's point (x, y)."""
        x, y = ball_xy(self.game.param_array, self.s)
        return int(x), int(y)

    def touched(self, point: Point) -> bool:
        """Whether a step onto ``point`` (a field point) would bounce."""
        return bool(is_touched(self.game.param_array, self.s, *point))

    def _drawn(self, a: Point, d: int) -> bool:
        """Whether the segment from ``a`` in direction ``d`` (both ends existing points) is drawn."""
        columns = self.game.width + 1
        b = self.game.step_target(a, d)
        closed_a = int(self.s[CLOSED + (a[1] + 1) * columns + a[0]])
        closed_b = int(self.s[CLOSED + (b[1] + 1) * columns + b[0]])
        return bool(closed_a >> d & 1 and closed_b >> ((d + 4) & 7) & 1)

    def diagram(self) -> str:
        """The field as text: points ``.`` (untouched) or ``+``, the ball ``@``, lines ``- | / \\ X``.

        Row ``y`` of points is text line ``2 * (y + 1)``; column ``x`` is character ``2 * x``.
        """
        game = self.game
        w, n = game.width, game.length

        def exists(point: Point) -> bool:
            return game.on_field(point) or point in game.goal_points

        grid = [[" "] * (2 * w + 1) for _ in range(2 * (n + 2) + 1)]
        for y in range(-1, n + 2):
            for x in range(w + 1):
                if not exists((x, y)):
                    continue
                row, col = 2 * (y + 1), 2 * x
                if (x, y) == self.ball:
                    grid[row][col] = "@"
                else:  # goal points carry only drawn bits, so "touched" reads the same everywhere
                    grid[row][col] = "+" if self.s[CLOSED + (y + 1) * (w + 1) + x] else "."
                if exists((x + 1, y)) and self._drawn((x, y), 2):
                    grid[row][col + 1] = "-"
                if exists((x, y + 1)) and self._drawn((x, y), 4):
                    grid[row + 1][col] = "|"
                if exists((x + 1, y + 1)) and self._drawn((x, y), 3):
                    grid[row + 1][col + 1] = "\\"
                if exists((x - 1, y + 1)) and self._drawn((x, y), 5):
                    grid[row + 1][col - 1] = "X" if grid[row + 1][col - 1] == "\\" else "/"
        lines = ["".join(row).rstrip() for row in grid]
        if self.is_terminal:
            outcome = self.outcome
            assert outcome is not None
            footer = f"game over: {outcome.result} ({outcome.reason})"
        else:
            footer = f"ball on {self.ball}, player {self.to_move} to step"
        return "\n".join(["north goal: player 0 scores here", *lines, "south goal: player 1 scores here", footer])
