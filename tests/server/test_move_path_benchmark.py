"""benchmarks/move_path.py plays a whole match through a real hub: every move accepted and sent to both players."""

from __future__ import annotations

import gc

from benchmarks import move_path as benchmark


async def test_the_move_path_benchmark_plays_every_move_to_both_players() -> None:
    threshold = gc.get_threshold()
    for matches in (1, 3):  # one match, and several played at once, a move of each in turn
        assert await benchmark.arbiter_run(matches) > 0  # asserts inside that no move was refused
        assert benchmark.relay_run(matches) > 0
    # It sets the collector as the server does, for its runs only: the test process gets its own back.
    assert gc.get_threshold() == threshold and gc.get_freeze_count() == 0
