"""Where numba keeps the compiled kernels: one folder per version of the kernels' sources.

numba checks only a cached function's own file for changes, not the files of the functions it
calls: after an edit to a game's rules, ``ops`` or a bot's search, it would load stale compiled
code. Keying the whole cache by a digest of every kernel source makes any edit start afresh, and
every process keys it for the sources it runs, even when its parent ran others.

The engine's own sources are always part of the key. Another distribution whose kernels call the
engine's (the bots) names its package in the ``arbiter.kernels`` entry-point group, and its sources
join the key: the engine never imports it, it only reads its files.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path

KERNEL_GROUP = "arbiter.kernels"
ENGINE_PACKAGE = "arbiter.engine"
KEYED_ENV = "ARBITER_NUMBA_KEYED"  # the folder configure_numba_cache keyed, as its children inherit it


def kernel_packages() -> list[str]:
    """The packages whose sources key the cache: the engine and every registered one."""
    return sorted({ENGINE_PACKAGE, *(point.value for point in entry_points(group=KERNEL_GROUP))})


def source_digest(packages: list[str]) -> str:
    """A digest of every ``.py`` file of ``packages``, by path within the package, wherever installed."""
    digest = hashlib.sha256()
    for name in packages:
        spec = importlib.util.find_spec(name)  # finds the folder without importing the package
        if spec is None or spec.submodule_search_locations is None:
            continue
        for folder in map(Path, spec.submodule_search_locations):
            for path in sorted(folder.rglob("*.py")):
                digest.update(f"{name}/{path.relative_to(folder).as_posix()}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def default_cache_dir() -> str:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return str(base / "arbiter" / "numba" / source_digest(kernel_packages()))


def configure_numba_cache() -> None:
    """Point numba at the keyed folder; an explicit NUMBA_CACHE_DIR wins.

    The folder chosen is also recorded in ARBITER_NUMBA_KEYED, which child processes inherit with
    NUMBA_CACHE_DIR. A child that finds the two equal knows the folder was keyed for its parent's
    sources, not set by hand, and keys it again for its own: a child running another checkout (a
    strength series against an older build) would otherwise load kernels cached there for other
    sources at the same path, since numba checks a kernel against its own file only. Keying costs a
    few milliseconds; a child of the same sources gets the same folder.

    numba reads its settings once, when first imported. A program that imported numba before the
    engine (a script's own ``from numba import njit`` first) would otherwise cache every kernel it
    loads beside its source, where a kernel is checked against its own file alone: after an edit
    to another file it calls, the stale code loads, and can crash on a changed layout.
    """
    inherited = os.environ.get("NUMBA_CACHE_DIR")
    if inherited is None or inherited == os.environ.get(KEYED_ENV):
        os.environ["NUMBA_CACHE_DIR"] = os.environ[KEYED_ENV] = default_cache_dir()
    if "numba" in sys.modules:
        from numba.core import config

        config.reload_config()


def environment_for_other_sources() -> dict[str, str]:
    """This process's environment for a child that may run other sources (another checkout's bot).

    Without the folder keyed for this process's sources: an engine older than ARBITER_NUMBA_KEYED would
    use it as if set by hand, and load kernels cached there for other sources. A folder set by hand stays.
    """
    env = dict(os.environ)
    if env.get("NUMBA_CACHE_DIR") == env.get(KEYED_ENV):
        env.pop("NUMBA_CACHE_DIR", None)
        env.pop(KEYED_ENV, None)
    return env
