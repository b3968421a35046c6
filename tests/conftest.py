"""Markers by what a test needs, so `make test-fast` can leave the heavy ones out (CI runs them all).

- ``browser``: every test under tests/browser (headless Chromium);
- ``process``: every test in a module that starts processes (``arbiter`` commands, servers, bots, pip),
  and every test under tests/cluster (its fixtures start three server nodes);
- ``slow``: set by hand on long strength, load and install checks.

It also holds the session's PostgreSQL and Redis servers (arbiter.soak.services), started on first use, and loads
the hypothesis profile: every property test draws the same examples on every run, so a run's result never
depends on luck. ``pytest --hypothesis-profile=explore`` draws fresh ones, to hunt for new failures by hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import settings

from arbiter.soak import services  # arbiter.soak.services: the real PostgreSQL and Redis the tests start

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("deterministic")

BROWSER_TESTS = Path(__file__).resolve().parent / "browser"
CLUSTER_TESTS = Path(__file__).resolve().parent / "cluster"
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
        elif CLUSTER_TESTS in path.parents or starts_processes(str(path)):
            item.add_marker(pytest.mark.process)
        if CLUSTER_TESTS in path.parents or path.name == "test_browser_cluster.py":
            # Three nodes, PostgreSQL and Redis a test: two clusters at once on two cores starve each
            # other's Redis traffic past the tests' bounds, so under `--dist loadgroup` they take turns.
            item.add_marker(pytest.mark.xdist_group("cluster"))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[services.PostgresServer]:
    """One PostgreSQL for the whole run, started on first use; each test takes its own database."""
    with services.postgres() as server:
        yield server


@pytest.fixture(scope="session")
def redis_server() -> Iterator[services.RedisServer]:
    with services.redis() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: services.PostgresServer) -> Iterator[str]:
    """A fresh, empty database of the session's PostgreSQL, dropped after the test."""
    name = f"test_{next(_databases)}"
    url = postgres_server.create_database(name)
    yield url
    postgres_server.drop_database(name)


_databases = itertools.count()
