"""Standard game files for the m,n,k games and five in a row under a rule (renju, caro): Gomocup's
``.psq`` (Piskvork) and SGF (FF[4], GM[4]).

Beside Arbiter's own text record (``records.py``), these are what the gomoku world's tools read:
Piskvork and the Gomocup managers write ``.psq``, and SGF editors and databases read SGF with
``GM[4]`` (gomoku). Only m,n,k games and the ``five`` family have a board these formats can
describe; other games are refused with ``GameFileError``. SGF names the rule of five in a row in
``RU`` by Gomocup's names (engine/arbiter/engine/gomocup.py; FF[4] registers no values for
gomoku); Piskvork's psq has no rule (its ``savePsq`` writes the board, the players' levels, who
began, the moves, the names and an error code), so another tool's psq is read under the
``rule`` it is given.

Both writers add what the format has no field for in a way its readers skip, so a stored game
round-trips exactly: in ``.psq`` one ``Arbiter key=value …`` line after the ``-1`` that ends the
file's own part; in SGF the root's game comment ``GC``. A file without it (written by another tool)
is read all the same: a psq board of W×H becomes five in a row on that board (under ``rule``,
free style by default), SGF's ``SZ`` likewise (under its ``RU``), and the result is what the
moves give (the engine replays every move; an illegal one is a ``GameFileError`` naming its line
or node).

psq, one game per file::

    Piskvorky 15x15, 8:8, 0
    8,8,1200            x,y (1-based, x the column), then the mover's thinking time in ms
    9,9,900
    alice               the first player, then the second
    bob
    -1

SGF, any number of games per file (a collection)::

    (;FF[4]GM[4]CA[UTF-8]SZ[15]RU[Renju]PB[alice]PW[bob]RE[B+R];B[hh]C[elapsed_ms=1200];W[ii]C[elapsed_ms=900])

SGF coordinates are two letters, column then row, ``a`` for the first. No SGF library is used:
the maintained ones on PyPI (sgfmill) read Go only (GM[1]); the subset here is small.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arbiter.engine import EngineError, Game, create_game
from arbiter.engine.gomocup import rule_name, rule_named, rule_params
from arbiter.engine.registry import PRESETS
from arbiter.server.results.records import (
    RecordError,
    format_map,
    format_records,
    format_time,
    parse_map,
    parse_records,
    parse_time,
)
from arbiter.server.store.base import GameRecord, GameStart, MoveRecord

from .review_text import move_comment

Reviews = Mapping[str, dict[str, Any]]  # a game's review by its match id (SPEC section 18)

FREESTYLE_K = 5  # what a psq or SGF file from another tool means: five in a row
BOARD_FAMILIES = ("mnk", "five")  # the games on a board of stones that these formats describe
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_PSQ_HEADER = re.compile(r"^\s*Piskvorky\s+(\d+)\s*x\s*(\d+)\b")
_PSQ_MOVE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
_SGF_WIN = {"line": "", "resign": "R", "timeout": "T"}  # any other winning reason: F (forfeit)
_SGF_REASONS = {"R": "resign", "T": "timeout", "F": "forfeit"}


class GameFileError(ValueError):
    """A game that a format cannot hold, or text that is not a valid file of it (the line is named)."""


@dataclass(frozen=True)
class Format:
    """One file format: its writer (games → text) and reader (text → games)."""

    name: str
    suffix: str
    one_game_per_file: bool
    write: Callable[..., str]  # (records, reviews=None): the reviews by match id go into the comments
    read: Callable[..., list[GameRecord]]


# --- what both formats share ----------------------------------------------------------------------
def board_of(record: GameRecord) -> Game:
    """The record's game, if it is an m,n,k game or five in a row under a rule (the only boards psq
    and SGF describe)."""
    try:
        game = create_game(record.start.game, record.start.params)
    except EngineError as error:
        raise GameFileError(str(error)) from None
    if game.family not in BOARD_FAMILIES:
        raise GameFileError(f"{game.name} is not an m,n,k game; use the text format")
    return game


def _metadata(record: GameRecord) -> str:
    """Everything of the record that the format has no field for, as one ``key=value`` map."""
    start = record.start
    values: dict[str, Any] = {
        "match": start.match_id,
        "game": start.game,
        "params": format_map(start.params),
        "result": record.result or "*",
        "reason": record.reason or "",
        "date": format_time(start.started),
        "end": "" if record.ended is None else format_time(record.ended),
        "clock": format_map(start.clock),
        "rated": start.rated,
    }
    for i, name in enumerate(start.players):
        if name in record.rating_changes:
            values[f"rating_diff{i}"] = round(record.rating_changes[name], 2)
    if any(move.info for move in record.moves):
        values["infos"] = [move.info for move in record.moves]
    if record.swap:
        values["swap"] = record.swap
    return format_map(values)


def _board_game(m: int, n: int, rule: int = 0) -> tuple[str, dict[str, Any]]:
    """The game a foreign file's board means: five in a row under ``INFO rule`` ``rule`` (free style
    by default), named by its preset when one fits."""
    family, params = rule_params(m, n, rule)
    if family == "mnk":
        params["k"] = min(FREESTYLE_K, max(m, n))
    full = create_game(family, params).params
    for name, preset in PRESETS.items():
        if preset.family == family and all(full[key] == value for key, value in preset.fixed.items()):
            return name, {key: value for key, value in params.items() if key not in preset.fixed}
    return family, params


def _assemble(
    players: tuple[str, str],
    cells: list[tuple[int, int, int, dict[str, Any] | None]],
    meta: Mapping[str, Any] | None,
    board: tuple[int, int],
    *,
    rule: int = 0,
    where: Callable[[int], str],
    match_id: str,
    started: float,
) -> GameRecord:
    """A record from a file's moves ``(x, y, elapsed_ms, info)``: replayed by the engine, tagged by ``meta``."""
    try:
        if meta is not None:
            name, params = str(meta.get("game", "")), parse_map(str(meta.get("params", "")))
        else:
            name, params = _board_game(*board, rule)
        game = create_game(name, params)
    except EngineError as error:
        raise GameFileError(f"{where(-1)}: {error}") from None
    if game.family not in BOARD_FAMILIES or (game.params["m"], game.params["n"]) != board:
        raise GameFileError(f"{where(-1)}: the board is {board[0]}x{board[1]}, but the game is {game}")
    state = game.new_state()
    moves = []
    infos = meta.get("infos") if meta is not None else None
    for i, (x, y, elapsed, info) in enumerate(cells):
        try:
            state.play(game.decode_move([x, y]))
        except EngineError as error:
            raise GameFileError(f"{where(i)}: move {i + 1}: {error}") from None
        if isinstance(infos, list) and i < len(infos) and isinstance(infos[i], dict):
            info = infos[i]
        moves.append(MoveRecord(i, [x, y], max(0, elapsed), info or None))
    if meta is None:
        outcome = state.outcome
        result = None if outcome is None else outcome.result
        reason = None if outcome is None else outcome.reason
        digest = hashlib.sha256(repr((players, [c[:3] for c in cells], board)).encode()).hexdigest()[:10]
        start = GameStart(match_id or f"file-{digest}", name, params, players, {}, False, started)
        return GameRecord(start, moves, result, reason, None)
    try:
        clock = parse_map(str(meta.get("clock", "")))
        result_text = str(meta.get("result", "*"))
        changes = {
            players[i]: float(meta[f"rating_diff{i}"]) for i in (0, 1) if f"rating_diff{i}" in meta
        }  # fmt: skip
        start = GameStart(str(meta.get("match") or match_id), name, params, players, clock,
                          meta.get("rated") is True, parse_time(str(meta.get("date", ""))))  # fmt: skip
        ended = parse_time(str(meta["end"])) if meta.get("end") else None
    except (RecordError, ValueError) as error:
        raise GameFileError(f"{where(-1)}: {error}") from None
    if result_text not in ("1-0", "0-1", "1/2-1/2", "*"):
        raise GameFileError(f"{where(-1)}: result {result_text!r} is not 1-0, 0-1, 1/2-1/2 or *")
    result = None if result_text == "*" else result_text
    swap = meta.get("swap")
    if swap is not None and not (isinstance(swap, list) and all(isinstance(c, dict) for c in swap)):
        raise GameFileError(f"{where(-1)}: swap {swap!r} is not a list of choices")
    return GameRecord(start, moves, result, str(meta.get("reason") or "") or None, ended, changes, swap=swap or [])


