"""The kernels' clock: ``time.perf_counter_ns()`` read from inside numba code.

A search kernel runs until its node budget or its deadline, whichever comes first; reading the
clock leaves compiled code (about a microsecond), so kernels read it every few hundred nodes.
A node budget alone is not a time limit: on a loaded machine the same nodes take several times
as long, and a move that overruns its clock loses the game.
"""

from __future__ import annotations

import time

from numba import njit, objmode


@njit(cache=True)
def now_ns():
    """``time.perf_counter_ns()``: the scale of every kernel's deadline."""
    with objmode(t="int64"):
        t = time.perf_counter_ns()
    return t
