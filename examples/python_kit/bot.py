"""A starter bot for Arbiter in one file: every game the server hosts but renju and caro, over the bare protocol.

    python bot.py ws://127.0.0.1:8765/ TOKEN [--ladder]

Only `websockets` and `msgpack` (pip install websockets msgpack); nothing of Arbiter. It accepts
every challenge for a game it knows, reconnects after a drop (resyncing its matches from
`match_state`), and moves within its clock. The rules follow SPEC.md section 13: m,n,k games
(tic-tac-toe, gomoku…), vanishing tic-tac-toe, 3-D tic-tac-toe, and paper soccer, whose turns
bounce on touched points, may end in a goal mouth, or end stuck. Replace `choose` with your own.
Renju and caro (the "five" family) it declines: renju's forbidden points for black need a rule
longer than this whole bot; a bot through `arbiter bridge stdio` gets the legal moves listed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import random
import sys
import time

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

GAMES = ["tictactoe", "tictactoe4", "gomoku10", "gomoku", "mnk", "vanishing", "ttt3d", "qubic", "paper_soccer"]
STOP_CODES = {4001, 4003, 4010}  # refused hello, replaced by a newer connection, banned: reconnecting cannot help


# --- placement games: m,n,k, vanishing, ttt3d -------------------------------------------------------------------------


class Placement:
    """Stones on cells; a move is a cell's coordinates. ``lines`` are the cell tuples that win."""

    def __init__(self, cells: list[tuple[int, ...]], lines: list[tuple[tuple[int, ...], ...]], exact: bool = False):
        self.cells = cells
        self.lines = lines
        self.exact = exact  # m,n,k with exact: an overline does not win
        self.by_cell: dict[tuple[int, ...], list[tuple[tuple[int, ...], ...]]] = {c: [] for c in cells}
        for line in lines:
            for cell in line:
                self.by_cell[cell].append(line)
        self.board: dict[tuple[int, ...], int] = {}
        self.history: list[tuple[int, ...]] = []
        self.over = False  # a line, or a full board: the server's `end` follows the last `moved`

    def play(self, cell: tuple[int, ...]) -> None:
        player = len(self.history) % 2
        self.over = self.wins(cell, player)
        self.board[cell] = player
        self.history.append(cell)
        self.over = self.over or len(self.board) == len(self.cells)

    def wins(self, cell: tuple[int, ...], player: int) -> bool:
        """Whether ``player`` placing on ``cell`` completes a line."""
        board = {**self.board, cell: player}
        for line in self.by_cell[cell]:
            if all(board.get(c) == player for c in line) and not (self.exact and self.overline(board, line, player)):
                return True
        return False

    def overline(self, board: dict, line: tuple, player: int) -> bool:
        step = tuple(b - a for a, b in zip(line[0], line[1], strict=True))
        before = tuple(a - d for a, d in zip(line[0], step, strict=True))
        after = tuple(a + d for a, d in zip(line[-1], step, strict=True))
        return board.get(before) == player or board.get(after) == player

    def free(self) -> list[tuple[int, ...]]:
        return [c for c in self.cells if c not in self.board]

    def choose(self, me: int, rng: random.Random) -> list[int]:
        """Win now; else block the opponent's win; else the free cell in the most lines still open to us."""
        free = self.free()
        for player in (me, 1 - me):
            for cell in free:
                if self.wins(cell, player):
                    return list(cell)

        def value(cell: tuple[int, ...]) -> float:
            open_lines = sum(all(self.board.get(c, me) == me for c in line) for line in self.by_cell[cell])
            near = sum(1 for line in self.by_cell[cell] for c in line if c in self.board)
            return open_lines + 0.1 * near + rng.random() * 0.01

        return list(max(free, key=value))


def lines_in(shape: tuple[int, ...], k: int, directions: list[tuple[int, ...]]) -> list[tuple[tuple[int, ...], ...]]:
    """Every run of ``k`` cells in a box of ``shape`` along ``directions``."""
    out = []
    for start in itertools.product(*(range(n) for n in shape)):
        for d in directions:
            line = tuple(tuple(s + i * step for s, step in zip(start, d, strict=True)) for i in range(k))
            if all(0 <= v < n for cell in line for v, n in zip(cell, shape, strict=True)):
                out.append(line)
    return out


class Vanishing(Placement):
    """Tic-tac-toe where, from a player's fourth stone on, its oldest stone vanishes after each placement.
    Drawn when a position (the standing stones in age order, the side to move) comes ``repetition``
    times, or after ``ply_limit`` plies."""

    def __init__(self, params: dict):
        super().__init__(
            [(x, y) for y in range(3) for x in range(3)], lines_in((3, 3), 3, [(1, 0), (0, 1), (1, 1), (1, -1)])
        )
        self.repetition, self.ply_limit = params["repetition"], params["ply_limit"]
        self.seen: dict[tuple, int] = {}

    def play(self, cell: tuple[int, ...]) -> None:
        line = self.wins(cell, len(self.history) % 2)
        super().play(cell)
        if len(self.history) >= 7:
            del self.board[self.history[-7]]
        key = (tuple(self.history[-6:]), len(self.history) % 2)
        self.seen[key] = self.seen.get(key, 0) + 1
        repeated = self.repetition > 0 and self.seen[key] >= self.repetition
        self.over = line or repeated or len(self.history) >= self.ply_limit

    def wins(self, cell: tuple[int, ...], player: int) -> bool:
        board = {**self.board, cell: player}
        if len(self.history) >= 6:  # this placement makes the mover's stone of ply t-6 vanish first
            board.pop(self.history[-6], None)
        return any(all(board.get(c) == player for c in line) for line in self.by_cell[cell])


