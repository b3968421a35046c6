"""Generate the threat-search test positions: forced wins to find and only defences to find.

    python tests/bots/gomoku/make_threat_positions.py [SEED] > tests/bots/gomoku/threat_positions.json
    python tests/bots/gomoku/make_threat_positions.py --vct [SEED] > tests/bots/gomoku/vct_positions.json

Positions come from random games on 10×10 (five or more wins), each stone placed next to one
already down, from a fixed seed, so the file is reproducible. The independent solver
(gomoku_solver.py, plain Python, nothing shared with the bot) labels them:

- **win**: the side to move has no four to answer and wins by continuous fours; ``plies`` is the
  length of its shortest such win (its stones and the replies, the winning stone included);
- **defence**: the opponent would win by continuous fours within MAX_PLIES if it were to move, the
  side to move has no such win of its own, and exactly one of its moves leaves the opponent
  without one: ``answer`` is that cell.

With ``--vct`` it writes forced wins by threats instead (**vct**): the side to move has no win
by continuous fours within MAX_PLIES, but wins within VCT_PLIES when it may also play open
threes (the solver's ``threats`` mode, every defence tried): a win a pure VCF cannot find.

The tests (test_gomoku_threats.py) check every label again with the solver before asking the bot.
"""

from __future__ import annotations

import json
import random
import sys

from gomoku_solver import Position, forced_win, shortest_forced_win

SIZE = 10
K = 5
MAX_PLIES = 9  # five attacking fours at most
WANTED = 50
SEED = 7
VCT_PLIES = 5  # a three, any reply, an open four (or four-three), a block, the five
VCT_WANTED = 12
VCT_SEED = 11


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


def classify_vct(position: Position) -> dict | None:
    """``{"kind": "vct", "plies": n}`` for a win by threats that no VCF gives, else None."""
    mover = position.to_move
    if position.winning_cells(mover) or position.winning_cells(3 - mover):
        return None
    if forced_win(position, mover, MAX_PLIES, fours_only=True):
        return None
    plies = shortest_forced_win(position, mover, VCT_PLIES, threats=True)
    return {"kind": "vct", "plies": plies} if plies is not None else None


def random_position(rng: random.Random, low: int, high: int) -> tuple[Position, list[int]]:
    """A position from a random game of ``low``..``high`` moves, each beside a stone already down."""
    position = Position(SIZE, SIZE, K, False)
    moves: list[int] = []
    for _ in range(rng.randint(low, high)):
        if moves:
            near = {q for c in moves for q in _touching(c)} - set(moves)
            cell = rng.choice(sorted(near))
        else:
            cell = rng.randrange(SIZE * SIZE)
        if position.completes(cell, position.to_move):
            break
        position.board[cell] = position.to_move
        moves.append(cell)
    return position, moves


def main() -> None:
    args = sys.argv[1:]
    vct = "--vct" in args
    args = [a for a in args if a != "--vct"]
    seed = int(args[0]) if args else VCT_SEED if vct else SEED
    rng = random.Random(seed)
    found: dict[str, list[dict]] = {"vct": []} if vct else {"win": [], "defence": []}
    wanted = VCT_WANTED if vct else WANTED
    seen: set[tuple[int, ...]] = set()
    while min(len(v) for v in found.values()) < wanted:
        position, moves = random_position(rng, 10, 26) if vct else random_position(rng, 12, 30)
        key = tuple(position.board)
        if key in seen:
            continue
        seen.add(key)
        label = classify_vct(position) if vct else classify(position)
        if label and len(found[label["kind"]]) < wanted:
            found[label["kind"]].append({"moves": moves, **label})
            print(label["kind"], len(found[label["kind"]]), file=sys.stderr, flush=True)
    limits = {"vct_plies": VCT_PLIES} if vct else {}
    json.dump({"size": SIZE, "k": K, "max_plies": MAX_PLIES, **limits, "seed": seed, **found}, sys.stdout, indent=1)
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
