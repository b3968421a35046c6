"""A brain's decisions in a swap opening (swap1, swap2): the stones it proposes and the colour it takes.

Proposals are meant to be balanced, so the other side gains nothing by its choice: the opener's three
stones are one of a few compact shapes around the centre, the one the brain's own evaluation finds
nearest to even; the chooser's two more stones (swap2) are each the nearby cell whose position the
evaluation finds nearest to even. A choice takes the colour the evaluation favours; in swap2 the
chooser places two more stones instead when the position looks even (so the opener must choose).
A brain without an evaluation (``Brain.evaluate`` gives None: the random bot) decides at random.
"""

from __future__ import annotations

import dataclasses
import random
from typing import TYPE_CHECKING

from .brain import ThinkRequest, ThinkResult

if TYPE_CHECKING:
    from .brain import Brain

# The opener's shapes, black-white-black, as offsets from the centre.
SHAPES: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0, 0), (1, 0), (0, 2)),
    ((0, 0), (1, 1), (2, 0)),
    ((0, 0), (0, 1), (2, 1)),
    ((0, 0), (1, 0), (2, 2)),
    ((0, 0), (1, 1), (0, 2)),
    ((0, 0), (-1, 1), (2, 1)),
    ((0, 0), (2, 0), (1, 2)),
    ((0, 0), (1, 2), (2, 0)),
)
EVEN = 0.15  # a value this close to 0 counts as even: swap2's chooser then places two more
CANDIDATES = 8  # cells the chooser weighs for each of its two stones


def decide(brain: Brain, request: ThinkRequest) -> ThinkResult:
    """``request.swap``'s decision: the next stone (a wire move) or one of its ``options``."""
    phase = request.swap or {}
    rng = random.Random(request.seed)
    if phase.get("phase") == "choose":
        return _choose(brain, request, list(phase.get("options") or ["black", "white"]), rng)
    return _place(brain, request, rng)


def _choose(brain: Brain, request: ThinkRequest, options: list[str], rng: random.Random) -> ThinkResult:
    value = brain.evaluate(request)  # for the side to move next: white
    if value is None:
        return ThinkResult(rng.choice(options), {"swap": "random"})
    # An even position is worth handing back (swap2); else the colour the value favours.
    choice = "place" if "place" in options and abs(value) < EVEN else "white" if value >= 0 else "black"
    return ThinkResult(choice, {"swap": choice, "value": round(value, 4)})


def _place(brain: Brain, request: ThinkRequest, rng: random.Random) -> ThinkResult:
    state = request.position()
    m, n = state.game.params["m"], state.game.params["n"]
    centre = (m // 2, n // 2)
    placed = [tuple(move) for move in request.moves]
    if len(placed) < 3:  # the opener: a whole shape consistent with the stones it placed already
        shapes = [[(centre[0] + dx, centre[1] + dy) for dx, dy in shape] for shape in SHAPES]
        fitting = [s for s in shapes if s[: len(placed)] == placed and all(0 <= x < m and 0 <= y < n for x, y in s)]
        if fitting:
            rng.shuffle(fitting)
            best = min(fitting, key=lambda s: _imbalance(brain, request, [list(c) for c in s[len(placed) :]]))
            return ThinkResult(list(best[len(placed)]), {"swap": "shape"})
    empty = [
        (x, y)
        for x in range(m)
        for y in range(n)
        if (x, y) not in placed and any(max(abs(x - a), abs(y - b)) <= 2 for a, b in placed or [centre])
    ]
    rng.shuffle(empty)
    near = sorted(empty, key=lambda c: min(abs(c[0] - a) + abs(c[1] - b) for a, b in placed or [centre]))
    best_cell = min(near[:CANDIDATES], key=lambda c: _imbalance(brain, request, [list(c)]))
    return ThinkResult(list(best_cell), {"swap": "even"})


def _imbalance(brain: Brain, request: ThinkRequest, stones: list[list[int]]) -> float:
    """How far from even the position after ``stones`` looks (0 with no evaluation)."""
    after = dataclasses.replace(
        request, moves=[*request.moves, *stones], budget=request.budget / (2 * CANDIDATES), swap=None
    )
    value = brain.evaluate(after)
    return 0.0 if value is None else abs(value)
