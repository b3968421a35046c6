"""Load arbiter before the test modules import numba: its source-keyed NUMBA_CACHE_DIR then also
holds the kernels defined here, so an edit to the bot's kernels cannot leave a test kernel that
inlined the old code in a stale cache next to this file."""

import arbiter  # noqa: F401