# --- psq ------------------------------------------------------------------------------------------
def write_psq(records: Iterable[GameRecord], reviews: Reviews | None = None) -> str:
    """One game as a ``.psq`` file (the format holds one game; GameFileError for more)."""
    games = list(records)
    if len(games) != 1:
        raise GameFileError(f"a .psq file holds one game, not {len(games)}")
    (record,) = games
    game = board_of(record)
    m, n = game.params["m"], game.params["n"]
    lines = [f"Piskvorky {m}x{n}, {m // 2 + 1}:{n // 2 + 1}, 0"]
    lines += [f"{x + 1},{y + 1},{move.elapsed_ms}" for move in record.moves for x, y in [game.decode_move(move.move)]]
    if any(not name.strip() or "\n" in name or "\r" in name for name in record.start.players):
        raise GameFileError("a .psq file names each player on one line")
    lines += [*record.start.players, "-1", f"Arbiter {_metadata(record)}"]
    return "\n".join(lines) + "\n"


def read_psq(text: str, *, match_id: str = "", started: float = 0.0, rule: int = 0) -> list[GameRecord]:
    """The game of a ``.psq`` file (a list of one), Arbiter's or another tool's: Piskvork writes no
    rule in a psq file, so another tool's game is five in a row under ``rule`` (``INFO rule``)."""
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    header = _PSQ_HEADER.match(lines[0]) if lines else None
    if header is None:
        raise GameFileError("line 1: a .psq file starts with 'Piskvorky WxH, …'")
    board = (int(header[1]), int(header[2]))
    cells: list[tuple[int, int, int, dict[str, Any] | None]] = []
    at: list[int] = []
    i = 1
    while i < len(lines) and (move := _PSQ_MOVE.match(lines[i])):
        cells.append((int(move[1]) - 1, int(move[2]) - 1, int(move[3]), None))
        at.append(i)
        i += 1
    rest = [(j, line.strip()) for j, line in enumerate(lines[i:], i) if line.strip()]
    names = [line for _, line in rest[: next((k for k, (_, v) in enumerate(rest) if v == "-1"), len(rest))]]
    meta = None
    for j, line in rest:
        if line.startswith("Arbiter "):
            try:
                meta = parse_map(line.removeprefix("Arbiter "), j)
            except RecordError as error:
                raise GameFileError(str(error)) from None
    players = (names[0], names[1]) if len(names) >= 2 else ("first", "second")

    def where(index: int) -> str:
        return f"line {at[index] + 1}" if 0 <= index < len(at) else "line 1"

    return [_assemble(players, cells, meta, board, rule=rule, where=where, match_id=match_id, started=started)]


