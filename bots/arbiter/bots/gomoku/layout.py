"""Flat int64 arrays with named regions: how the kernels hold their tables and state.

numba pays a reference-count round trip for every array passed to a function call, and a tuple
of arrays costs one per member, on every call. Holding each kind of data in one flat array —
the board geometry, the position's tracks, the search's tables, the threat search's scratch —
keeps a call at one or two array arguments. Each array starts with a header of scalar slots;
some header slots hold the offset where a region begins, so ``a[a[REGION] + i]`` is element i.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def allocate(header: int, regions: Iterable[tuple[int, int, int]]) -> np.ndarray:
    """A zeroed int64 array: ``header`` scalar slots, then each region (offset slot, length, fill value)."""
    regions = list(regions)
    size = header + sum(length for _, length, _ in regions)
    array = np.zeros(size, dtype=np.int64)
    offset = header
    for slot, length, fill in regions:
        if slot >= header:
            raise ValueError(f"offset slot {slot} is outside the {header}-slot header")
        array[slot] = offset
        if fill:
            array[offset : offset + length] = fill
        offset += length
    return array


def region(array: np.ndarray, slot: int, length: int) -> np.ndarray:
    """A view of the region whose offset is in ``slot`` (for the Python side and the tests)."""
    start = int(array[slot])
    return array[start : start + length]
