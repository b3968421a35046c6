"""One way to fail from the command line: a single actionable line on stderr and exit code 2."""

from __future__ import annotations

from typing import NoReturn

import click


def fail(message: str, *, code: int = 2) -> NoReturn:
    """Print ``arbiter: error: message`` and exit with ``code`` (2: bad input or usage)."""
    click.echo(f"arbiter: error: {message}", err=True)
    raise SystemExit(code)


def parse_params(pairs: tuple[str, ...]) -> dict[str, str]:
    """``("k=5", "exact=true")`` → ``{"k": "5", "exact": "true"}``; the game coerces the values."""
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"--param takes key=value, not {pair!r}")
        params[key.strip()] = value.strip()
    return params
