"""The clock as numba kernels read it: a search checks it every few thousand steps."""

import time

from numba import njit, objmode


@njit(cache=True)
def now_ns():
    """``time.perf_counter_ns()``; compiled in each process on its first call (warm it up)."""
    with objmode(t="int64"):
        t = time.perf_counter_ns()
    return t
