"""Rating pools: the time-control category by lichess's bounds, the pool key from the rules that differ
from a game's defaults, and the rated identity's label."""

from __future__ import annotations

import pytest

from arbiter.server.basics.pools import category, game_of, label, pool_key


@pytest.mark.parametrize(
    ("initial_s", "increment_s", "expected"),
    [(60, 0, "bullet"), (60, 2.9, "bullet"), (60, 3, "blitz"), (180, 0, "blitz"), (300, 3, "blitz"),
     (479, 0, "blitz"), (480, 0, "rapid"), (600, 10, "rapid"), (900, 15, "classical"), (1800, 20, "classical")],
)  # fmt: skip
def test_the_category_is_the_estimated_duration_initial_plus_forty_increments(
    initial_s: float, increment_s: float, expected: str
) -> None:
    assert category({"initial_ms": round(initial_s * 1000), "increment_ms": round(increment_s * 1000)}) == expected


def test_the_pool_names_the_rules_that_differ_from_the_game_s_defaults() -> None:
    blitz = {"initial_ms": 180_000, "increment_ms": 2_000}
    assert pool_key("gomoku", {}, blitz) == "gomoku/blitz"
    assert pool_key("gomoku", {"m": 15, "n": 15, "k": 5, "exact": False}, blitz) == "gomoku/blitz"  # the defaults
    assert pool_key("gomoku", {"exact": True}, blitz) == "gomoku[exact=true]/blitz"
    assert pool_key("paper_soccer", {"stuck": "draw", "width": 8}, blitz) == "paper_soccer[stuck=draw]/blitz"
    assert pool_key("mnk", {"m": 9, "k": 4}, {"initial_ms": 10_000}) == "mnk[k=4,m=9]/bullet"
    assert game_of("mnk[k=4,m=9]/bullet") == "mnk" and game_of("gomoku/blitz") == "gomoku"


def test_a_level_is_its_own_identity() -> None:
    assert label("alphabeta", None) == "alphabeta" and label("alphabeta", 2) == "alphabeta@2"
