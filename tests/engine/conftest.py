"""Load arbiter before the test modules import numba: numba then reads the source-keyed
NUMBA_CACHE_DIR, so a kernel cached by ``ops`` cannot keep a game's old rules after an edit."""

import arbiter.engine  # noqa: F401
