"""Reference paper soccer rules: the drawn lines as a set of point pairs, every rule checked literally."""

from __future__ import annotations

from ..base import (
    REASON_GOAL,
    REASON_NONE,
    REASON_STUCK,
    STATUS_DRAW,
    STATUS_ONGOING,
    STATUS_WIN0,
    STATUS_WIN1,
    Game,
)

# Direction d moves the ball by STEPS[d]: 0 north (y - 1), then clockwise.
STEPS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))

Point = tuple[int, int]


class ReferenceSoccer:
    def __init__(self, width: int, length: int, stuck_draw: bool) -> None:
        self.stuck_draw = stuck_draw
        centre = width // 2
        self.field = {(x, y) for x in range(width + 1) for y in range(length + 1)}
        posts = (centre - 1, centre + 1)
        # goal point -> (the goal line the ball must come from, the status a ball there gives)
        self.goals: dict[Point, tuple[int, int]] = {}
        for x in range(centre - 1, centre + 2):
            self.goals[(x, -1)] = (0, STATUS_WIN0)
            self.goals[(x, length + 1)] = (length, STATUS_WIN1)
        self.mouth_x = range(centre - 1, centre + 2)
        self.lines: set[frozenset[Point]] = set()
        for y in range(length):  # the two long sides
            self.lines.add(frozenset({(0, y), (0, y + 1)}))
            self.lines.add(frozenset({(width, y), (width, y + 1)}))
        for y in (0, length):  # the short sides, except the mouth between the posts
            for x in range(width):
                if not (posts[0] <= x and x + 1 <= posts[1]):
                    self.lines.add(frozenset({(x, y), (x + 1, y)}))
        for x in posts:  # goal walls
            self.lines.add(frozenset({(x, 0), (x, -1)}))
            self.lines.add(frozenset({(x, length), (x, length + 1)}))
        self.ball: Point = (centre, length // 2)
        self.to_move = 0
        self.status = STATUS_ONGOING
        self.reason = REASON_NONE

    def _target(self, d: int) -> Point:
        return (self.ball[0] + STEPS[d][0], self.ball[1] + STEPS[d][1])

    def _may_step(self, d: int) -> bool:
        target = self._target(d)
        if frozenset({self.ball, target}) in self.lines:
            return False
        if target in self.field:
            return True
        if target in self.goals:
            goal_line, _ = self.goals[target]
            return self.ball[1] == goal_line and self.ball[0] in self.mouth_x
        return False

    def _touched(self, point: Point) -> bool:
        return any(point in line for line in self.lines)

    def legal_actions(self) -> list[int]:
        if self.status != STATUS_ONGOING:
            return []
        return [d for d in range(8) if self._may_step(d)]

    def play(self, d: int) -> None:
        assert d in self.legal_actions()
        target = self._target(d)
        bounce = self._touched(target)
        self.lines.add(frozenset({self.ball, target}))
        self.ball = target
        if target in self.goals:
            self.status, self.reason = self.goals[target][1], REASON_GOAL
            return
        if not bounce:
            self.to_move = 1 - self.to_move
        if not self.legal_actions():
            self.reason = REASON_STUCK
            self.status = STATUS_DRAW if self.stuck_draw else (STATUS_WIN1 if self.to_move == 0 else STATUS_WIN0)


def new_state(game: Game) -> ReferenceSoccer:
    p = game.params
    return ReferenceSoccer(p["width"], p["length"], p["stuck"] == "draw")
