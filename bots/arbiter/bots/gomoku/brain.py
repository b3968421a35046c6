"""``gomoku``: the alpha-beta bot for five in a row on any m,n,k board with k >= 4, and renju and caro.

Renju and caro (the ``five`` family) are searched under their own rule (board_rule): the bot never
plays one of black's forbidden points (the engine's list of them is kept off the root: immediate
wins and blocks, threat-search lines and the searched moves), and below the root its search and
threat searches know them too (board.forbidden_for: a forbidden point is no move, no defence and no
threat for black, and a white four whose one block is one wins), hold renju's black to exactly five
and white to five or more, and take no caro five blocked at both ends for a win (docs/STRENGTH.md,
"Renju").

Levels (``level``, 1 = weakest):

=====  =====================================================================================
level  player
=====  =====================================================================================
1      the source's one-ply "intuitive" player: the cell with the best G+Q score
2      the source's negamax with alpha-beta, 2 plies, pattern evaluation, no threat search
3      the full search (root VCF; root VCT from 1.2 s a move; 20 quiet moves at non-PV nodes), 5,000 nodes
4      full strength (the default): the same search deepened under the clock, with VCF probes at its
       leaves, VCT probes at its shallow nodes (from 1.2 s a move, with the root VCT), lines of open
       threes searched to their end (a defence against one costs no depth) and the evaluation fitted
       to game results (evaluation.FITTED; levels 2 and 3 keep the hand-set one)
=====  =====================================================================================

Each level is meant to beat the one below in at least 70% of games (docs/STRENGTH.md). Level 3
is a node budget, not a depth, so its play does not depend on the machine's load, and about a
tenth of what full strength searches in a move of a 3+0.2 s game: fixed depths 4 and 6 between
them were too close to each other and to full strength (56% and 54% a step).

Options (constructor keywords, or a request's ``options``, which take precedence): ``depth``
(plies, 1..60), ``time`` (at most this many seconds per move), ``nodes`` (stop the search after
this many nodes; level 4's VCF probes at the leaves are counted apart and bounded by their share of
the search's nodes). They bound any level above 1; the request's budget always applies too.

Pondering (``ponder``, on the opponent's time, when the runtime asks): the bot plays the reply it
expects (the second move of its principal variation, read from the table; without one, the
opponent's best move by a short search) and searches its own answer to it until the opponent
moves, filling the match's tables. Why the expected reply rather than the opponent's position:
when the guess is right the whole ponder went into the position the next think starts from, whose
iterative deepening then climbs through the table's entries at once; searching the opponent's
position instead spreads the same time over every reply. The next move's ``info["ponder"]`` says
what was pondered and whether the guess was right. Only a search bounded by the clock alone
ponders (level 4 without ``depth`` or ``nodes``): a level with a fixed node budget is a calibrated
strength that thinking on the opponent's time would change.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Any

from arbiter.engine import Game, State, create_game
from arbiter.engine.five import FiveState

from ..brain import Brain, BrainOptionError, ThinkRequest, ThinkResult, refuse_unknown_options
from .board import Board
from .evaluation import FITTED, HAND, Evaluation
from .geometry import RULE_CARO, RULE_FREE, RULE_RENJU
from .intuitive import intuitive_move
from .searcher import MAX_DEPTH, SearchConfig, Searcher

TIME_SHARE = 0.85  # of the budget: the rest covers replaying the moves and answering
TIME_MARGIN = 0.005  # seconds kept back from every budget
VCF_NODES_PER_SECOND = 200_000  # root threat-search budget, scaled by the time for the move
VCF_NODES_MIN, VCF_NODES_MAX = 2_000, 400_000
VCT_NODES_PER_SECOND = 50_000  # root VCT budget (our own win): about a tenth of its speed
VCT_NODES_MIN, VCT_NODES_MAX = 500, 100_000
# Below this many seconds of search (the move's time times TIME_SHARE: from about 1.2 s a move) there is no
# root VCT, nor VCT probes: in less time they cost more search than they find
# (docs/lab/strength-2026-11-29.md, stops 52-53).
VCT_MIN_SECONDS = 1.0
LEAF_VCF_NODES = 50  # node budget of each VCF probe at the search's leaves (level 4)
# Node budget of each VCT probe at the search's shallow nodes (level 4, with the root VCT): with a few hundred
# nodes about a quarter of them prove a win (docs/lab/strength-2026-11-26.md, stops 29 and 33).
SHALLOW_VCT_NODES = 300
# Plies from the root within which a defence against an open three costs no depth (level 4), so lines of threes
# are searched to their end; shorter or no bound did worse in games (docs/lab/strength-2026-11-26.md, stops 31-32).
THREE_EXTENSION_PLIES = 24
WIDTH = 20  # moves searched at non-PV nodes before the quiet ones stop, fewer near the leaves (levels 3, 4)
PREDICT_SECONDS = 0.05  # a ponder's search for the opponent's reply, when the table has none
PONDER_SECONDS = 60.0  # a ponder's time limit: past it (and its soft share) the core stays idle


class GomokuOptionError(BrainOptionError):
    """A gomoku bot option with an unknown name or a bad value, or a level out of range."""


@dataclass(frozen=True)
class Settings:
    """One level's way of thinking, with the explicit limits applied."""

    intuitive: bool = False
    depth: int = MAX_DEPTH
    time: float | None = None
    nodes: int = 0
    root_vcf: bool = True
    leaf_vcf: bool = False
    shallow_vct: bool = False
    three_extension: bool = False
    width: int = WIDTH
    evaluation: Evaluation = HAND

    @classmethod
    def parse(cls, level: int, options: dict[str, Any]) -> Settings:
        """The level's settings with ``options`` applied; GomokuOptionError names the first bad value."""
        if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
            raise GomokuOptionError(f"gomoku: level must be 1..{len(LEVELS)}, not {level!r}")
        refuse_unknown_options("gomoku", options, {"depth", "time", "nodes"}, GomokuOptionError)
        settings = LEVELS[level]
        if options.get("depth") is not None:
            depth = options["depth"]
            if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
                raise GomokuOptionError(f"gomoku: depth must be an integer 1..{MAX_DEPTH}, not {depth!r}")
            settings = replace(settings, depth=depth)
        if options.get("nodes") is not None:
            nodes = options["nodes"]
            if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
                raise GomokuOptionError(f"gomoku: nodes must be a positive integer, not {nodes!r}")
            settings = replace(settings, nodes=nodes)
        if options.get("time") is not None:
            seconds = options["time"]
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
                raise GomokuOptionError(f"gomoku: time must be a positive number of seconds, not {seconds!r}")
            settings = replace(settings, time=float(seconds))
        return settings

    @property
    def clock_bound(self) -> bool:
        """Whether only the clock bounds the search (no node or depth budget): then it may ponder."""
        return not self.intuitive and not self.nodes and self.depth == MAX_DEPTH

    def config(self, seconds: float) -> SearchConfig:
        """The search limits for a move with ``seconds`` to think."""
        vcf_budget = int(min(max(seconds * VCF_NODES_PER_SECOND, VCF_NODES_MIN), VCF_NODES_MAX))
        vct_budget = int(min(max(seconds * VCT_NODES_PER_SECOND, VCT_NODES_MIN), VCT_NODES_MAX))
        if self.nodes:
            vcf_budget = min(vcf_budget, max(self.nodes // 4, VCF_NODES_MIN))
            vct_budget = min(vct_budget, max(self.nodes // 8, VCT_NODES_MIN))
        root_vct = vct_budget if self.root_vcf and seconds >= VCT_MIN_SECONDS else 0
        return SearchConfig(
            max_depth=self.depth,
            node_limit=self.nodes,
            time_limit=seconds,
            root_vcf=vcf_budget if self.root_vcf else 0,
            root_vct=root_vct,
            leaf_vcf=LEAF_VCF_NODES if self.leaf_vcf else 0,
            shallow_vct=SHALLOW_VCT_NODES if self.shallow_vct and root_vct else 0,
            three_extension=THREE_EXTENSION_PLIES if self.three_extension else 0,
            width=self.width,
        )

    def search_seconds(self, budget: float, spent: float = 0.0) -> float:
        """The search's share of a move's ``budget`` after ``spent`` seconds of preparation (the rest covers
        replaying the moves and answering), at most the ``time`` option."""
        seconds = max(budget * TIME_SHARE - TIME_MARGIN - spent, 0.001)
        return seconds if self.time is None else min(seconds, self.time)

    def ponder_config(self, budget: float) -> SearchConfig:
        """The limits of a ponder when our moves get ``budget`` seconds: PONDER_SECONDS of search, with the
        threat searches of the think that follows (its budgets, and the VCT's floor on its share of the
        budget); larger ones spent the ponder before any alpha-beta."""
        return replace(self.config(max(self.search_seconds(budget), PREDICT_SECONDS)), time_limit=PONDER_SECONDS)


LEVELS: dict[int, Settings] = {
    1: Settings(intuitive=True),
    2: Settings(depth=2, root_vcf=False, width=0),
    3: Settings(nodes=5_000),
    4: Settings(evaluation=FITTED, leaf_vcf=True, shallow_vct=True, three_extension=True),
}


@dataclass(frozen=True)
class Pondered:
    """What a ponder did: the position it was given, the reply it expected, the search it made."""

    cells: list[int]  # the position the opponent faced
    reply: int  # the opponent's move the ponder expected (a cell)
    predicted_by: str  # "table" (our last search's line) or "search" (a short search of its own)
    depth: int
    nodes: int
    vcf_nodes: int
    seconds: float

    def report(self, cells: list[int]) -> dict[str, Any] | None:
        """For the think of ``cells``: what this ponder was, if it was the move before."""
        if len(cells) != len(self.cells) + 1 or cells[:-1] != self.cells:
            return None
        return {
            "hit": cells[-1] == self.reply,
            "predicted_by": self.predicted_by,
            "depth": self.depth,
            "nodes": self.nodes,
            "vcf_nodes": self.vcf_nodes,
            "seconds": round(self.seconds, 4),
        }


def board_shape(game: Game) -> tuple[int, int, int, bool]:
    """The board's shape for a game: (m, n, k, exact). Renju and caro are five with their own rule
    (board_rule): the board holds renju's black to exactly five itself."""
    k = 5 if game.family == "five" else game.params["k"]
    return game.params["m"], game.params["n"], k, game.params["exact"]


def board_rule(game: Game) -> int:
    """The rule the search's board plays by: renju's black held to exactly five and kept off its
    forbidden points, caro's five blocked at both ends no win, or freestyle (geometry.RULE_*)."""
    if game.family != "five":
        return RULE_FREE
    return RULE_RENJU if game.params["rule"] == "renju" else RULE_CARO


def forbidden_cells(state: State) -> frozenset[int]:
    """The cells the side to move may not play though empty: black's forbidden points in renju."""
    if not isinstance(state, FiveState):
        return frozenset()
    m = state.game.params["m"]
    return frozenset(y * m + x for x, y in state.forbidden_points())


def nearest_legal(state: State, m: int) -> int:
    """The legal cell nearest the last stone (the centre of the action), for a search left with none."""
    lx, ly = state.moves()[-1]
    x, y = min(state.legal_moves(), key=lambda move: max(abs(move[0] - lx), abs(move[1] - ly)))
    return y * m + x


class GomokuBrain(Brain):
    name = "gomoku"
    score_unit = "cp"  # for spectators: Brain.analysis
    takes_options = True
    levels = len(LEVELS)

    def __init__(self, level: int | None = None, **options: Any) -> None:
        super().__init__(level, **options)
        self.settings = Settings.parse(self.level, options)
        self._searchers: dict[tuple[int, int, int, bool, Evaluation, int], Searcher] = {}
        self._pondering: Searcher | None = None  # the searcher a ponder runs on, for stop_ponder
        self._pondered: dict[str, Pondered] = {}  # match → its last ponder, for the next think's info

    @classmethod
    def plays(cls, game: Game) -> bool:
        return game.family == "five" or (game.family == "mnk" and game.params["k"] >= 4)

    def searcher(
        self, m: int, n: int, k: int, exact: bool, evaluation: Evaluation = HAND, rule: int = RULE_FREE
    ) -> Searcher:
        """The searcher of a board shape, evaluation and rule, created on first use and kept (with its tables)."""
        key = (m, n, k, exact, evaluation, rule)
        if key not in self._searchers:
            self._searchers[key] = Searcher(m, n, k, exact, evaluation=evaluation, rule=rule)
        return self._searchers[key]

    def settings_for(self, request: ThinkRequest) -> Settings:
        """The settings of the request's level with its options, the brain's own when it names none."""
        level = self.level_for(request)
        if request.options or level != self.level:
            return Settings.parse(level, {**self.options, **request.options})
        return self.settings

    def think(self, request: ThinkRequest) -> ThinkResult:
        started = time.perf_counter()
        level = self.level_for(request)
        settings = self.settings_for(request)
        pondered = self._pondered.pop(request.match_id, None)
        state = request.position()
        game = state.game
        if not self.plays(game):
            raise ValueError(f"gomoku does not play {game.name}")
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to choose")
        m, n, k, exact = board_shape(game)
        cells = [y * m + x for x, y in state.moves()]
        seed = request.seed * 1_000_003 + len(cells)
        forbidden = forbidden_cells(state)
        if settings.intuitive:
            cell = intuitive_move(Board.from_moves(m, n, k, exact, cells), seed, forbidden)
            info: dict[str, Any] = {"level": level, "reason": "intuitive"}
        else:
            # the first: tables allocated
            searcher = self.searcher(m, n, k, exact, settings.evaluation, board_rule(game))
            searcher.resume()  # after a ponder's stop
            searcher.set_position(cells)
            # What the preparation took (a new searcher's tables: tens of ms) comes off the search's time.
            seconds = settings.search_seconds(request.budget, time.perf_counter() - started)
            result = searcher.think(settings.config(seconds), seed, forbidden)
            cell = result.cell
            info = {
                "level": level,
                "depth": result.depth,
                "seldepth": result.seldepth,
                "nodes": result.nodes,
                "vcf_nodes": result.vcf_nodes,
                "leaf_vcf_nodes": result.leaf_vcf_nodes,
                "shallow_vct_nodes": result.shallow_vct_nodes,
                "shallow_vct_wins": result.shallow_vct_wins,
                "score": result.score,
                "mate_in": result.mate_in,
                "nps": int(result.nodes / result.elapsed) if result.elapsed > 0 else 0,
                "reason": result.reason,
                "pv": [[c % m, c // m] for c in result.pv],
            }
        report = pondered.report(cells) if pondered is not None else None
        if report is not None:
            info["ponder"] = report
        if cell < 0 or cell in forbidden:  # every cell the search weighed is forbidden: a legal one near the action
            cell = nearest_legal(state, m)
        info["seconds"] = round(time.perf_counter() - started, 4)
        return ThinkResult([cell % m, cell // m], info)

    def ponder(self, request: ThinkRequest, stop: threading.Event) -> None:
        """Search our answer to the opponent's expected reply until ``stop`` (module docstring)."""
        settings = self.settings_for(request)
        state = request.position()
        game = state.game
        if not settings.clock_bound or not self.plays(game) or state.is_terminal:
            return
        started = time.perf_counter()
        m, n, k, exact = board_shape(game)
        cells = [y * m + x for x, y in state.moves()]
        searcher = self.searcher(m, n, k, exact, settings.evaluation, board_rule(game))
        self._pondering = searcher
        try:
            searcher.resume()  # then look at stop: a stop_ponder before this point set it
            if stop.is_set():
                return
            searcher.set_position(cells)
            reply, predicted_by = searcher.expected_reply(), "table"
            if reply is None or reply in forbidden_cells(state):
                seed = request.seed * 1_000_003 + len(cells)
                config = settings.config(PREDICT_SECONDS)
                reply, predicted_by = searcher.think(config, seed, forbidden_cells(state)).cell, "search"
            if reply < 0:
                return
            state.play(game.decode_move([reply % m, reply // m]))
            if state.is_terminal or stop.is_set():
                return
            searcher.set_position([*cells, reply])
            # request.budget is our time a move, a guess at the opponent's too.
            result = searcher.think(settings.ponder_config(request.budget), request.seed * 1_000_003 + len(cells) + 1)
            self._pondered[request.match_id] = Pondered(
                cells, reply, predicted_by, result.depth, result.nodes, result.vcf_nodes, time.perf_counter() - started
            )
        finally:
            self._pondering = None

    def stop_ponder(self) -> None:
        """Stop the running ponder's search within about a thousand nodes (from another thread)."""
        searcher = self._pondering
        if searcher is not None:
            searcher.stop()

    def forget(self, match_id: str) -> None:
        self._pondered.pop(match_id, None)

    def warm_up(self) -> None:
        """The engine's rules (Brain.warm_up) and renju's forbidden points, then every kernel of ours (one board
        shape compiles them for all) with a short search."""
        super().warm_up()
        forbidden_cells(create_game("renju").new_state())
        board = Board.from_moves(9, 9, 5, True, [40, 41, 31, 32])
        intuitive_move(board, 0)
        searcher = self.searcher(9, 9, 5, True)
        searcher.set_position([40, 41, 31, 32, 49])
        searcher.think(
            SearchConfig(
                max_depth=3, root_vcf=500, root_vct=200, leaf_vcf=LEAF_VCF_NODES, shallow_vct=SHALLOW_VCT_NODES
            )
        )
        self._searchers.clear()
