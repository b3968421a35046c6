"""`arbiter check` at the end of tests that play many real games: the store they leave is clean."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arbiter.cli import main


def assert_store_clean(db: Path | str) -> str:
    """Run ``arbiter check --db DB`` through the command line; assert it exits 0 and finds nothing. Its summary."""
    result = CliRunner().invoke(main, ["check", "--db", str(db)])
    assert result.exit_code == 0, result.output
    *differences, summary = result.stdout.splitlines()
    assert not differences and summary.endswith(": clean"), result.stdout
    return summary
