"""Markers by what a test needs, so `make test-fast` can leave the heavy ones out (CI runs them all).

- ``browser``: every test under tests/browser (headless Chromium);
- ``process``: every test in a module that starts processes (``arbiter`` commands, servers, bots, pip);
- ``slow``: set by hand on long strength, load and install checks.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

BROWSER_TESTS = Path(__file__).resolve().parent / "browser"
STARTS_PROCESSES = ("subprocess.", "create_subprocess_exec", "BotProcess", "multiprocessing.get_context")


@cache
def starts_processes(module_file: str) -> bool:
    source = Path(module_file).read_text()
    return any(sign in source for sign in STARTS_PROCESSES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path))
        if BROWSER_TESTS in path.parents:
            item.add_marker(pytest.mark.browser)
        elif starts_processes(str(path)):
            item.add_marker(pytest.mark.process)
