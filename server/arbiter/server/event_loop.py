"""The event loop a server runs on: uvloop (an optional dependency, ``arbiter-server[uvloop]``)
when it is installed, else asyncio's own. ``--loop`` picks one; docs/PERFORMANCE.md compares them."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
LOOPS = ("uvloop", "asyncio")


class LoopUnavailable(RuntimeError):
    """The loop asked for is not installed."""


def default_loop() -> str:
    """uvloop where it is installed, else asyncio."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What ``asyncio.Runner`` makes its loop with (None: asyncio's default)."""
    if name == "asyncio":
        return None
    if name != "uvloop":
        raise LoopUnavailable(f"the event loop is one of {', '.join(LOOPS)}, not {name!r}")
    try:
        import uvloop
    except ImportError:
        raise LoopUnavailable(
            "uvloop is not installed: pip install 'arbiter-server[uvloop]', or --loop asyncio"
        ) from None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], loop: str) -> T:
    """``asyncio.run(main)`` on the named loop."""
    with asyncio.Runner(loop_factory=loop_factory(loop)) as runner:
        return runner.run(main)
