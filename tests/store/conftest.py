"""A real SQLite store in a temporary folder, opened and closed around each test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arbiter.server.store.sqlite import SqliteStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "arbiter.db")
    await opened.open()
    yield opened
    await opened.close()
