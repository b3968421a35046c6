"""Arbiter: an online match server with a bot ladder for two-player board games."""

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


def _numba_cache_dir() -> str:
    """A numba cache folder named after the kernels' source code.

    numba checks only a cached function's own file for changes, not the files of the functions it
    calls: after an edit to a game's rules, ``ops`` or a bot's search would load stale compiled
    code. Keying the whole cache by a digest of every kernel source makes any edit start afresh.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted([*root.glob("engine/**/*.py"), *root.glob("bots/**/*.py")]):
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return str(base / "arbiter" / "numba" / digest.hexdigest()[:16])


# Set before numba is first imported (the engine imports it); an explicit setting wins.
os.environ.setdefault("NUMBA_CACHE_DIR", _numba_cache_dir())
