"""Log records on stderr: JSON lines for machines, readable console lines for a person at a terminal.

Call sites pass context through ``extra`` so every record can be filtered by it::

    log.info("move", extra={"match": match_id, "player": name, "ply": 12})

``--log-format auto`` (every command's default) writes console lines when stderr is a terminal and
JSON lines otherwise (a pipe, a file, a container's log driver); ``json`` and ``console`` force one.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable
from typing import IO, Any, TypeVar

import click

LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("auto", "json", "console")
_STANDARD_FIELDS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}

# SGR colours: level names in their own colour, the logger and the field names dimmed.
F = TypeVar("F", bound=Callable[..., Any])

_LEVEL_COLOURS = {"debug": "2", "info": "32", "warning": "33", "error": "1;31", "critical": "1;31"}
_DIM = "2"

_log_format_option = click.option(
    "--log-format",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="Log lines on stderr: console (readable, coloured unless NO_COLOR or TERM=dumb) or json "
    "(one object per line); auto is console on a terminal, json otherwise.",
)


def log_options(default: str = "info", help: str = "Least severe log record written to stderr.") -> Callable[[F], F]:
    """Every command's ``--log-level`` (``default`` and ``help`` its own) and ``--log-format``, in that order."""
    level = click.option("--log-level", type=click.Choice(LEVELS), default=default, show_default=True, help=help)
    return lambda command: level(_log_format_option(command))


def record_fields(record: logging.LogRecord) -> dict[str, Any]:
    """``{"ts": …, "level": …, "logger": …, "msg": …, <extra fields>, "exc": …}``: one record's content."""
    out: dict[str, Any] = {
        "ts": round(record.created, 3),
        "level": record.levelname.lower(),
        "logger": record.name,
        "msg": record.getMessage(),
    }
    for key, value in vars(record).items():
        if key not in _STANDARD_FIELDS and not key.startswith("_"):
            out[key] = value
    if record.exc_info:
        out["exc"] = logging.Formatter().formatException(record.exc_info)
    return out


class JsonFormatter(logging.Formatter):
    """One record as one JSON object on one line."""

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(record_fields(record), default=str, separators=(",", ":"))


def _paint(text: str, sgr: str, colour: bool) -> str:
    return f"\x1b[{sgr}m{text}\x1b[0m" if colour else text


def _printable(text: str) -> str:
    """Control characters (a newline, a terminal's escape sequence) written as escapes: text from
    outside, a peer's error or a player's name, cannot start a forged line or drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _value(value: Any) -> str:
    """A field's value: a plain word as it is, other text quoted, anything else as compact JSON."""
    if isinstance(value, str) and value and value.isprintable() and not any(c in ' "=' for c in value):
        return value
    compact = json.dumps(value, default=str, separators=(",", ":"), ensure_ascii=False)
    return _printable(compact)


def render_console(fields: dict[str, Any], *, colour: bool) -> str:
    """``20:04:31.052 INFO  arbiter.bots  connected  player=alphabeta``: a record's fields for a person.

    The same fields as a JSON line (``record_fields``, or a JSON line read back from a child process),
    so a launcher can show its children's records exactly as it shows its own.
    """
    rest = dict(fields)
    ts, level = rest.pop("ts", None), str(rest.pop("level", "info"))
    logger, msg, exc = (
        _printable(str(rest.pop("logger", ""))),
        _printable(str(rest.pop("msg", ""))),
        rest.pop("exc", None),
    )
    when = (
        time.strftime("%H:%M:%S", time.localtime(ts)) + f".{int(ts * 1000) % 1000:03d}"
        if isinstance(ts, (int, float))
        else "--:--:--.---"
    )
    parts = [
        _paint(when, _DIM, colour),
        _paint(f"{level.upper():<7}", _LEVEL_COLOURS.get(level, "0"), colour),
        _paint(logger, _DIM, colour),
        msg,
    ]
    parts += [f"{_paint(_printable(key) + '=', _DIM, colour)}{_value(value)}" for key, value in rest.items()]
    line = " ".join(parts)
    return f"{line}\n{exc}" if exc else line


class ConsoleFormatter(logging.Formatter):
    """One record as one readable line (and its traceback below it)."""

    def __init__(self, *, colour: bool) -> None:
        super().__init__()
        self.colour = colour

    def format(self, record: logging.LogRecord) -> str:
        return render_console(record_fields(record), colour=self.colour)


def is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def colour_supported(stream: IO[str]) -> bool:
    """A terminal that takes colour: not redirected, no ``NO_COLOR`` (no-color.org), not ``TERM=dumb``."""
    return is_terminal(stream) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def console_wanted(log_format: str, stream: IO[str] | None = None) -> bool:
    """Whether ``log_format`` means console lines on ``stream`` (stderr): ``auto`` asks the stream."""
    if log_format not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {log_format!r}")
    return log_format == "console" or (log_format == "auto" and is_terminal(stream or sys.stderr))


def configure_logging(
    level: str = "info", log_format: str = "auto", *, stream: IO[str] | None = None, colour: bool | None = None
) -> None:
    """Send every ``arbiter`` log record to ``stream`` (stderr) at ``level``, as ``log_format`` says.

    ``colour`` overrides what the stream supports (a launcher that draws on the terminal itself).
    """
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    out = stream or sys.stderr
    handler = logging.StreamHandler(out)
    if console_wanted(log_format, out):
        handler.setFormatter(ConsoleFormatter(colour=colour_supported(out) if colour is None else colour))
    else:
        handler.setFormatter(JsonFormatter())
    root = logging.getLogger("arbiter")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
    # websockets logs every handshake failure and closed connection; keep only its warnings.
    logging.getLogger("websockets").setLevel(max(logging.WARNING, root.level))
