"""The numba cache folder follows the kernels' sources (the engine's and the bots') unless NUMBA_CACHE_DIR is set."""

import os
import subprocess
import sys
from pathlib import Path

PRINT_CACHE = "import arbiter.engine, os; print(os.environ['NUMBA_CACHE_DIR'])"


def cache_dir(env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return subprocess.run(
        [sys.executable, "-c", PRINT_CACHE], capture_output=True, text=True, check=True, env={**clean, **env}
    ).stdout.strip()


def test_default_cache_is_keyed_by_the_kernel_sources(tmp_path: Path) -> None:
    first = cache_dir({"XDG_CACHE_HOME": str(tmp_path)})
    assert Path(first).parent == tmp_path / "arbiter" / "numba"
    assert len(Path(first).name) == 16 and int(Path(first).name, 16) >= 0
    assert cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == first  # same sources, same folder


def test_an_explicit_cache_dir_wins(tmp_path: Path) -> None:
    assert cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / "mine")}) == str(tmp_path / "mine")


def test_the_bots_sources_join_the_key_through_their_entry_point() -> None:
    from arbiter.engine.numba_cache import kernel_packages, source_digest

    packages = kernel_packages()
    assert packages == ["arbiter.bots", "arbiter.engine"]  # the bots register in `arbiter.kernels`
    assert source_digest(packages) != source_digest(["arbiter.engine"])


KERNEL = """
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x
"""
NUMBA_FIRST = "import numba, arbiter.engine, kernel; assert kernel.twice(21) == 42"


def test_a_program_that_imports_numba_first_still_caches_in_the_keyed_folder(tmp_path: Path) -> None:
    """Not beside the source, where numba checks a kernel against its own file only (stale after an edit elsewhere)."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    clean = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env = {**clean, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    subprocess.run([sys.executable, "-c", NUMBA_FIRST], check=True, env=env, cwd=tmp_path)
    assert not list(tmp_path.glob("__pycache__/*.nbi"))
    assert list((tmp_path / "cache" / "arbiter" / "numba").glob("*/*/kernel.twice-*.nbi"))
