"""The swap openings' decisions (swap1, swap2) from any brain's own search: what a brain proposes and chooses.

Every decision weighs positions by the brain's evaluation of them, as ``edge``: the side to move's
advantage in [-1, 1] (a "cp" score squashed by ``CP_SCALE``, a won or lost search ±1, a winning
probability ``2p - 1``; a brain that says nothing counts as even). The decisions:

- **propose** (an empty board): of ``OPENINGS``, three stones each around the centre, the one whose
  position is nearest even for the side to move after it (white) — a proposal the chooser cannot
  profit from by either colour;
- **choose at three stones** (swap1 and swap2's chooser, white to move): white and its move when
  white's edge is at least ``MARGIN``, black (``SWAP``) when at most ``-MARGIN``; in between, in
  swap2, place two more (white's best move, then black's best answer: both sides' best moves keep
  the balance the search found) and hand the choice back; in swap1, the better side by the sign;
- **choose at five stones** (swap2's opener, white to move): white and its move when white's edge
  is not negative, else black.

The searches share the decision's budget equally (``think`` is the brain's ordinary search, at the
brain's own level; a proposal weighs the openings it has time for), so a decision takes about the
time of one move.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from arbiter.engine import EngineError, Game

from ..brain import Brain, ThinkRequest

CP_SCALE = 400.0  # a "cp" score of this much is an edge of tanh(1) ≈ 0.76
WIN_CP = 100_000  # "cp" scores from here on are won (or lost) searches
MARGIN = 0.15  # edge from which the chooser takes a colour rather than placing two more (swap2)
# Three stones (black, white, black) as offsets from the centre: white beside the first black stone, the second
# black stone from near to far (the search rates most near ones clearly black's, the far ones white's).
OPENINGS: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0, 0), (1, 0), (4, 0)),
    ((0, 0), (1, 0), (5, 1)),
    ((0, 0), (1, 0), (-3, 4)),
    ((0, 0), (1, 0), (2, 4)),
    ((0, 0), (1, 1), (3, 3)),
    ((0, 0), (1, 1), (4, 3)),
    ((0, 0), (1, 1), (5, 1)),
    ((0, 0), (1, 1), (-3, 4)),
)


@dataclass(frozen=True)
class Decision:
    """A swap decision: ``take`` a colour ("black", "white") or None, and the stones to place (wire moves)."""

    take: str | None
    stones: list[list[int]]


def edge(brain: type[Brain] | Brain, info: dict[str, Any]) -> float:
    """The side to move's advantage in [-1, 1] from a search's ``info`` (module docstring)."""
    if brain.score_unit == "cp" and isinstance(info.get("score"), int | float):
        score = float(info["score"])
        if abs(score) >= WIN_CP:
            return math.copysign(1.0, score)
        return math.tanh(score / CP_SCALE)
    if brain.score_unit == "win" and isinstance(info.get("value"), int | float):
        return max(-1.0, min(1.0, 2.0 * float(info["value"]) - 1.0))
    return 0.0


class SwapChooser:
    """A brain's swap decisions for the game ``game`` (its rules: ``opening`` plays no part here)."""

    def __init__(self, brain: Brain, game: Game, *, match_id: str, seed: int = 0) -> None:
        self.brain = brain
        self.game = game
        self.match_id = match_id
        self.seed = seed

    def _search(self, moves: list[list[int]], budget: float) -> tuple[list[int], float]:
        """The brain's move in the position of ``moves`` and its edge for the side to move."""
        request = ThinkRequest(f"{self.match_id}-swap", self.game.name, dict(self.game.params), moves, budget,
                               seed=self.seed + len(moves))  # fmt: skip
        result = self.brain.think(request)
        self.brain.forget(request.match_id)  # each probe its own position: no memory between them
        return list(result.move), edge(self.brain, result.info)

    def propose(self, budget: float) -> Decision:
        """Three stones whose position is nearest even (an empty board; module docstring)."""
        openings = self._openings()
        share, ends = budget / len(openings), time.monotonic() + budget
        best: tuple[float, list[list[int]]] | None = None
        for stones in openings:
            if best is not None and time.monotonic() + share > ends:  # the searches ran long: the best so far
                break
            _, advantage = self._search(stones, share)
            if best is None or abs(advantage) < best[0]:
                best = (abs(advantage), stones)
        assert best is not None
        return Decision(None, best[1])

    def choose(self, moves: list[list[int]], budget: float, *, may_place: bool) -> Decision:
        """The decision at three stones (``may_place``: swap2's chooser) or at five (module docstring)."""
        searches = 2 if may_place else 1
        move, advantage = self._search(moves, budget / searches)
        if may_place and abs(advantage) < MARGIN:
            answer, _ = self._search([*moves, move], budget / searches)
            return Decision(None, [move, answer])
        return Decision("white", [move]) if advantage >= 0 else Decision("black", [])

    def _openings(self) -> list[list[list[int]]]:
        """``OPENINGS`` on this board (centred; shapes that do not fit, or are not legal, left out)."""
        m, n = self.game.params["m"], self.game.params["n"]
        cx, cy = m // 2, n // 2
        found = []
        for shape in OPENINGS:
            stones = [[cx + dx, cy + dy] for dx, dy in shape]
            state = self.game.new_state()
            try:
                for stone in stones:
                    state.play(self.game.decode_move(stone))
            except EngineError:  # off a small board, or illegal there: the shape is not offered
                continue
            found.append(stones)
        if not found:
            raise ValueError(f"no three-stone opening fits a {m}x{n} board")
        return found


def swap_decision(brain: Brain, game: Game, moves: list[list[int]], budget: float, *, match_id: str,
                  may_place: bool = True) -> Decision:  # fmt: skip
    """The brain's decision in a swap opening at ``moves`` (0, 3 or 5 stones; module docstring)."""
    chooser = SwapChooser(brain, game, match_id=match_id, seed=len(moves))
    if not moves:
        return chooser.propose(budget)
    if len(moves) not in (3, 5):
        raise ValueError(f"a swap opening decides at 0, 3 or 5 stones, not {len(moves)}")
    return chooser.choose(moves, budget, may_place=may_place and len(moves) == 3)
