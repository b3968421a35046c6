"""Gomoku transposition table size: nodes and CPU time to a fixed depth over the moves of real matches.

    python benchmarks/gomoku_table.py [--games 8] [--depth 7] [--bits 20 22] [--repeat 3]

A bot's worker keeps one searcher per board shape, and so one table, from move to move and match to
match: the table is what the search of one move leaves for the next. So the recorded games (15×15
freestyle against Rapfi from balanced openings; by default the committed bot's, docs/lab/strength-2026-11-29.md,
X91 and X92) are replayed in turn with one searcher per size: every second position from the 4th ply to
the 28th (the first player's moves) is searched to ``--depth`` plies at level 4's settings for a 0.5 s move,
without a clock, so every size searches to the same depth and only the table differs. The first
size of ``--bits`` is the baseline; the others are printed as ratios to it (nodes, and the median
CPU seconds over ``--repeat`` rounds, the sizes alternating within each round).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from arbiter.bots.gomoku.brain import Settings
from arbiter.bots.gomoku.searcher import TT_BITS, Searcher

GAMES = Path(__file__).parents[1] / "src" / "arbiter" / "lab" / "games" / "gomoku_rapfi_0.5s_even.jsonl"
FIRST_PLY, LAST_PLY = 4, 28
ENTRY_BYTES = 16  # two int64 words: key, packed data


def matches(path: Path, count: int) -> list[list[int]]:
    """The cells of the first ``count`` games of a game log (x, y pairs; cell = y · 15 + x, as the bot).
    (gomoku_judge.py's reader gives the positions of our decisions instead, not the games they belong to.)"""
    games = []
    with path.open() as lines:
        for number, line in enumerate(itertools.islice(lines, count), 1):
            try:
                games.append([y * 15 + x for x, y in json.loads(line)["moves"]])
            except (ValueError, KeyError, TypeError):
                raise SystemExit(f"{path}:{number}: not a game of gomoku_gauntlet.py --game-log") from None
    return games


def replay(games: list[list[int]], bits: int, depth: int) -> tuple[int, float]:
    """Nodes and CPU seconds of searching every game's positions with one searcher (and table)."""
    settings = Settings.parse(4, {})
    config = replace(settings.config(0.42), max_depth=depth, time_limit=None)
    nodes, cpu = 0, time.process_time()
    searcher = Searcher(15, 15, 5, False, tt_bits=bits, evaluation=settings.evaluation)
    for cells in games:
        for ply in range(FIRST_PLY, min(len(cells), LAST_PLY), 2):
            searcher.set_position(cells[:ply])
            nodes += searcher.think(config, ply).nodes
    return nodes, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--bits", type=int, nargs="+", default=[20, TT_BITS], help="table sizes, log2 entries")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--log", type=Path, default=GAMES, help="a game log of src/arbiter/lab/gomoku_gauntlet.py")
    args = parser.parse_args()
    if args.games < 1 or args.depth < 1 or args.repeat < 1 or not all(10 <= bits <= 28 for bits in args.bits):
        parser.error("--games, --depth and --repeat are at least 1; --bits lie in 10..28")
    if not args.log.is_file():
        parser.error(f"--log: no such file: {args.log}")
    games = matches(args.log, args.games)
    replay(games[:1], args.bits[0], 2)  # compile outside the measurement

    nodes: dict[int, int] = {}
    seconds: dict[int, list[float]] = {bits: [] for bits in args.bits}
    for _ in range(args.repeat):
        for bits in args.bits:
            nodes[bits], cpu = replay(games, bits, args.depth)
            seconds[bits].append(cpu)
    searches = sum(len(range(FIRST_PLY, min(len(cells), LAST_PLY), 2)) for cells in games)
    print(f"{len(games)} games, {searches} searches to depth {args.depth}, {args.repeat} rounds")
    base = args.bits[0]
    for bits in args.bits:
        cpu = statistics.median(seconds[bits])
        label = (
            "(baseline)"
            if bits == base
            else (
                f"nodes {nodes[bits] / nodes[base]:.3f}x, CPU {cpu / statistics.median(seconds[base]):.3f}x of 2^{base}"
            )
        )
        print(
            f"2^{bits} entries ({(ENTRY_BYTES << bits) >> 20} MiB): {nodes[bits]:,} nodes, "
            f"CPU median {cpu:.2f} s {label}"
        )


if __name__ == "__main__":
    main()
