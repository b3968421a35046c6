"""A tournament's games for download: a zip of psq files, one a game, as Gomocup's archives, and
one SGF collection (both written by results/game_files.py, so they read back exactly).

Gomocup's archives are the folders Piskvork's tournament manager writes, one file a game named
``{first}x{second}-{moves}({n}).psq``: the two players' numbers in the tournament (the first
moved first), the number of moves, and a counter from 1 that tells apart games of one pair with
as many moves. Here the numbers are the players' indices in ``players`` (the tournament's entrants
by seed, 0-based, as Piskvork counts), and the files are in the order of ``records``.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from arbiter.server.results.game_files import GameFileError, GameRecord, write_psq, write_sgf
from arbiter.server.tournaments.model import FormatError

ZIP_TIMES = (315_532_800, 4_354_819_199)  # what a zip's date and time can say: 1980 to 2107


def psq_name(first: int, second: int, moves: int, n: int) -> str:
    return f"{first}x{second}-{moves}({n}).psq"


def psq_zip(records: Iterable[GameRecord], *, players: Sequence[str] | None = None) -> bytes:
    """Every game as a psq file in one zip (stamped with the game's start, so the same games give
    the same bytes). ``players``: the numbering of the names (default: every player, sorted)."""
    games = list(records)
    order = list(players) if players is not None else sorted({n for r in games for n in r.start.players})
    number = {name: i for i, name in enumerate(order)}
    seen: Counter[tuple[int, int, int]] = Counter()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for record in games:
            try:
                first, second = (number[name] for name in record.start.players)
            except KeyError as missing:
                raise FormatError(
                    "unknown_player", f"{missing.args[0]} is not among the tournament's players"
                ) from None
            key = (first, second, len(record.moves))
            seen[key] += 1
            entry = zipfile.ZipInfo(psq_name(*key, seen[key]), _stamp(record.start.started))
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, _written(write_psq, record))
    return out.getvalue()


def sgf_collection(records: Iterable[GameRecord]) -> str:
    """Every game in one SGF collection, in the order given."""
    return "".join(_written(write_sgf, record) for record in records)


def _written(write: Callable[[Iterable[GameRecord]], str], record: GameRecord) -> str:
    try:
        return write([record])
    except GameFileError as error:
        raise FormatError("not_a_board", f"match {record.start.match_id}: {error}") from None


def _stamp(unix: float) -> tuple[int, int, int, int, int, int]:
    moment = time.gmtime(min(max(unix, ZIP_TIMES[0]), ZIP_TIMES[1]))
    return moment.tm_year, moment.tm_mon, moment.tm_mday, moment.tm_hour, moment.tm_min, moment.tm_sec
