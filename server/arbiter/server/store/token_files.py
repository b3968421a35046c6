"""Tokens kept in files for unattended players (the default bots, compose services).

A token is shown once and stored only hashed, so a bot that must log in again after a restart
keeps its token in a file readable by its owner only: created 0600 (never wider for a moment),
in a folder made 0700 when it did not exist. ``ensure_token_file`` is idempotent: a
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
    if existing is not None and existing.revoked_by_operator:
        raise StoreError(f"{name!r} is revoked by the operator; `arbiter player reinstate {name}` lets it back in")
    token = await store.add_player(name, kind) if existing is None else await store.reissue_token(name)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.unlink(missing_ok=True)  # a leftover may have other permissions: the new one is made 0600
    write_private(temporary, token + "\n")
    temporary.replace(path)
    return token


def write_private(path: Path, text: str) -> None:
    """Write a new file readable by its owner only: created 0600, never wider for a moment
    (FileExistsError if it exists)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
