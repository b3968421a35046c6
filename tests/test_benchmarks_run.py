"""Every benchmark without a test of its own runs to its report on a tiny load.

The figures in docs/PERFORMANCE.md are only as good as the scripts that print them: a script that a
later change broke (as a new default cap once broke cluster_load.py) fails here, not in the next
person's measurement. The larger benchmarks have their own end-to-end tests (server_load, move_path,
cluster_load, engine_playouts; the soaks and the lab's strength tools theirs in tests/run and tests/bots);
bot_pool.py is left out, as it compiles every kernel from an empty cache (minutes).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.benchmark_scripts import BENCHMARKS

RUNS = [
    ("bridge_overhead.py", ["--moves", "4"], "server + client + bridge (loopback)"),
    ("consistency_check.py", ["--games", "200", "--repeat", "1"], "arbiter check"),
    ("forbidden_points.py", ["--positions", "5", "--rounds", "1"], "every cell asked"),
    ("protocol_schema.py", ["--messages", "1000", "--repeat", "1"], "move: codec.decode + parse (baseline)"),
    ("store_writes.py", ["--games", "5", "--moves", "10", "--repeat", "1"], "PostgreSQL store"),
    ("heavy_reads.py", ["--games", "200", "--rounds", "1", "--seconds", "1"], "x the baseline"),
    ("gomoku_search.py", ["--seconds", "0.2", "--positions", "1", "--reps", "1"], "G+Q moves per CPU second"),
    ("gomoku_table.py", ["--games", "1", "--depth", "3", "--repeat", "1"], "x of 2^20"),
    ("mcts_search.py", ["--games", "tictactoe", "--seconds", "0.2", "--repeats", "1"], "ranges: random"),
    ("soccer_search.py", ["--seconds", "0.1", "--repeats", "1", "--positions", "1"], "median depth in 100 ms"),
    ("stdio_bridge.py", ["--moves", "4"], "bridge process pool"),
    ("swiss_pairing.py", ["--players", "40", "--repeat", "1"], "pair_round: median"),
    ("tournament_schedule.py", ["--bots", "4"], "x the ideal"),
]


@pytest.mark.parametrize(("script", "arguments", "expected"), RUNS, ids=[run[0] for run in RUNS])
def test_the_benchmark_runs_to_its_report(script: str, arguments: list[str], expected: str) -> None:
    command = [sys.executable, str(BENCHMARKS / script), *arguments]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert expected in result.stdout, result.stdout[-2000:]


def test_the_soccer_strength_series_runs_to_its_report() -> None:
    command = [sys.executable, "-m", "arbiter.lab.soccer_strength", "--games", "2", "--time", "0.05"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "level=6" in result.stdout, result.stdout[-2000:]


def test_the_table_benchmark_refuses_a_file_that_is_not_a_game_log(tmp_path) -> None:
    log = tmp_path / "games.jsonl"
    log.write_text('{"moves": 3}\n')
    command = [sys.executable, str(BENCHMARKS / "gomoku_table.py"), "--log", str(log), "--games", "1"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert f"{log}:1: not a game of gomoku_gauntlet.py --game-log" in result.stderr
