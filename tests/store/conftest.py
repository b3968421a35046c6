"""A real SQLite store in a temporary folder, opened and closed around each test; the server suite's
helpers (tests/server: a real ``arbiter serve``, its protocol client, ``arbiter check``) for the
upgrade tests."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arbiter.server.store.sqlite import SqliteStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "arbiter.db")
    await opened.open()
    yield opened
    await opened.close()