# --- SGF ------------------------------------------------------------------------------------------
def write_sgf(records: Iterable[GameRecord], reviews: Reviews | None = None) -> str:
    """Games as an SGF collection, one game tree each; a reviewed game's moves say their review on
    a second line of their comment."""
    reviews = reviews or {}
    return "".join(_sgf_tree(record, reviews.get(record.start.match_id)) for record in records)


def _sgf_tree(record: GameRecord, review: dict[str, Any] | None = None) -> str:
    game = board_of(record)
    m, n = game.params["m"], game.params["n"]
    start = record.start
    root = {
        "FF": "4",
        "GM": "4",
        "CA": "UTF-8",
        "AP": "Arbiter",
        "SZ": str(m) if m == n else f"{m}:{n}",
        **({"RU": rule} if (rule := rule_name(game)) else {}),
        "PB": start.players[0],
        "PW": start.players[1],
        "RE": _sgf_result(record),
        "DT": format_time(start.started)[:10],
        "GN": start.match_id,
        **({"ON": opening} if (opening := _sgf_opening(record)) else {}),
        "GC": f"Arbiter {_metadata(record)}",
    }
    nodes = ["".join(f"{key}[{_sgf_escape(value)}]" for key, value in root.items())]
    for move in record.moves:
        x, y = game.decode_move(move.move)
        colour = "B" if move.ply % 2 == 0 else "W"
        comment = format_map({"elapsed_ms": move.elapsed_ms, **(move.info or {})})
        if review is not None and move.ply < len(review["moves"]):
            comment += f"\nreview: {move_comment(review['moves'][move.ply])}"
        nodes.append(f"{colour}[{SGF_LETTERS[x]}{SGF_LETTERS[y]}]C[{_sgf_escape(comment)}]")
    return "(;" + "\n;".join(nodes) + ")\n"


