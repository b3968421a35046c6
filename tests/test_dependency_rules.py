"""The dependency rules between the parts hold, and each of them can fail; the tests and the benchmarks
find their helpers by import alone.

``lint-imports`` (import-linter, configured in the root pyproject.toml) checks the real tree in
``make lint``. Here it runs on a temporary copy of the five source folders: as copied, every contract
is kept; with one deliberately bad import added, the contract that forbids it is reported broken, and
so is the server's layers contract when a module of the server is given no layer. The layer pictures
of docs/ARCHITECTURE.md are the server's layers contracts, so they cannot drift apart.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PORTIONS = ["protocol", "engine", "server", "bots", "src"]  # each holds a part of the `arbiter` namespace
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
SERVER = ROOT / "server" / "arbiter" / "server"


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
        ("server/arbiter/server/play/session.py", "import arbiter.server.play.matches", "play's layers"),
        ("server/arbiter/server/play/lobby.py", "import arbiter.server.play.challenges", "play's layers"),
        ("server/arbiter/server/basics/clock.py", "import arbiter.server.store.base", "the server's layers"),
        ("server/arbiter/server/net/http.py", "import arbiter.server.play.session", "the server's layers"),
        ("server/arbiter/server/results/records.py", "import arbiter.server.access.accounts", "the server's layers"),
        ("server/arbiter/server/store/base.py", "import arbiter.server.config", "the server's layers"),
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


def test_a_server_module_without_a_layer_breaks_the_layers(tmp_path: Path) -> None:
    copy = copy_tree(tmp_path)
    (copy / "server" / "arbiter" / "server" / "newcomer.py").write_text('"""A module nobody placed."""\n')
    result = lint(copy)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "the server's layers: each part imports only the layers below it BROKEN" in result.stdout
    assert "arbiter.server.newcomer" in result.stdout


def server_layer_contracts() -> dict[str, tuple[list[set[str]], bool]]:
    """Each layers contract inside arbiter.server, by container: its layers top down (a set of names each),
    and whether it is exhaustive."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return {
        contract["containers"][0]: (
            [set(re.split(r"\s*[|:]\s*", layer.strip())) for layer in contract["layers"]],
            contract.get("exhaustive", False),
        )
        for contract in contracts
        if contract["type"] == "layers" and contract["containers"][0].startswith("arbiter.server")
    }


def parts(package: Path) -> set[str]:
    """A package's modules and subpackages (its __init__ aside), by name."""
    return {path.stem for path in package.glob("*.py") if path.name != "__init__.py"} | {
        path.name for path in package.iterdir() if (path / "__init__.py").is_file()
    }


def test_every_module_of_the_server_is_in_a_layer() -> None:
    contracts = server_layer_contracts()
    assert contracts["arbiter.server"][1], "the server's layers contract is exhaustive"
    for container, (layers, exhaustive) in contracts.items():
        if exhaustive:
            package = SERVER.joinpath(*container.split(".")[2:])
            declared = {name for layer in layers for name in layer}
            assert declared == parts(package), (
                f"give each part of {container} its layer in pyproject.toml (and the doc)"
            )


def test_the_architecture_doc_draws_the_layers_contracts() -> None:
    """Each picture in docs/ARCHITECTURE.md is a fenced block of one layer a line (``─►`` before every one
    but the first, siblings split by ``|``): the server's, and play's inside it, each as its contract has it."""
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    blocks = re.findall(r"^```\n([a-z_| ]+\n(?: *─► [a-z_| ]+\n)+)```$", doc, re.MULTILINE)
    pictures = [[set(re.split(r"\s*\|\s*", line.strip().removeprefix("─►").strip())) for line in block.splitlines()]
                for block in blocks]  # fmt: skip
    contracts = {container: layers for container, (layers, _) in server_layer_contracts().items()}
    assert contracts["arbiter.server"] in pictures, (
        "docs/ARCHITECTURE.md does not draw the server's layers as pyproject.toml has them"
    )
    for picture in pictures:
        assert picture in contracts.values(), f"docs/ARCHITECTURE.md draws layers no contract has: {picture}"


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
