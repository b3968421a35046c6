"""Structured logs: one JSON record per line, with match and player ids as fields.

Call sites pass context through ``extra`` so every record can be filtered by it::

    log.info("move", extra={"match": match_id, "player": name, "ply": 12})
"""

from __future__ import annotations

import json
import logging
import sys
from typing import IO, Any

LEVELS = ("debug", "info", "warning", "error")
_STANDARD_FIELDS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """``{"ts": …, "level": …, "logger": …, "msg": …, <extra fields>}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
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
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, separators=(",", ":"))


def configure_logging(level: str = "info", *, stream: IO[str] | None = None) -> None:
    """Send every ``arbiter`` log record to ``stream`` (stderr) as JSON lines at ``level``."""
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger("arbiter")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
    # websockets logs every handshake failure and closed connection; keep only its warnings.
    logging.getLogger("websockets").setLevel(max(logging.WARNING, root.level))
