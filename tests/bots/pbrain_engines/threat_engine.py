"""A small Gomocup (pbrain) engine for the bridge's tests: a one-ply threat heuristic, with faults
and the quirks of real engines on demand.

    python threat_engine.py [--crash-at N | --hang-at N | --occupied-at N | --garbage-at N] [--rules 0,1]
                            [--swap2 AT3,AT5]

It plays five in a row: win if it can, else block the opponent's win, else extend its longest
line next to its stones (the centre to begin). Like a strong real engine it takes only square
boards from 5 to 20 (RECTSTART is an ERROR), and it drops a command that arrives within 3 ms after
it printed a move, reporting the command as UNKNOWN. It prints a MESSAGE with depth and eval
before each move. The faults count its own moves from 1 in each game: at the Nth it exits, hangs,
answers an occupied cell, or prints something that is not a move. ``INFO rule`` is taken for the
values of ``--rules`` (default: any) and answered with an ERROR otherwise; it plays the same
moves whatever the rule, so in renju as black it may play a forbidden point.

``SWAP2BOARD`` (stone lines ``x,y`` or ``x,y,who``, black first) is answered only with ``--swap2``
(else UNKNOWN, line by line, as an engine without it does): three stones round the centre on an
empty board; on three stones ``AT3`` (``swap``: SWAP, ``move``: its move, ``place``: two of its
moves), on five ``AT5`` (``swap`` or ``move``).
"""

from __future__ import annotations

import argparse
import sys
import time

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class Board:
    def __init__(self, size: int) -> None:
        self.size = size
        self.cells: dict[tuple[int, int], int] = {}

    def run(self, x: int, y: int, who: int) -> int:
        """The longest line through (x, y) if ``who`` stood there."""
        best = 1
        for dx, dy in DIRECTIONS:
            count = 1
            for sign in (1, -1):
                cx, cy = x + sign * dx, y + sign * dy
                while self.cells.get((cx, cy)) == who:
                    count += 1
                    cx, cy = cx + sign * dx, cy + sign * dy
            best = max(best, count)
        return best

    def choose(self) -> tuple[int, int]:
        empty = [(x, y) for x in range(self.size) for y in range(self.size) if (x, y) not in self.cells]
        if not self.cells:
            return self.size // 2, self.size // 2
        return max(
            empty,
            key=lambda c: (
                self.run(*c, 1) >= 5,
                self.run(*c, 2) >= 5,
                self.run(*c, 1) + self.run(*c, 2),
                -abs(c[0] - self.size // 2) - abs(c[1] - self.size // 2),
            ),
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    for fault in ("crash", "hang", "occupied", "garbage"):
        parser.add_argument(f"--{fault}-at", type=int, default=0)
    parser.add_argument("--rules", type=lambda text: {int(rule) for rule in text.split(",")})
    parser.add_argument("--swap2", type=lambda text: text.split(","))
    faults = parser.parse_args()
    board: Board | None = None
    moves = 0
    last_move = 0.0
    stones: list[tuple[int, int, int]] | None = None
    swap_block = False  # whether the stones are a SWAP2BOARD's

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def move() -> None:
        nonlocal moves, last_move
        assert board is not None
        moves += 1
        if moves == faults.crash_at:
            sys.exit(3)
        if moves == faults.hang_at:
            time.sleep(3600)
        if moves == faults.garbage_at:
            say("I resign, probably")
            return
        x, y = next(iter(board.cells)) if moves == faults.occupied_at and board.cells else board.choose()
        board.cells[(x, y)] = 1
        say(f"MESSAGE depth 1 ev {10 * board.run(x, y, 1)} n {len(board.cells)}")
        say(f"{x},{y}")
        last_move = time.monotonic()

    for raw in sys.stdin:
        line = raw.strip()
        if time.monotonic() - last_move < 0.003:  # the quirk: a command right after a move is lost
            say(f"UNKNOWN {line.split(' ', 1)[-1]}")
            continue
        if stones is not None:
            if line.upper() == "DONE" and swap_block:
                assert board is not None
                say(swap2(board, stones, faults.swap2))
                stones = None
            elif line.upper() == "DONE":
                assert board is not None
                board.cells = {(x, y): who for x, y, who in stones}
                stones = None
                move()
            else:
                x, y, *who = (int(v) for v in line.split(","))
                stones.append((x, y, who[0] if who else 0))
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "START":
            size = int(rest)
            if 5 <= size <= 20:
                board, moves = Board(size), 0
                say("OK")
            else:
                say(f"ERROR unsupported size {size}")
        elif word == "RECTSTART":
            say("ERROR rectangular boards are not supported")
        elif word == "RESTART":
            assert board is not None
            board, moves = Board(board.size), 0
            say("OK")
        elif word == "BEGIN":
            move()
        elif word == "TURN":
            assert board is not None
            x, y = (int(v) for v in rest.split(","))
            board.cells[(x, y)] = 2
            move()
        elif word == "BOARD":
            stones, swap_block = [], False
        elif word == "SWAP2BOARD" and faults.swap2:
            stones, swap_block = [], True
        elif word == "INFO":
            key, _, value = rest.partition(" ")
            if key == "rule" and faults.rules is not None and int(value) not in faults.rules:
                say(f"ERROR rule {value} is not supported")
        elif word == "ABOUT":
            say('name="threat-engine", version="1.0"')
        elif word == "END":
            return
        else:
            say(f"UNKNOWN {line}")


def swap2(board: Board, stones: list[tuple[int, int, int]], choices: list[str]) -> str:
    """The answer to SWAP2BOARD at ``stones`` (black first): see the module docstring."""
    centre = board.size // 2
    if not stones:
        return f"{centre},{centre} {centre + 1},{centre} {centre},{centre + 2}"
    choice = choices[0] if len(stones) == 3 else choices[1]
    if choice == "swap":
        return "SWAP"
    mover = len(stones) % 2  # the colour to move; its stones are ours
    board.cells = {(x, y): 1 if i % 2 == mover else 2 for i, (x, y, _) in enumerate(stones)}
    first = board.choose()
    if choice == "move":
        return f"{first[0]},{first[1]}"
    board.cells[first] = 1
    second = board.choose()
    return f"{first[0]},{first[1]} {second[0]},{second[1]}"


if __name__ == "__main__":
    main()
