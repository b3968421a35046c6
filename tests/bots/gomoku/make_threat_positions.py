"""Generate the threat-search test positions: forced wins to find and only defences to find.

    python tests/bots/gomoku/make_threat_positions.py [SEED] > tests/bots/gomoku/threat_positions.json

Positions come from random games on 10×10 (five or more wins), each stone placed next to one
already down, from a fixed seed, so the file is reproducible. The independent solver
(gomoku_solver.py, plain Python, nothing shared with the bot) labels them:

- **win**: the side to move has no four to answer and wins by continuous fours; ``plies`` is the
  length of its shortest such win (its stones and the replies, the winning stone included);
- **defence**: the opponent would win by continuous fours within MAX_PLIES if it were to move, the
  side to move has no such win of its own, and exactly one of its moves leaves the opponent
  without one: ``answer`` is that cell.

The tests (test_gomoku_threats.py) check every label again with the solver before asking the bot.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gomoku_solver import Position, forced_win, shortest_forced_win

SIZE = 10
K = 5
MAX_PLIES = 9  # five attacking fours at most
WANTED = 50
SEED = 7


def child(position: Position, cell: int) -> Position:
    """The position after the side to move plays ``cell``."""
    after = Position(position.m, position.n, position.k, position.exact)
    after.board = list(position.board)
    after.board[cell] = position.to_move
    return after


def classify(position: Position) -> dict | None:
    """The position's label (see the module's docstring), or None when it is neither kind."""
    mover = position.to_move
    other = 3 - mover
    if position.winning_cells(mover) or position.winning_cells(other):
        return None
    plies = shortest_forced_win(position, mover, MAX_PLIES, fours_only=True)
    if plies is not None:
        return {"kind": "win", "plies": plies} if plies >= 3 else None
    if not forced_win(position, other, MAX_PLIES, fours_only=True, mover=other):
        return None
    saving = [c for c in position.empty() if not forced_win(child(position, c), other, MAX_PLIES, fours_only=True)]
    if len(saving) == 1:
        return {"kind": "defence", "answer": saving[0]}
    return None


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else SEED
    rng = random.Random(seed)
    found: dict[str, list[dict]] = {"win": [], "defence": []}
    seen: set[tuple[int, ...]] = set()
    while min(len(v) for v in found.values()) < WANTED:
        position = Position(SIZE, SIZE, K, False)
        moves: list[int] = []
        for _ in range(rng.randint(12, 30)):
            if moves:
                near = {q for c in moves for q in _touching(c)} - set(moves)
                cell = rng.choice(sorted(near))
            else:
                cell = rng.randrange(SIZE * SIZE)
            if position.completes(cell, position.to_move):
                break
            position.board[cell] = position.to_move
            moves.append(cell)
        key = tuple(position.board)
        if key in seen:
            continue
        seen.add(key)
        label = classify(position)
        if label and len(found[label["kind"]]) < WANTED:
            found[label["kind"]].append({"moves": moves, **label})
            print(label["kind"], len(found[label["kind"]]), file=sys.stderr, flush=True)
    json.dump({"size": SIZE, "k": K, "max_plies": MAX_PLIES, "seed": seed, **found}, sys.stdout, indent=1)
    print()


def _touching(c: int) -> list[int]:
    x, y = c % SIZE, c // SIZE
    return [
        (y + dy) * SIZE + x + dx
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if (dx or dy) and 0 <= x + dx < SIZE and 0 <= y + dy < SIZE
    ]


if __name__ == "__main__":
    main()
