"""A random stream that lives in a register, for kernels that draw once per ply (random playouts).

numba's ``np.random.randint`` fetches the thread's Mersenne Twister state through a call, and
rejects out-of-range draws in a loop whose branch the processor cannot predict; at one draw per
ply that was a quarter of a gomoku playout. A playout instead takes one seed from ``np.random``
(so ``np.random.seed`` still makes a run reproducible) and steps splitmix64 in a local variable,
turning each word into an exactly uniform integer below ``n`` with Lemire's multiply-shift (its
rejection branch runs with probability below n / 2**32).
"""

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
LOW32 = np.uint64(0xFFFFFFFF)
TWO32 = np.uint64(1 << 32)
SEED_LIMIT = 1 << 62


@njit(cache=True, inline="always")
def seed_from_numpy():
    """A stream's start, drawn from numba's ``np.random`` (seeded by ``np.random.seed``)."""
    return np.uint64(np.random.randint(0, SEED_LIMIT))


@njit(cache=True, inline="always")
def next_word(state):
    """splitmix64: the next state and its 64-bit output."""
    state = state + GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def below(state, n):
    """The next state and a uniformly random integer in ``[0, n)``, for ``1 <= n < 2**32``."""
    bound = np.uint64(n)
    state, word = next_word(state)
    product = (word >> np.uint64(32)) * bound
    low = product & LOW32
    if low < bound:
        threshold = (TWO32 - bound) % bound
        while low < threshold:
            state, word = next_word(state)
            product = (word >> np.uint64(32)) * bound
            low = product & LOW32
    return state, np.int64(product >> np.uint64(32))
