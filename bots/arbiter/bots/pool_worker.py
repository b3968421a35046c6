"""Inside a worker process of a :class:`~arbiter.bots.pool.BrainPool`: warm the brain up, say ready, then
answer the parent's messages (think, forget, ponder) one at a time until it says stop or goes away.

The parent's side (queues, deadlines, affinity, replacing a dead worker) is pool.py; why a worker is
forked warm, closes what it inherited and ponders in a thread of its own is said there too.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from . import swap
from .brain import Brain, ThinkRequest


def worker_main(
    conn: Connection, brain_class: type[Brain], level: int | None, options: dict[str, Any], forked: bool
) -> None:
    if forked:
        close_inherited_descriptors(keep=conn.fileno())
    signal.set_wakeup_fd(-1)  # the parent's event loop listens on that descriptor, not us
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        began = time.perf_counter()
        brain = brain_class(level, **options)
        brain.warm_up()
        warm_seconds = time.perf_counter() - began
    except BaseException:
        conn.send(("fatal", traceback.format_exc()))
        return
    conn.send(("ready", os.getpid(), warm_seconds))
    ponder = _Ponder(brain, conn)
    handlers: dict[str, Callable[..., None]] = {
        "think": lambda job_id, request: _think(conn, brain, job_id, request, ponder.stopped_in),
        "forget": brain.forget,
        "ponder": ponder.start,
        "stop_ponder": lambda: None,  # stopped below, like before any message
    }
    while True:
        try:
            kind, *args = conn.recv()
        except (EOFError, OSError):
            ponder.stop()
            return  # the parent is gone
        ponder.stop()
        if kind == "stop":
            return
        handlers[kind](*args)


class _Ponder:
    """A worker's ponder thread: ``start`` runs ``brain.ponder`` in it, ``stop`` ends it and waits."""

    def __init__(self, brain: Brain, conn: Connection) -> None:
        self.brain = brain
        self.conn = conn
        self.thread: threading.Thread | None = None
        self.event = threading.Event()
        self.stopped_in: float | None = None  # seconds the last stop took, None if no ponder ran

    def start(self, request: ThinkRequest) -> None:
        self.event = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(request, self.event), name="ponder", daemon=True)
        self.thread.start()

    def _run(self, request: ThinkRequest, stop: threading.Event) -> None:
        try:
            self.brain.ponder(request, stop)
        except Exception:
            self.conn.send(("ponder_error", traceback.format_exc()))  # the main thread sends nothing meanwhile

    def stop(self) -> None:
        """End the ponder, if one runs, and wait for its thread (``stopped_in`` says how long it took)."""
        if self.thread is None:
            self.stopped_in = None
            return
        began = time.perf_counter()
        self.event.set()
        self.brain.stop_ponder()
        self.thread.join()
        self.thread = None
        self.stopped_in = time.perf_counter() - began


def _think(conn: Connection, brain: Brain, job_id: int, request: ThinkRequest, stopped_in: float | None) -> None:
    """Answer ``request``; after a ponder, its budget loses the time the stop took, and the answer
    says how long that was (``info["ponder_stop_ms"]``)."""
    if stopped_in is not None:
        request = dataclasses.replace(request, budget=max(request.budget - stopped_in, 0.0))
    try:
        result = brain.think(request) if request.swap is None else swap.decide(brain, request)
    except Exception:
        conn.send(("error", job_id, traceback.format_exc()))
        return
    if stopped_in is not None:
        result.info["ponder_stop_ms"] = round(stopped_in * 1000, 3)
    conn.send(("result", job_id, result))


def close_inherited_descriptors(*, keep: int) -> None:
    """Close every descriptor a forked child inherited except stdio and ``keep`` (its pipe)."""
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
