"""The lines of threes (level 4): near the root a defence against an open three costs no depth, so a search of a
fixed depth sees more of the wins a classical engine plays; the extension stops at its plies, and only full
strength extends. The positions (engine_wins.json) are from our bot's games against Rapfi, where Rapfi reported
a forced win for the side to move."""

from __future__ import annotations

import json
from pathlib import Path

from arbiter.bots.gomoku.brain import LEVELS, THREE_EXTENSION_PLIES
from arbiter.bots.gomoku.search import MATE_BOUND
from arbiter.bots.gomoku.searcher import SearchConfig, Searcher, SearchResult

DATA = json.loads((Path(__file__).parent / "engine_wins.json").read_text())
SIZE, K = DATA["size"], DATA["k"]


def search(moves: list[int], depth: int, extension: int) -> SearchResult:
    """A plain search to ``depth`` (no threat searches, all moves), threes extended within ``extension`` plies."""
    searcher = Searcher(SIZE, SIZE, K, False, tt_bits=16)
    searcher.set_position(moves)
    return searcher.think(SearchConfig(max_depth=depth, three_extension=extension))


def test_four_plies_prove_more_of_the_engines_wins_with_the_lines_of_threes() -> None:
    """Measured: 3 of the 40 wins proved by four plies without the extension, 9 with it (a superset)."""
    plain = {i for i, case in enumerate(DATA["wins"]) if search(case["moves"], 4, 0).score > MATE_BOUND}
    extended = {
        i for i, case in enumerate(DATA["wins"]) if search(case["moves"], 4, THREE_EXTENSION_PLIES).score > MATE_BOUND
    }
    assert plain <= extended
    assert len(extended) >= 2 * len(plain) + 3


def test_the_extension_stops_at_its_plies() -> None:
    """Within one ply of the root there is no node of the search proper (the root's moves are searched apart),
    so an extension of one ply searches exactly as none does: the same move, score and nodes."""
    searched = 0
    for case in DATA["wins"][:8]:
        plain, bounded = search(case["moves"], 3, 0), search(case["moves"], 3, 1)
        assert (bounded.cell, bounded.score, bounded.nodes) == (plain.cell, plain.score, plain.nodes)
        if plain.reason == "search":  # not a four to block at once
            searched += 1
            assert search(case["moves"], 3, THREE_EXTENSION_PLIES).nodes != plain.nodes
    assert searched >= 4


def test_only_full_strength_extends() -> None:
    for level in (1, 2, 3):
        assert LEVELS[level].config(1.0).three_extension == 0
    for seconds in (0.05, 0.2, 0.5, 5.0):
        assert LEVELS[4].config(seconds).three_extension == THREE_EXTENSION_PLIES
