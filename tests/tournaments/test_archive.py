"""The archive: a zip of psq files named as Gomocup's (Piskvork's tournament manager) that reads
back game for game, and one SGF collection."""

from __future__ import annotations

import io
import random
import zipfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import create_game
from arbiter.server.results.game_files import read_psq, read_sgf
from arbiter.server.store.base import GameRecord, GameStart, MoveRecord
from arbiter.server.tournaments import archive
from arbiter.server.tournaments.model import FormatError

PLAYERS = ["alpha", "beta", "gamma", "delta"]


def record(match: str, black: str, white: str, seed: int, plies: int, game: str = "gomoku") -> GameRecord:
    rules = create_game(game, {})
    state, rng, moves = rules.new_state(), random.Random(seed), []
    while not state.is_terminal and len(moves) < plies:
        state.play_action(int(rng.choice(list(state.legal_actions()))))
        moves.append(MoveRecord(len(moves), rules.encode_move(state.moves()[-1]), rng.randrange(5000), None))
    outcome = state.outcome
    start = GameStart(match, game, {}, (black, white), {"initial_ms": 120_000}, True, 1_764_633_600.0 + seed)
    return GameRecord(start, moves, outcome.result if outcome else None, outcome.reason if outcome else None, None)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.permutations(PLAYERS), st.integers(0, 2**32), st.integers(0, 30)), max_size=6))
def test_the_psq_zip_reads_back_game_for_game(games: list[tuple[list[str], int, int]]) -> None:
    records = [record(f"m{i}", pair[0], pair[1], seed, plies) for i, (pair, seed, plies) in enumerate(games)]
    data = archive.psq_zip(records, players=PLAYERS)
    assert data == archive.psq_zip(records, players=PLAYERS)  # the same games, the same bytes
    with zipfile.ZipFile(io.BytesIO(data)) as zipped:
        names = zipped.namelist()
        read = [read_psq(zipped.read(name).decode())[0] for name in names]
    assert read == records
    assert len(set(names)) == len(names)


def test_files_are_named_as_piskvorks_tournament_manager_names_them() -> None:
    records = [
        record("m1", "alpha", "gamma", 1, 9),
        record("m2", "gamma", "alpha", 2, 9),
        record("m3", "alpha", "gamma", 3, 9),  # the same pair, as many moves: the counter tells them apart
        record("m4", "delta", "beta", 4, 4),
    ]
    with zipfile.ZipFile(io.BytesIO(archive.psq_zip(records, players=PLAYERS))) as zipped:
        assert zipped.namelist() == ["0x2-9(1).psq", "2x0-9(1).psq", "0x2-9(2).psq", "3x1-4(1).psq"]
    with zipfile.ZipFile(io.BytesIO(archive.psq_zip(records[3:]))) as zipped:
        assert zipped.namelist() == ["1x0-4(1).psq"]  # by default the players sorted: beta 0, delta 1


def test_the_sgf_collection_holds_every_game() -> None:
    records = [record("m1", "alpha", "beta", 5, 20), record("m2", "beta", "alpha", 6, 11)]
    assert read_sgf(archive.sgf_collection(records)) == records
    assert archive.sgf_collection([]) == ""


def test_what_the_archive_cannot_hold_is_refused_with_a_code() -> None:
    with pytest.raises(FormatError) as stranger:
        archive.psq_zip([record("m1", "alpha", "zed", 1, 3)], players=PLAYERS)
    assert stranger.value.code == "unknown_player"
    with pytest.raises(FormatError) as board:
        archive.sgf_collection([record("m1", "alpha", "beta", 1, 3, game="qubic")])
    assert board.value.code == "not_a_board"