def _sgf_opening(record: GameRecord) -> str:
    """SGF's ``ON`` (the opening played): a swap opening's rule and choices, for people; "" without one."""
    rule = record.start.params.get("opening", "none")
    if rule == "none":
        return ""
    said = [f"{c.get('by')} {'placed two more' if c.get('choice') == 'place' else 'took ' + str(c.get('choice'))}"
            for c in record.swap]  # fmt: skip
    return "; ".join([rule, *said])


def _sgf_result(record: GameRecord) -> str:
    if record.result is None:
        return "Void" if record.reason else "?"
    if record.result == "1/2-1/2":
        return "0"
    winner = "B" if record.result == "1-0" else "W"
    return f"{winner}+{_SGF_WIN.get(record.reason or '', 'F')}"


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def read_sgf(text: str, *, match_id: str = "", started: float = 0.0, rule: int = 0) -> list[GameRecord]:
    """Every game of an SGF collection (its main line: variations are skipped); a game of another
    tool without ``RU`` is five in a row under ``rule`` (``INFO rule``)."""
    trees = _SgfReader(text).collection()
    return [_sgf_game(tree, number, match_id, started, rule) for number, tree in enumerate(trees, 1)]


def _sgf_game(nodes: list[dict[str, list[str]]], number: int, match_id: str, started: float, rule: int) -> GameRecord:
    root = nodes[0]

    def where(index: int) -> str:
        return f"game {number}, node {index + 2}" if index >= 0 else f"game {number}"

    if root.get("GM", ["4"])[0] != "4":
        raise GameFileError(f"game {number}: GM[{root['GM'][0]}] is not gomoku (GM[4])")
    size = root.get("SZ", ["15"])[0]
    try:
        m, _, rows = size.partition(":")
        board = (int(m), int(rows or m))
    except ValueError:
        raise GameFileError(f"game {number}: SZ[{size}] is not a size") from None
    meta = None
    comment = root.get("GC", [""])[0]
    if comment.startswith("Arbiter "):
        try:
            meta = parse_map(comment.removeprefix("Arbiter "))
        except RecordError as error:
            raise GameFileError(f"game {number}: GC: {error}") from None
    try:
        rule = rule_named(root["RU"][0]) if "RU" in root and meta is None else rule
    except EngineError as error:
        raise GameFileError(f"game {number}: RU: {error}") from None
    players = (root.get("PB", ["black"])[0], root.get("PW", ["white"])[0])
    cells: list[tuple[int, int, int, dict[str, Any] | None]] = []
    for index, node in enumerate(nodes[1:]):
        colour = "B" if len(cells) % 2 == 0 else "W"
        played = node.get(colour)
        if played is None:
            if "B" in node or "W" in node:
                raise GameFileError(f"{where(index)}: {colour} is to move")
            continue  # a node without a move (a comment, a setup we do not use)
        point = played[0]
        if len(point) != 2 or point[0] not in SGF_LETTERS or point[1] not in SGF_LETTERS:
            raise GameFileError(f"{where(index)}: {colour}[{point}] is not a point like 'hh'")
        info = _comment_map(node.get("C", [""])[0])
        elapsed = info.pop("elapsed_ms", 0)
        elapsed = elapsed if isinstance(elapsed, int) else 0
        cells.append((SGF_LETTERS.index(point[0]), SGF_LETTERS.index(point[1]), elapsed, info or None))
    record = _assemble(players, cells, meta, board, rule=rule, where=where, match_id=match_id, started=started)
    if meta is None:
        record = _with_sgf_result(record, root.get("RE", [""])[0])
    return record


