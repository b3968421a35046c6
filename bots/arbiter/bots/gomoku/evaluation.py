"""The evaluation's weights, as one value: which table set a board and its search use.

The static evaluation is linear in two kinds of counts (src/arbiter/lab/gomoku_tune.py extracts them):
the live windows of each side by stones missing from k (patterns.py), and the line shapes of the
empty cells of each side, plus three bonuses for cells whose shapes combine into a win, a four-three
or a double three, and optionally a value per pair of a cell's two strongest shapes (shapes.py). The
cell terms may differ for the side to move and the side waiting. ``HAND`` holds the weights set by
hand and short series; ``FITTED`` the ones fitted to game results by src/arbiter/lab/gomoku_tune.py, read
from fitted_eval.json beside this module (the script writes it; nothing is copied by hand).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FITTED_PATH = Path(__file__).with_name("fitted_eval.json")


@dataclass(frozen=True)
class Evaluation:
    """The evaluation's weights. Hashable: the geometry tables are cached per evaluation."""

    name: str
    window_mover: tuple[int, ...]  # by stones missing from k: 0 (never counted), 1 (four), 2, 3, 4, 5 and more
    window_waiter: tuple[int, ...]  # the same for the side not to move, subtracted
    shape: tuple[int, ...]  # per direction, by shape (shapes.NONE .. shapes.FIVE); FIVE is never counted
    win: int  # a cell making an open four or two fours
    four_three: int  # a four and an open three
    double_three: int  # two open threes
    shape_mover: int  # sixteenths: the weight of the mover's shape sum in the evaluation
    shape_waiter: int  # ... and of the other side's
    # The side not to move's own cell values: its 10 shape values then win, four-three, double three.
    # Empty: the same as the mover's (shape, win, four_three, double_three).
    waiter_cell: tuple[int, ...] = ()
    # A cell's value by its two strongest shapes (shapes.pair_class), the mover's and the waiter's; empty: 0.
    mover_pairs: tuple[int, ...] = ()
    waiter_pairs: tuple[int, ...] = ()

    def cell_values(self, waiter: bool) -> tuple[int, ...]:
        """The 10 shape values then the win, four-three and double-three bonuses of the mover or the waiter."""
        if waiter and self.waiter_cell:
            return self.waiter_cell
        return (*self.shape, self.win, self.four_three, self.double_three)

    def pair_values(self, waiter: bool, classes: int) -> tuple[int, ...]:
        """The values of the ``classes`` pair classes of the mover or the waiter (zeros when not set)."""
        values = self.waiter_pairs if waiter else self.mover_pairs
        return values or (0,) * classes


HAND = Evaluation(
    name="hand",
    window_mover=(0, 6000, 320, 24, 3, 1),
    window_waiter=(0, 2500, 110, 16, 2, 1),
    shape=(0, 1, 3, 5, 16, 14, 60, 50, 600, 0),
    win=600,
    four_three=400,
    double_three=200,
    # At 16/16 full strength on 20,000 nodes lost 2 of 20 games to level 1 (test_gomoku_strength), at 8/8 none.
    shape_mover=8,
    shape_waiter=8,
)


def to_json(evaluation: Evaluation) -> dict[str, object]:
    """The evaluation as a JSON object (tuples as lists)."""
    return {name: list(value) if isinstance(value, tuple) else value for name, value in vars(evaluation).items()}


def from_json(data: dict[str, object]) -> Evaluation:
    """An evaluation from ``to_json``'s form; KeyError or TypeError on a malformed one."""
    values = {name: tuple(value) if isinstance(value, list) else value for name, value in data.items()}
    evaluation = Evaluation(**values)  # type: ignore[arg-type]
    if len(evaluation.window_mover) != 6 or len(evaluation.window_waiter) != 6 or len(evaluation.shape) != 10:
        raise ValueError(f"evaluation {evaluation.name!r}: 6 window weights a side and 10 shape values expected")
    if len(evaluation.waiter_cell) not in (0, 13):
        raise ValueError(f"evaluation {evaluation.name!r}: the waiter's cell values are 10 shapes and 3 bonuses")
    return evaluation


def load(path: Path = FITTED_PATH) -> Evaluation:
    """The evaluation stored at ``path`` (its "evaluation" member; "fit" says how it was made)."""
    return from_json(json.loads(path.read_text())["evaluation"])


FITTED = load()
