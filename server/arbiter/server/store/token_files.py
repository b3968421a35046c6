"""Tokens kept in files for unattended players (the default bots, compose services).

A token is shown once and stored only hashed, so a bot that must log in again after a restart
keeps its token in a file readable by its owner only. ``ensure_token_file`` is idempotent: a
file whose token still logs in as that player is kept; otherwise the account is created or given
a fresh token, and the file rewritten.
"""

from __future__ import annotations

import os
from pathlib import Path

from .base import PlayerKind, Store, StoreError


async def ensure_token_file(store: Store, name: str, kind: PlayerKind, path: Path) -> str:
    """The token for ``name`` from ``path``, issuing (and saving) a new one when it does not log in."""
    token = path.read_text().strip() if path.exists() else ""
    player = await store.authenticate(token) if token else None
    if player is not None and (player.name, player.kind) == (name, kind):
        return token
    existing = await store.get_player(name)
    if existing is not None and existing.kind != kind:
        raise StoreError(f"{name!r} is registered as a {existing.kind}, not a {kind}")
    token = await store.add_player(name, kind) if existing is None else await store.reissue_token(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(token + "\n")
    os.chmod(temporary, 0o600)
    temporary.replace(path)
    return token
