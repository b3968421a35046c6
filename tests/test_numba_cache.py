"""The numba cache folder follows the kernels' sources unless NUMBA_CACHE_DIR is set explicitly."""

import os
import subprocess
import sys
from pathlib import Path

PRINT_CACHE = "import arbiter, os; print(os.environ['NUMBA_CACHE_DIR'])"


def cache_dir(env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return subprocess.run([sys.executable, "-c", PRINT_CACHE], capture_output=True, text=True, check=True,
                          env={**clean, **env}).stdout.strip()


def test_default_cache_is_keyed_by_the_kernel_sources(tmp_path: Path) -> None:
    first = cache_dir({"XDG_CACHE_HOME": str(tmp_path)})
    assert Path(first).parent == tmp_path / "arbiter" / "numba"
    assert len(Path(first).name) == 16 and int(Path(first).name, 16) >= 0
    assert cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == first  # same sources, same folder


def test_an_explicit_cache_dir_wins(tmp_path: Path) -> None:
    assert cache_dir({"NUMBA_CACHE_DIR": str(tmp_path / "mine")}) == str(tmp_path / "mine")
