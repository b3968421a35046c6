"""Where the benchmark scripts are, for the tests that run one as a user does (a command line, its report).
A test that calls a benchmark's own code imports it as ``benchmarks.NAME`` (pyproject.toml puts the
repository's root on pytest's path)."""

from __future__ import annotations

from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
