"""The public-server soak, short: 40 concurrent matches for one minute with dropped connections,
a killed bot process and floods of bad frames, then a drain: no server error, every match the
players saw end stored once with its result, no game left without an end, and `arbiter check`
clean (src/arbiter/soak/public.py runs 1000 matches for ten minutes; docs/PERFORMANCE.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arbiter.soak import public as soak

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_a_minute_of_trouble(tmp_path: Path) -> None:
    report = asyncio.run(soak.soak(40, 1.0, tmp_path))
    soak.print_report(report)
    assert report.moves > 500 and report.seen_ended > 20, report  # the players did play
    assert report.drops > 0 and report.kills > 0 and report.bad_frames > 1000, report  # and the trouble came
    assert report.failures() == [], report.failures()