def placement_game(game: str, params: dict) -> Placement:
    if game == "vanishing":
        return Vanishing(params)
    if "m" in params:  # the m,n,k family and its presets
        m, n, k = params["m"], params["n"], params["k"]
        cells = [(x, y) for y in range(n) for x in range(m)]
        return Placement(cells, lines_in((m, n), k, [(1, 0), (0, 1), (1, 1), (1, -1)]), exact=bool(params.get("exact")))
    n = params["n"]  # ttt3d: the 13 directions of a cube
    directions = [d for d in itertools.product((-1, 0, 1), repeat=3) if d > (0, 0, 0)]
    cells = [(x, y, z) for z in range(n) for y in range(n) for x in range(n)]
    return Placement(cells, lines_in((n, n, n), n, directions))


# --- paper soccer -----------------------------------------------------------------------------------------------------

STEPS = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]  # 0 N, clockwise


class Soccer:
    """The field of SPEC.md section 13: drawn segments, the ball, whose turn, and the end."""

    def __init__(self, params: dict):
        self.w, self.n = params["width"], params["length"]
        self.stuck_draws = params.get("stuck") == "draw"
        self.c = self.w // 2
        self.drawn: set[frozenset] = set()
        for y in range(self.n):  # the side lines
            self.drawn |= {frozenset({(0, y), (0, y + 1)}), frozenset({(self.w, y), (self.w, y + 1)})}
        for x in range(self.w):  # the goal lines, but for the mouth
            if x not in (self.c - 1, self.c):
                self.drawn |= {frozenset({(x, 0), (x + 1, 0)}), frozenset({(x, self.n), (x + 1, self.n)})}
        for x in (self.c - 1, self.c + 1):  # each goal's side walls, post to the goal point behind it
            self.drawn |= {frozenset({(x, 0), (x, -1)}), frozenset({(x, self.n), (x, self.n + 1)})}
        self.touched = {p for segment in self.drawn for p in segment}
        self.ball = (self.c, self.n // 2)
        self.to_move = 0
        self.winner: int | None = None
        self.over = False

    def target(self, d: int) -> tuple[int, int] | None:
        """Where a step ``d`` from the ball lands, if it is legal."""
        (x, y), (dx, dy) = self.ball, STEPS[d]
        to = (x + dx, y + dy)
        inside = 0 <= to[0] <= self.w and 0 <= to[1] <= self.n
        into_goal = to[1] in (-1, self.n + 1) and abs(to[0] - self.c) <= 1 and abs(x - self.c) <= 1
        if not (inside or into_goal) or frozenset({self.ball, to}) in self.drawn:
            return None
        return to

    def legal(self) -> list[int]:
        return [d for d in range(8) if self.target(d) is not None]

    def step(self, d: int) -> tuple:
        """Play one step; what undo() needs."""
        to = self.target(d)
        assert to is not None, f"illegal step {d} from {self.ball}"
        undo = (self.ball, to, to in self.touched, self.to_move, self.winner, self.over)
        bounce = to in self.touched
        self.drawn.add(frozenset({self.ball, to}))
        self.touched |= {self.ball, to}
        self.ball = to
        if to[1] < 0 or to[1] > self.n:  # a goal: north for the first player, south for the second
            self.over, self.winner = True, 0 if to[1] < 0 else 1
        elif not bounce:
            self.to_move = 1 - self.to_move
        elif not self.legal():  # bounced into a dead end: stuck
            self.over, self.winner = True, None if self.stuck_draws else 1 - self.to_move
        return undo

    def undo(self, record: tuple) -> None:
        start, to, was_touched, self.to_move, self.winner, self.over = record
        self.drawn.discard(frozenset({start, to}))
        if not was_touched:
            self.touched.discard(to)
        self.ball = start

    def play(self, turn: list[int]) -> None:
        for d in turn:
            self.step(d)

    def score(self, me: int) -> float:
        if self.over:
            return 0.0 if self.winner is None else (1e6 if self.winner == me else -1e6)
        goal_y = -1 if me == 0 else self.n + 1
        return -abs(self.ball[1] - goal_y) - 0.5 * abs(self.ball[0] - self.c)

    def choose(self, me: int, rng: random.Random, deadline: float) -> list[int]:
        """The best-scoring complete turn found depth first before the deadline (at least one is)."""
        best: tuple[float, list[int]] | None = None
        path: list[int] = []
        nodes = 0

        def search() -> bool:  # True: stop (out of time)
            nonlocal best, nodes
            for d in rng.sample(self.legal(), len(self.legal())):
                nodes += 1
                record = self.step(d)
                path.append(d)
                if self.over or self.to_move != me:  # the turn is complete: a goal, stuck, or an untouched point
                    value = self.score(me)
                    if best is None or value > best[0]:
                        best = (value, list(path))
                    stop = best is not None and (value >= 1e6 or (nodes % 64 == 0 and time.monotonic() > deadline))
                else:
                    stop = search()
                path.pop()
                self.undo(record)
                if stop:
                    return True
            return best is not None and time.monotonic() > deadline

        search()
        assert best is not None
        return best[1]


# --- the protocol -----------------------------------------------------------------------------------------------------


class Match:
    """One match: the position rebuilt from its moves, our colour, whose turn, our clock."""

    def __init__(self, message: dict):
        self.id, self.game, self.color = message["match"], message["game"], message["color"]
        self.clock = message["clock"]
        params = message["params"]
        self.position = Soccer(params) if self.game == "paper_soccer" else placement_game(self.game, params)
        for move in message["moves"]:
            self.apply(move)
        self.ply = len(message["moves"])
        self.to_move = message["to_move"]
        self.remaining = message["clocks"][self.color]

    def apply(self, move: list[int]) -> None:
        self.position.play(move if self.game == "paper_soccer" else tuple(move))

    def budget_s(self) -> float:
        """Think at most a twentieth of what is left, within a third of the per-move limit."""
        limit = self.clock.get("move_limit_ms") or self.remaining
        return max(0.005, min(self.remaining / 20, limit / 3, 2000) / 1000)

    def choose(self, rng: random.Random) -> list[int]:
        if isinstance(self.position, Soccer):
            return self.position.choose(self.color, rng, time.monotonic() + self.budget_s())
        return self.position.choose(self.color, rng)


async def session(url: str, token: str, games: list[str], ladder: bool, rng: random.Random) -> None:
    """One connection from hello to close; ConnectionClosed ends it."""
    ids = itertools.count(1)
    matches: dict[str, Match] = {}
    async with connect(url, compression=None, max_size=2**24) as ws:

        async def send(message: dict) -> None:
            await ws.send(msgpack.packb({**message, "id": next(ids)}))

        async def move_if_ours(match: Match) -> None:
            if match.to_move == match.color and not match.position.over:
                await send({"type": "move", "match": match.id, "ply": match.ply, "move": match.choose(rng)})

        await send({"type": "hello", "protocol": 1, "client": "python-kit/1", "token": token, "games": games})
        async for frame in ws:
            message = msgpack.unpackb(frame)
            kind = message["type"]
            if kind == "welcome" and ladder:
                for game in games:
                    await send({"type": "ladder_join", "game": game})
            elif kind == "challenge_offered":
                challenge = message["challenge"]
                verb = "accept" if challenge["game"] in games else "decline"
                await send({"type": verb, "challenge": challenge["id"]})
            elif kind in ("match_start", "match_state") and message.get("color") is not None:
                matches[message["match"]] = match = Match(message)  # new, or resynced after a reconnect
                await move_if_ours(match)
            elif kind == "moved" and message["match"] in matches:
                match = matches[message["match"]]
                if message["ply"] != match.ply:  # out of step: ask for the whole position again
                    await send({"type": "sync", "match": match.id})
                    continue
                match.apply(message["move"])
                match.ply += 1
                match.to_move = 1 - message["by"]
                match.remaining = message["clocks"][match.color]
                await move_if_ours(match)
            elif kind == "end":
                ended = matches.pop(message["match"], None)
                if ended is not None:
                    print(f"{ended.id} {ended.game}: {message['result']} ({message['reason']})", flush=True)
            elif kind == "error":
                print(f"error {message['code']}: {message['message']}", file=sys.stderr, flush=True)


async def run(url: str, token: str, games: list[str], ladder: bool) -> None:
    """Play until stopped, reconnecting with back-off whenever the connection drops."""
    rng = random.Random()
    delay = 0.2
    while True:
        started = time.monotonic()
        try:
            await session(url, token, games, ladder, rng)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            if code in STOP_CODES:
                sys.exit(f"the server closed the connection with {code}: {closed.rcvd.reason if closed.rcvd else ''}")
        except (OSError, InvalidStatus) as error:
            print(f"cannot connect: {error}", file=sys.stderr, flush=True)
        delay = 0.2 if time.monotonic() - started > 10 else min(delay * 2, 5.0)
        await asyncio.sleep(delay * (0.5 + rng.random()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A starter bot for Arbiter: every game, protocol only.")
    parser.add_argument("url", help="the server, e.g. ws://127.0.0.1:8765/")
    parser.add_argument("token", help="the bot's token (arbiter player add NAME --kind bot)")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games to play")
    parser.add_argument("--ladder", action="store_true", help="join the ladder of each game")
    options = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(options.url, options.token, options.games.split(","), options.ladder))
