"""docs/CONFIGURATION.md lists every option of every command, exactly as the commands define them."""

from pathlib import Path

from arbiter.cli.reference import render

DOC = Path(__file__).resolve().parents[1] / "docs" / "CONFIGURATION.md"


def test_configuration_reference_is_current() -> None:
    assert DOC.read_text() == render(), "regenerate: python -m arbiter.cli.reference > docs/CONFIGURATION.md"
