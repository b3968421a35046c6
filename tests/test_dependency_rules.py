"""The dependency rules between the parts hold, and each of them can fail; the tests and the benchmarks
find their helpers by import alone.

``lint-imports`` (import-linter, configured in the root pyproject.toml) checks the real tree in
``make lint``. Here it runs on a temporary copy of the five source folders: as copied, every contract
is kept; with one deliberately bad import added, the contract that forbids it is reported broken.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PORTIONS = ["protocol", "engine", "server", "bots", "src"]  # each holds a part of the `arbiter` namespace
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def copy_tree(tmp_path: Path) -> Path:
    """The five folders' Python sources and the root pyproject.toml, in a fresh folder."""
    copy = tmp_path / "tree"
    for portion in PORTIONS:
        shutil.copytree(ROOT / portion / "arbiter", copy / portion / "arbiter",
                        ignore=shutil.ignore_patterns("__pycache__", "node_modules", "web"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def lint(copy: Path) -> subprocess.CompletedProcess[str]:
    """import-linter on the copy: its folders come first on the path, before the installed parts."""
    path = os.pathsep.join(str(copy / portion) for portion in PORTIONS)
    return subprocess.run([str(LINT_IMPORTS), "--config", str(copy / "pyproject.toml"), "--no-cache"],
                          cwd=copy, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": path})  # fmt: skip


def add_import(copy: Path, module: str, statement: str) -> None:
    path = copy / module
    path.write_text(path.read_text() + f"\n{statement}  # a deliberately bad import\n")


def test_the_copied_tree_keeps_every_contract(tmp_path: Path) -> None:
    result = lint(copy_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout and "BROKEN" not in result.stdout


@pytest.mark.parametrize(
    ("module", "statement", "contract"),
    [
        ("protocol/arbiter/protocol/codec.py", "import arbiter.engine", "protocol imports nothing else of arbiter"),
        ("engine/arbiter/engine/ops.py", "import arbiter.protocol.codec", "engine imports nothing else of arbiter"),
        ("engine/arbiter/engine/perft.py", "import arbiter.bots.brain", "engine imports nothing else of arbiter"),
        ("bots/arbiter/bots/client/core.py", "import arbiter.server.config", "bots and server never import each other"),
        ("server/arbiter/server/play/match.py", "import arbiter.bots.brain", "bots and server never import each other"),
        ("server/arbiter/server/play/players.py", "import arbiter.server.hub", "the server's layers"),
        ("server/arbiter/server/play/session.py", "import arbiter.server.play.matches", "the server's layers"),
        ("engine/arbiter/cli/errors.py", "import arbiter.server.app", "the command host imports only the engine"),
        ("bots/arbiter/bots/gomoku/evaluation.py", "import arbiter.lab.gomoku_tune", "the product imports neither"),
        ("src/arbiter/stack/series.py", "import arbiter.soak.ladder", "the product imports neither"),
        ("src/arbiter/lab/strength_report.py", "import arbiter.soak.public", "the lab and the soaks never"),
    ],
)
def test_a_bad_import_breaks_its_contract(tmp_path: Path, module: str, statement: str, contract: str) -> None:
    copy = copy_tree(tmp_path)
    add_import(copy, module, statement)
    result = lint(copy)
    assert result.returncode == 1, result.stdout + result.stderr
    broken = [line.removesuffix(" BROKEN") for line in result.stdout.splitlines() if line.endswith(" BROKEN")]
    assert any(name.startswith(contract) for name in broken), result.stdout  # (others may break through it)


def helper_hacks(source: str, *, benchmark: bool) -> list[str]:
    """What a file of tests/ or benchmarks/ does that it should not: touch ``sys.path`` (shared test helpers
    are the ``tests.support`` package), or, in a benchmark, import the tests (it measures the product alone)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", None) == "sys":
            found.append((node.lineno, "sys.path"))
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        if benchmark and any(name == "tests" or name.startswith("tests.") for name in names):
            found.append((node.lineno, f"imports {names[0]}"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_no_test_or_benchmark_edits_sys_path_and_no_benchmark_imports_the_tests() -> None:
    found = {
        str(path.relative_to(ROOT)): hacks
        for folder in ("tests", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if (hacks := helper_hacks(path.read_text(), benchmark=folder == "benchmarks"))
    }
    assert not found, found


def test_the_helper_rule_sees_a_sys_path_edit_and_a_benchmark_importing_the_tests() -> None:
    source = "import sys\nsys.path.insert(0, 'tests')\nfrom tests.support.wsclient import Client\n"
    assert helper_hacks(source, benchmark=True) == ["line 2: sys.path", "line 3: imports tests.support.wsclient"]
    assert helper_hacks(source, benchmark=False) == ["line 2: sys.path"]
