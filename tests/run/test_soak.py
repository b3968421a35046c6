"""The ladder soak, short: ``arbiter up`` with the three default bots for two minutes plays without a
random move, with fallbacks at most 0.5% of the moves, no loss on time, every game stored once
(src/arbiter/soak/ladder.py runs it for ten minutes; docs/PERFORMANCE.md has those figures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.soak import ladder

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_two_minutes_of_the_default_stack(tmp_path: Path) -> None:
    report = ladder.run_soak(2.0, tmp_path / "data")
    assert report.moves > 50, report  # the bots did play
    assert report.fallbacks["random"] == 0, report
    assert report.fallback_share <= 0.005, report
    assert report.reasons["timeout"] == 0, report
    assert report.unended == 0 and report.duplicates == 0, report
