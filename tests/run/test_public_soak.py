"""The public-server soak, short: 40 concurrent matches for one minute with dropped connections,
a killed bot process and floods of bad frames, then a drain: no server error, every match the
players saw end stored once with its result, no game left without an end, and `arbiter check`
clean (benchmarks/public_soak.py runs 1000 matches for ten minutes; docs/PERFORMANCE.md)."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SOAK = Path(__file__).resolve().parents[2] / "benchmarks" / "public_soak.py"


def load_soak():  # the benchmark's own runner: one definition of what the soak checks
    spec = importlib.util.spec_from_file_location("public_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["public_soak"] = module
    spec.loader.exec_module(module)
    return module


def test_a_minute_of_trouble(tmp_path: Path) -> None:
    soak = load_soak()
    report = asyncio.run(soak.soak(40, 1.0, tmp_path))
    soak.print_report(report)
    assert report.moves > 500 and report.seen_ended > 20, report  # the players did play
    assert report.drops > 0 and report.kills > 0 and report.bad_frames > 1000, report  # and the trouble came
    assert report.failures() == [], report.failures()