def _comment_map(text: str) -> dict[str, Any]:
    """A move's comment as Arbiter writes it (``elapsed_ms=… score=…``); another tool's free text: empty."""
    text = text.split("\n", 1)[0]  # a second line is the review, not the move's own analysis
    try:
        return parse_map(text) if text.strip() else {}
    except RecordError:
        return {}


def _with_sgf_result(record: GameRecord, text: str) -> GameRecord:
    """A foreign file's RE for a game its moves do not finish (a resignation, a loss on time)."""
    if record.result is not None or not text or text[0] not in "BW" or "+" not in text:
        return record
    code = text.partition("+")[2][:1].upper()
    result = "1-0" if text[0] == "B" else "0-1"
    return GameRecord(record.start, record.moves, result, _SGF_REASONS.get(code, "forfeit"), record.ended)


class _SgfReader:
    """A recursive-descent reader of SGF's grammar: Collection = GameTree+, GameTree = "(" Node+ GameTree* ")".

    Only each tree's main line is kept: its own nodes, then its first variation's, recursively.
    """

    _PROPERTY = re.compile(r"\s*([A-Za-z]+)\s*(?=\[)")

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def collection(self) -> list[list[dict[str, list[str]]]]:
        trees = []
        self._space()
        while self.i < len(self.text):
            self._expect("(")
            try:
                trees.append(self._tree())
            except RecursionError:
                raise GameFileError("the game tree is nested too deeply") from None
            self._space()
        if not trees:
            raise GameFileError("no game tree: an SGF file starts with '(;'")
        return trees

    def _tree(self) -> list[dict[str, list[str]]]:
        """After a '(': the main line of this tree."""
        nodes = []
        self._space()
        while self._peek() == ";":
            self.i += 1
            nodes.append(self._node())
            self._space()
        if not nodes:
            self._fail("a game tree starts with a node (';')")
        first = True
        while self._peek() == "(":
            self.i += 1
            line = self._tree()
            if first:
                nodes += line
                first = False
            self._space()
        self._expect(")")
        return nodes

    def _node(self) -> dict[str, list[str]]:
        node: dict[str, list[str]] = {}
        while (match := self._PROPERTY.match(self.text, self.i)) is not None:
            key = "".join(c for c in match[1] if c.isupper())  # FF[3]'s lower-case letters are ignored
            self.i = match.end()
            values = []
            while self._peek() == "[":
                value, self.i = _sgf_value(self.text, self.i + 1)
                values.append(value)
                self._space()
            node[key] = values
        return node

    def _peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def _space(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def _expect(self, char: str) -> None:
        self._space()
        if self._peek() != char:
            self._fail(f"expected {char!r}")
        self.i += 1

    def _fail(self, message: str) -> None:
        found = repr(self._peek()) if self._peek() else "the end of the file"
        raise GameFileError(f"character {self.i + 1}: {message}, found {found}")


def _sgf_value(text: str, i: int) -> tuple[str, int]:
    """A property value from after its '[' to its ']', unescaped; the index after the ']'."""
    out = []
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":  # a backslash before a line break is a soft break: nothing
                out.append(text[i + 1])
            i += 2
        elif ch == "]":
            return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    raise GameFileError("the file ends inside a property value")


# --- the formats by name ----------------------------------------------------------------------------
def write_text(records: Iterable[GameRecord], reviews: Reviews | None = None) -> str:
    return "".join(format_records(records, reviews))


def read_text(text: str, *, match_id: str = "", started: float = 0.0, rule: int = 0) -> list[GameRecord]:
    """Arbiter's text records (``match_id``, ``started`` and the game are in every record already)."""
    try:
        return parse_records(text)
    except RecordError as error:
        raise GameFileError(str(error)) from None


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", ".txt", False, write_text, read_text),
        Format("psq", ".psq", True, write_psq, read_psq),
        Format("sgf", ".sgf", False, write_sgf, read_sgf),
    )
}


def format_named(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise GameFileError(f"no format {name!r}; formats: {', '.join(FORMATS)}") from None
