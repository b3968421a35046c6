"""The schema as numbered migrations, one definition for both stores.

Migrations are written in SQLite's dialect; ``for_postgresql`` turns one into PostgreSQL's by
rewriting the few types that differ (a row id, REAL, BLOB, WITHOUT ROWID), and PostgreSQL gets a
case-insensitive ICU collation named ``nocase`` so ``COLLATE NOCASE`` means the same in both.
SQLite counts applied migrations in ``PRAGMA user_version``, PostgreSQL in ``arbiter_schema``.

To change the schema, append a migration: never edit one that has shipped, since databases in
the field already ran it. Each runs in its own transaction together with the version bump, so
a crash leaves the database at the old version or the new one, never between.
"""

from __future__ import annotations

import re
import sqlite3

MIGRATIONS: tuple[str, ...] = (
    # 1: players, games with their moves, ratings and rating history.
    """
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        kind TEXT NOT NULL CHECK (kind IN ('bot', 'human')),
        token_selector TEXT NOT NULL UNIQUE,   -- the public half of the token, to find the row
        token_hash BLOB NOT NULL,              -- sha256 of the secret half
        created REAL NOT NULL,                 -- unix time
        revoked REAL                           -- unix time, NULL while the token is valid
    );

    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        match_id TEXT NOT NULL UNIQUE,
        game TEXT NOT NULL,
        params TEXT NOT NULL,                  -- JSON map
        first_name TEXT NOT NULL COLLATE NOCASE,
        second_name TEXT NOT NULL COLLATE NOCASE,
        first_id INTEGER REFERENCES players(id),   -- NULL for a guest
        second_id INTEGER REFERENCES players(id),
        clock TEXT NOT NULL,                   -- JSON map
        rated INTEGER NOT NULL CHECK (rated IN (0, 1)),
        started REAL NOT NULL,
        ended REAL,                            -- NULL while live or after a crash
        result TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
        reason TEXT
    );
    CREATE INDEX games_by_game ON games (game, started);
    CREATE INDEX games_by_first ON games (first_name, started);
    CREATE INDEX games_by_second ON games (second_name, started);
    CREATE INDEX games_unfinished ON games (started) WHERE ended IS NULL;

    CREATE TABLE moves (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL CHECK (ply >= 0),
        move TEXT NOT NULL,                    -- JSON of the wire value
        elapsed_ms INTEGER NOT NULL CHECK (elapsed_ms >= 0),
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;

    CREATE TABLE ratings (
        player_id INTEGER NOT NULL REFERENCES players(id),
        game TEXT NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        draws INTEGER NOT NULL,
        losses INTEGER NOT NULL,
        updated REAL NOT NULL,
        PRIMARY KEY (player_id, game)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_by_game ON ratings (game, rating);

    CREATE TABLE rating_history (
        id INTEGER PRIMARY KEY,
        player_id INTEGER NOT NULL REFERENCES players(id),
        game TEXT NOT NULL,
        game_id INTEGER NOT NULL REFERENCES games(id),
        rating_before REAL NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        at REAL NOT NULL
    );
    CREATE INDEX rating_history_by_player ON rating_history (player_id, game, at);
    CREATE INDEX rating_history_by_game ON rating_history (game_id);
    """,
    # 2: the analysis a move carried (its `info` map, JSON), shown to spectators and in replays.
    """
    ALTER TABLE moves ADD COLUMN info TEXT;
    """,
    # 3: rating pools (pools.py): each game's pool and the levels asked of its players; ratings
    # by player, pool and level (0: the player's own). The old per-game ratings are dropped: the
    # store rebuilds every rating from the games (ratings_outdated, while a game has no pool).
    """
    ALTER TABLE games ADD COLUMN pool TEXT;
    ALTER TABLE games ADD COLUMN first_level INTEGER;
    ALTER TABLE games ADD COLUMN second_level INTEGER;
    CREATE INDEX games_by_pool ON games (pool, ended);
    DROP TABLE ratings;
    CREATE TABLE ratings (
        player_id INTEGER NOT NULL REFERENCES players(id),
        pool TEXT NOT NULL,
        level INTEGER NOT NULL,                -- 0: the player's own level
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        draws INTEGER NOT NULL,
        losses INTEGER NOT NULL,
        updated REAL NOT NULL,
        PRIMARY KEY (player_id, pool, level)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_by_pool ON ratings (pool, rating);
    DELETE FROM rating_history;
    ALTER TABLE rating_history ADD COLUMN pool TEXT NOT NULL DEFAULT '';
    ALTER TABLE rating_history ADD COLUMN level INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX rating_history_by_pool ON rating_history (player_id, pool, level, at);
    """,
    # 4: the plies of a balanced opening a game started from (shown in replays).
    """
    ALTER TABLE games ADD COLUMN opening INTEGER NOT NULL DEFAULT 0;
    """,
    # 5: moves without the foreign key to games. PostgreSQL checks one with a locking query per
    # row, which cost more than the row itself; the stores write a move only under a game id they
    # read back from games in the same or an earlier transaction (or join games by match id), and
    # games are never deleted. `arbiter check` reports a move without its game.
    """
    CREATE TABLE moves_next (
        game_id INTEGER NOT NULL,
        ply INTEGER NOT NULL CHECK (ply >= 0),
        move TEXT NOT NULL,                    -- JSON of the wire value
        elapsed_ms INTEGER NOT NULL CHECK (elapsed_ms >= 0),
        info TEXT,                             -- JSON map of the move's analysis, or NULL
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    INSERT INTO moves_next (game_id, ply, move, elapsed_ms, info)
        SELECT game_id, ply, move, elapsed_ms, info FROM moves;
    DROP TABLE moves;
    ALTER TABLE moves_next RENAME TO moves;
    """,
    # 6: accounts from the browser: a person's password (argon2id), the bots a person created,
    # and signed-in browser sessions (a cookie's selector and the hash of its secret).
    """
    ALTER TABLE players ADD COLUMN password_hash TEXT;
    ALTER TABLE players ADD COLUMN owner_id INTEGER REFERENCES players(id);
    CREATE INDEX players_by_owner ON players (owner_id);
    CREATE TABLE sessions (
        selector TEXT PRIMARY KEY,
        secret_hash BLOB NOT NULL,             -- sha256 of the cookie's secret half
        player_id INTEGER NOT NULL REFERENCES players(id),
        created REAL NOT NULL,
        expires REAL NOT NULL
    );
    CREATE INDEX sessions_by_player ON sessions (player_id);
    """,
    # 7: moves the server refused in live matches, for the players' failure reports: a game counts
    # them all (refused) and keeps the first few (base.MAX_REFUSALS_KEPT), so a flood stays small.
    """
    ALTER TABLE games ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE refused_moves (
        game_id INTEGER NOT NULL,
        seq INTEGER NOT NULL CHECK (seq >= 1),  -- 1 for the game's first refused move
        ply INTEGER NOT NULL CHECK (ply >= 0),  -- the moves accepted before it
        color INTEGER NOT NULL CHECK (color IN (0, 1)),
        move TEXT NOT NULL,                    -- JSON of the wire value, cut short
        code TEXT NOT NULL,                    -- the protocol error code
        at REAL NOT NULL,                      -- unix time
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    """,
    # 8: the ban list (players by name, IP networks in CIDR form) and its version, which every
    # change bumps in the same transaction, so a server notices a change with one small read.
    """
    CREATE TABLE bans (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('player', 'network')),
        target TEXT NOT NULL COLLATE NOCASE,  -- a player's name, or a network like 203.0.113.0/24
        reason TEXT,
        created REAL NOT NULL,                -- unix time
        UNIQUE (kind, target)
    );
    CREATE TABLE bans_version (version INTEGER NOT NULL);
    INSERT INTO bans_version (version) VALUES (0);
    """,
    # 9: the operator's revocation (`arbiter player revoke`) apart from the owner's (the browser),
    # so an owner rotating a bot's token cannot lift it; only `arbiter player reinstate` does.
    # Revocations made before could be either's: they count as the operator's.
    """
    ALTER TABLE players ADD COLUMN operator_revoked REAL;  -- unix time, NULL unless the operator revoked it
    UPDATE players SET operator_revoked = revoked, revoked = NULL WHERE revoked IS NOT NULL;
    """,
    # 10: the ends a registered player's client has not confirmed reading (SPEC section 9): written
    # with the game's end, deleted when the client's pong confirms it, sent after a welcome otherwise.
    """
    CREATE TABLE unread_ends (
        player_id INTEGER NOT NULL REFERENCES players(id),
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        PRIMARY KEY (player_id, game_id)
    ) WITHOUT ROWID;
    """,
    # 11: tournaments (tournaments/): each one's settings (JSON), its field in the order it
    # entered (seeds set at the start), and its pairings with the game played for each and the
    # score (black's), a forfeit's reason or a played game's cause.
    """
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        spec TEXT NOT NULL,                    -- JSON map (tournaments/spec.py)
        state TEXT NOT NULL CHECK (state IN ('open', 'running', 'paused', 'finished')),
        created REAL NOT NULL                  -- unix time
    );
    CREATE TABLE tournament_entrants (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        player_id INTEGER NOT NULL REFERENCES players(id),
        entered REAL NOT NULL,                 -- unix time: the field's order
        seed INTEGER,                          -- 1 for the top seed, set at the start
        withdrawn REAL,                        -- unix time, NULL while in the field
        PRIMARY KEY (tournament_id, player_id)
    ) WITHOUT ROWID;
    CREATE TABLE tournament_games (
        tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
        round INTEGER NOT NULL CHECK (round >= 1),
        board INTEGER NOT NULL CHECK (board >= 1),
        black TEXT NOT NULL,
        white TEXT,                            -- NULL: a bye
        opening INTEGER,
        match_id TEXT,                         -- the game played for it
        score REAL CHECK (score IN (0, 0.5, 1)),
        forfeit TEXT,
        cause TEXT,
        PRIMARY KEY (tournament_id, round, board)
    ) WITHOUT ROWID;
    """,
    # 12: moves beside a casual game's line (SPEC section 15): the moves taken back (they leave
    # `moves`, whose plies the replayed line takes again) and the hints given, in the order they came.
    """
    CREATE TABLE aside_moves (
        game_id INTEGER NOT NULL,
        seq INTEGER NOT NULL CHECK (seq >= 1),  -- 1 for the game's first
        kind TEXT NOT NULL CHECK (kind IN ('taken_back', 'hint')),
        ply INTEGER NOT NULL CHECK (ply >= 0),  -- the ply it was played (taken back) or suggested (hint) at
        color INTEGER NOT NULL CHECK (color IN (0, 1)),  -- its mover, or the player the hint was for
        move TEXT NOT NULL,                    -- JSON of the wire value
        elapsed_ms INTEGER NOT NULL DEFAULT 0,  -- a taken-back move's thinking time
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    """,
    # 13: a swap opening's choices (JSON list of {by: player name, choice, ply}); NULL without one.
    """
    ALTER TABLE games ADD COLUMN swap TEXT;
    """,
    # 14: each finished game's review by the analysis workers (SPEC section 18), cached as its JSON so
    # a review is made once and served without a worker; deleted with its game.
    """
    CREATE TABLE reviews (
        match_id TEXT PRIMARY KEY,
        review TEXT NOT NULL,                 -- the review's JSON (docs/RECORDS.md)
        created REAL NOT NULL                 -- unix time
    );
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)


class NewerSchema(Exception):
    """The file was written by a newer Arbiter whose schema this one does not know."""


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database to SCHEMA_VERSION; return the version it had. ``conn`` is in autocommit mode."""
    found = conn.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise NewerSchema(f"schema version {found}, this Arbiter knows up to {SCHEMA_VERSION}")
    for version in range(found + 1, SCHEMA_VERSION + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have migrated meanwhile.
            if conn.execute("PRAGMA user_version").fetchone()[0] >= version:
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(MIGRATIONS[version - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return found


# PostgreSQL's spelling of what SQLite's migrations say, applied in order.
_POSTGRESQL_TYPES = (
    (re.compile(r"\bINTEGER PRIMARY KEY\b"), "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),  # PostgreSQL's REAL is 4 bytes: unix times need 8
    (re.compile(r"\bBLOB\b"), "BYTEA"),
    (re.compile(r"\s*WITHOUT ROWID"), ""),
    # PostgreSQL wants the collation right after the type, before any constraint.
    (re.compile(r"\bTEXT\b([^,\n]*?) COLLATE NOCASE"), r"TEXT COLLATE nocase\1"),
)
# Created before migration 1 on PostgreSQL: equal up to case, as SQLite's NOCASE (ICU, level 2).
POSTGRESQL_PRELUDE = (
    "CREATE COLLATION IF NOT EXISTS nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
)


def for_postgresql(migration: str) -> list[str]:
    """The statements of one migration, in PostgreSQL's dialect."""
    statements = _statements(migration)
    for pattern, replacement in _POSTGRESQL_TYPES:
        statements = [pattern.sub(replacement, statement) for statement in statements]
    return statements


def _statements(script: str) -> list[str]:
    """Split a migration into statements (``executescript`` would commit behind our back)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line.split("--", 1)[0].rstrip() + "\n"
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        raise ValueError(f"incomplete SQL statement in a migration: {current.strip()[:60]!r}")
    return statements
