"""The C yardstick of benchmarks/engine_playouts.py: built and run when a compiler exists, skipped
with a message when none does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks import engine_playouts as benchmark


def test_without_a_compiler_the_c_columns_are_skipped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no cc, no gcc
    benchmark.compare_with_c(["gomoku", "paper_soccer"], 0.01, 1)
    assert capsys.readouterr().out.strip() == "no C compiler (cc or gcc) on PATH: C baseline skipped"


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
@pytest.mark.parametrize(("game", "fewest", "most"), [("gomoku", 9, 225), ("soccer", 1, 400)])
def test_the_c_baseline_builds_and_plays_whole_games(tmp_path: Path, game: str, fewest: int, most: int) -> None:
    built = benchmark.build_c_baseline(str(tmp_path))
    assert built is not None
    tally = benchmark.Tally()
    rate = benchmark.run_c(built[0], game, 0.05, 3, tally)
    assert rate > 0 and tally.playouts > 0
    assert 0 < tally.wins0 < tally.playouts
    assert fewest <= tally.mean_plies <= most
