"""``gomoku``: the alpha-beta bot for five in a row on any m,n,k board with k >= 4.

Levels (``level``, 1 = weakest):

=====  =====================================================================================
level  player
=====  =====================================================================================
1      the source's one-ply "intuitive" player: the cell with the best G+Q score
2      the source's negamax with alpha-beta, 2 plies, pattern evaluation, no threat search
3      the full search (root VCF; root VCT from 0.5 s a move; 20 quiet moves at non-PV nodes), 5,000 nodes
4      full strength: the same search deepened under the clock, with VCF probes at its leaves (the default)
=====  =====================================================================================

Each level is meant to beat the one below in at least 70% of games (docs/STRENGTH.md). Level 3
is a node budget, not a depth, so its play does not depend on the machine's load, and about a
tenth of what full strength searches in a move of a 3+0.2 s game: fixed depths 4 and 6 between
them were too close to each other and to full strength (56% and 54% a step).

Options (constructor keywords, or a request's ``options``, which take precedence): ``depth``
(plies, 1..60), ``time`` (at most this many seconds per move), ``nodes`` (stop the search after
this many nodes; level 4's VCF probes at the leaves are counted apart and bounded by their share of
the search's nodes). They bound any level above 1; the request's budget always applies too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from arbiter.engine import Game

from ..brain import Brain, BrainOptionError, ThinkRequest, ThinkResult, refuse_unknown_options
from .board import Board
from .intuitive import intuitive_move
from .searcher import MAX_DEPTH, SearchConfig, Searcher

TIME_SHARE = 0.85  # of the budget: the rest covers replaying the moves and answering
TIME_MARGIN = 0.005  # seconds kept back from every budget
VCF_NODES_PER_SECOND = 200_000  # root threat-search budget, scaled by the time for the move
VCF_NODES_MIN, VCF_NODES_MAX = 2_000, 400_000
VCT_NODES_PER_SECOND = 50_000  # root VCT budget (own win, opponent's threat): about a tenth of its speed
VCT_NODES_MIN, VCT_NODES_MAX = 500, 100_000
# Below this many seconds for the move there is no root VCT: at 0.2 s it cost more search than it
# found (docs/STRENGTH.md G31-G33: 43.5% against main with it, 46.0% attack only, 51.0% without).
VCT_MIN_SECONDS = 0.5
LEAF_VCF_NODES = 50  # node budget of each VCF probe at the search's leaves (level 4)
WIDTH = 20  # moves searched at non-PV nodes beyond the tactical ones (levels 3 and 4)


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
    width: int = WIDTH

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

    def config(self, seconds: float) -> SearchConfig:
        """The search limits for a move with ``seconds`` to think."""
        vcf_budget = int(min(max(seconds * VCF_NODES_PER_SECOND, VCF_NODES_MIN), VCF_NODES_MAX))
        vct_budget = int(min(max(seconds * VCT_NODES_PER_SECOND, VCT_NODES_MIN), VCT_NODES_MAX))
        if self.nodes:
            vcf_budget = min(vcf_budget, max(self.nodes // 4, VCF_NODES_MIN))
            vct_budget = min(vct_budget, max(self.nodes // 8, VCT_NODES_MIN))
        return SearchConfig(
            max_depth=self.depth,
            node_limit=self.nodes,
            time_limit=seconds,
            root_vcf=vcf_budget if self.root_vcf else 0,
            root_vct=vct_budget if self.root_vcf and seconds >= VCT_MIN_SECONDS else 0,
            leaf_vcf=LEAF_VCF_NODES if self.leaf_vcf else 0,
            width=self.width,
        )


LEVELS: dict[int, Settings] = {
    1: Settings(intuitive=True),
    2: Settings(depth=2, root_vcf=False, width=0),
    3: Settings(nodes=5_000),
    4: Settings(leaf_vcf=True),
}


class GomokuBrain(Brain):
    name = "gomoku"
    score_unit = "cp"  # for spectators: Brain.analysis
    takes_options = True
    levels = len(LEVELS)

    def __init__(self, level: int | None = None, **options: Any) -> None:
        super().__init__(level, **options)
        self.settings = Settings.parse(self.level, options)
        self._searchers: dict[tuple[int, int, int, bool], Searcher] = {}

    @classmethod
    def plays(cls, game: Game) -> bool:
        return game.family == "mnk" and game.params["k"] >= 4

    def searcher(self, m: int, n: int, k: int, exact: bool) -> Searcher:
        """The board shape's searcher, created on first use and kept (with its tables) for later moves."""
        shape = (m, n, k, exact)
        if shape not in self._searchers:
            self._searchers[shape] = Searcher(m, n, k, exact)
        return self._searchers[shape]

    def think(self, request: ThinkRequest) -> ThinkResult:
        started = time.perf_counter()
        level = self.level_for(request)
        if request.options or level != self.level:
            settings = Settings.parse(level, {**self.options, **request.options})
        else:
            settings = self.settings
        state = request.position()
        game = state.game
        if not self.plays(game):
            raise ValueError(f"gomoku does not play {game.name}")
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to choose")
        m, n, k, exact = (game.params[name] for name in ("m", "n", "k", "exact"))
        cells = [y * m + x for x, y in state.moves()]
        seed = request.seed * 1_000_003 + len(cells)
        if settings.intuitive:
            cell = intuitive_move(Board.from_moves(m, n, k, exact, cells), seed)
            info: dict[str, Any] = {"level": level, "reason": "intuitive"}
        else:
            seconds = max(request.budget * TIME_SHARE - TIME_MARGIN - (time.perf_counter() - started), 0.001)
            if settings.time is not None:
                seconds = min(seconds, settings.time)
            searcher = self.searcher(m, n, k, exact)
            searcher.set_position(cells)
            result = searcher.think(settings.config(seconds), seed)
            cell = result.cell
            info = {
                "level": level,
                "depth": result.depth,
                "seldepth": result.seldepth,
                "nodes": result.nodes,
                "vcf_nodes": result.vcf_nodes,
                "leaf_vcf_nodes": result.leaf_vcf_nodes,
                "score": result.score,
                "mate_in": result.mate_in,
                "nps": int(result.nodes / result.elapsed) if result.elapsed > 0 else 0,
                "reason": result.reason,
                "pv": [[c % m, c // m] for c in result.pv],
            }
        info["seconds"] = round(time.perf_counter() - started, 4)
        return ThinkResult([cell % m, cell // m], info)

    def warm_up(self) -> None:
        """Compile every kernel (one board shape compiles them for all) with a short search."""
        board = Board.from_moves(9, 9, 5, True, [40, 41, 31, 32])
        intuitive_move(board, 0)
        searcher = self.searcher(9, 9, 5, True)
        searcher.set_position([40, 41, 31, 32, 49])
        searcher.think(SearchConfig(max_depth=3, root_vcf=500, root_vct=200, leaf_vcf=LEAF_VCF_NODES))
        self._searchers.clear()
