"""The ladder soak, short: ``arbiter up`` with the three default bots for two minutes plays without a
random move, with fallbacks at most 0.5% of the moves, no loss on time, every game stored once
(benchmarks/ladder_soak.py runs it for ten minutes; docs/PERFORMANCE.md has those figures)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

SOAK = Path(__file__).resolve().parents[2] / "benchmarks" / "ladder_soak.py"


def load_soak():  # the benchmark's own runner: one definition of what a soak checks
    spec = importlib.util.spec_from_file_location("ladder_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ladder_soak"] = module
    spec.loader.exec_module(module)
    return module


def test_two_minutes_of_the_default_stack(tmp_path: Path) -> None:
    report = load_soak().run_soak(2.0, tmp_path / "data")
    assert report.moves > 50, report  # the bots did play
    assert report.fallbacks["random"] == 0, report
    assert report.fallback_share <= 0.005, report
    assert report.reasons["timeout"] == 0, report
    assert report.unended == 0 and report.duplicates == 0, report
