"""One way to fail from the command line: a single actionable line on stderr and exit code 2."""

from __future__ import annotations

from typing import Any, NoReturn

import click


def fail(message: str, *, code: int = 2) -> NoReturn:
    """Print ``arbiter: error: message`` and exit with ``code`` (2: bad input or usage)."""
    click.echo(f"arbiter: error: {message}", err=True)
    raise SystemExit(code)


def parse_params(pairs: tuple[str, ...], flag: str = "--param") -> dict[str, str]:
    """``("k=5", "exact=true")`` → ``{"k": "5", "exact": "true"}``; the game coerces the values."""
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"{flag} takes key=value, not {pair!r}")
        params[key.strip()] = value.strip()
    return params


def option_value(text: str) -> Any:
    """A brain option's value from the command line: a bool, an int, a float, or the text itself."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_options(pairs: tuple[str, ...], flag: str) -> dict[str, Any]:
    """Brain options from repeated ``KEY=VALUE`` flags, each value typed by ``option_value``."""
    return {key: option_value(value) for key, value in parse_params(pairs, flag).items()}
