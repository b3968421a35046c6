"""The numba cache folder follows the kernels' sources (the engine's and the bots') unless NUMBA_CACHE_DIR is set."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import arbiter.engine
from arbiter.engine.numba_cache import KEYED_ENV, environment_for_other_sources

PRINT_CACHE = "import arbiter.engine, os; print(os.environ['NUMBA_CACHE_DIR'])"


def without_cache_settings() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", KEYED_ENV)}


def cache_dir(env: dict[str, str]) -> str:
    clean = without_cache_settings()
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


# A parent that keys its folder, then starts a child with its own environment plus the child's PYTHONPATH.
PARENT_AND_CHILD = """
import os, subprocess, sys
import arbiter.engine
print(os.environ["NUMBA_CACHE_DIR"], flush=True)
env = {**os.environ, "PYTHONPATH": sys.argv[1]} if sys.argv[1] else dict(os.environ)
subprocess.run([sys.executable, "-c", sys.argv[2]], env=env, check=True)
"""


def parent_and_child(tmp_path: Path, child_path: str, env: dict[str, str] | None = None) -> list[str]:
    """The cache folders of a parent and of its child (run with ``child_path`` first on its PYTHONPATH)."""
    full = {**without_cache_settings(), "XDG_CACHE_HOME": str(tmp_path / "cache"), **(env or {})}
    command = [sys.executable, "-c", PARENT_AND_CHILD, child_path, PRINT_CACHE]
    return subprocess.run(command, capture_output=True, text=True, check=True, env=full).stdout.split()


def other_build(tmp_path: Path) -> Path:
    """A copy of the engine's sources with one line more: another checkout, as a strength series runs against."""
    root = tmp_path / "other"
    copy = root / "arbiter" / "engine"
    shutil.copytree(Path(arbiter.engine.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "numba_cache.py").open("a") as source:
        source.write("# another build\n")
    return root


def test_a_child_of_the_same_sources_shares_its_parents_folder(tmp_path: Path) -> None:
    parent, child = parent_and_child(tmp_path, "")
    assert child == parent and Path(parent).parent == tmp_path / "cache" / "arbiter" / "numba"


def test_a_child_running_other_sources_keys_a_folder_of_its_own(tmp_path: Path) -> None:
    """The folder a parent keyed is inherited; a child of another build that used it would load the kernels cached
    there for that build's paths under other sources (numba checks a kernel against its own file only)."""
    root = other_build(tmp_path)
    parent, child = parent_and_child(tmp_path, str(root))
    assert child != parent
    assert child == cache_dir({"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(root)})  # its own key


def test_a_folder_set_by_hand_is_inherited_by_every_child(tmp_path: Path) -> None:
    mine = str(tmp_path / "mine")
    parent, child = parent_and_child(tmp_path, str(other_build(tmp_path)), {"NUMBA_CACHE_DIR": mine})
    assert parent == child == mine


def test_a_child_of_other_sources_is_started_without_the_keyed_folder(monkeypatch) -> None:
    """For an older engine in the child, which would take an inherited folder as set by hand."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/keyed")
    monkeypatch.setenv(KEYED_ENV, "/keyed")
    env = environment_for_other_sources()
    assert "NUMBA_CACHE_DIR" not in env and KEYED_ENV not in env and env["PATH"] == os.environ["PATH"]
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/by-hand")
    assert environment_for_other_sources()["NUMBA_CACHE_DIR"] == "/by-hand"


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
    env = {**without_cache_settings(), "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    subprocess.run([sys.executable, "-c", NUMBA_FIRST], check=True, env=env, cwd=tmp_path)
    assert not list(tmp_path.glob("__pycache__/*.nbi"))
    assert list((tmp_path / "cache" / "arbiter" / "numba").glob("*/*/kernel.twice-*.nbi"))
