"""Zobrist keys: fixed pseudo-random 64-bit numbers, the same in every process and run."""

import numpy as np


def zobrist_table(size: int, *, seed: int) -> np.ndarray:
    """``size`` random int64 keys from a fixed seed (kernels read it as a compile-time constant)."""
    info = np.iinfo(np.int64)
    return np.random.default_rng(seed).integers(info.min, info.max, size=size, dtype=np.int64)
