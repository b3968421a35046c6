"""``soccer``: the paper-soccer bot, from the source's step minimax to the full alpha-beta over turns.

Levels (``level``, 1 = weakest), each measured to beat the one below in at least 65% of its games
(series over the real server, rows S20–S24 of docs/STRENGTH.md):

=====  ====================================================================================
level  player
=====  ====================================================================================
1      the source's player at its depth 0: each step judged by the heuristic alone
2      the source's player at depth 2, the one its author found most human and could not beat
3      the source's player at depth 4
4      the source's player at depth 6, the deepest the document tried
5      the alpha-beta over whole turns, three turns deep
6      full strength: the alpha-beta deepened under the clock (the default)
=====  ====================================================================================

The source's odd depths sit between their neighbours but too close to them for a ladder (depth 2
wins only 64% against depth 1, depth 3 54% against depth 2), so the levels take every other
depth; any depth of the source's player, with either of its heuristics, is an option
(``style="source"``). Against the document's impression that its deep searches played worse,
among themselves each two steps of depth win about 70%: the author judged them by feel, as a
human opponent.

Options (constructor keywords, or a request's ``options``, which take precedence):

- ``style``: ``"turns"`` (the alpha-beta) or ``"source"`` (the source's step minimax);
- ``depth``: turns deep for ``"turns"`` (1..63), the source's depth for ``"source"`` (0..6);
- ``heuristic``: ``"normal"`` or ``"weakened"`` (the source's two heuristics; ``"source"`` only);
- ``time``: at most this many seconds per turn (the request's budget still applies).

Every turn is within ``request.budget``: the alpha-beta stops deepening on the clock, and the
source's player, which has no clock of its own, deepens each step and keeps its deepest choice
when time would run out (only a turn full of bounces at depth 6 comes near).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from arbiter.engine import Game
from arbiter.engine.paper_soccer import PaperSoccerGame

from ..brain import Brain, BrainOptionError, ThinkRequest, ThinkResult, refuse_unknown_options
from .search import MAX_PLY, TurnSearch
from .source import SOURCE_MAX_DEPTH, source_turn

TIME_SHARE = 0.85  # of the budget: the rest covers replaying the moves and answering
TIME_MARGIN = 0.004  # seconds kept back from every budget
STYLES = ("turns", "source")
HEURISTICS = ("normal", "weakened")


class SoccerOptionError(BrainOptionError):
    """A soccer bot option with an unknown name or a bad value, or a level out of range."""


@dataclass(frozen=True)
class Settings:
    style: str = "turns"
    depth: int | None = None  # None: deepen under the clock
    heuristic: str = "normal"
    time: float | None = None

    @classmethod
    def parse(cls, level: int, options: dict[str, Any]) -> Settings:
        """The level's settings with ``options`` applied; SoccerOptionError names the first bad value."""
        if isinstance(level, bool) or not isinstance(level, int) or level not in LEVELS:
            raise SoccerOptionError(f"soccer: level must be 1..{len(LEVELS)}, not {level!r}")
        refuse_unknown_options("soccer", options, {"style", "depth", "heuristic", "time"}, SoccerOptionError)
        settings = LEVELS[level]
        if "style" in options:
            if options["style"] not in STYLES:
                raise SoccerOptionError(f"soccer: style must be one of {', '.join(STYLES)}, not {options['style']!r}")
            if options["style"] != settings.style:
                settings = Settings(style=options["style"], depth=2 if options["style"] == "source" else None)
        if "heuristic" in options:
            if options["heuristic"] not in HEURISTICS:
                raise SoccerOptionError(
                    f"soccer: heuristic must be one of {', '.join(HEURISTICS)}, not {options['heuristic']!r}"
                )
            if settings.style != "source":
                raise SoccerOptionError("soccer: heuristic applies to style 'source' only")
            settings = replace(settings, heuristic=options["heuristic"])
        if options.get("depth") is not None:
            depth = options["depth"]
            low, high = (0, SOURCE_MAX_DEPTH) if settings.style == "source" else (1, MAX_PLY - 1)
            if isinstance(depth, bool) or not isinstance(depth, int) or not low <= depth <= high:
                raise SoccerOptionError(f"soccer: depth must be an integer {low}..{high} for style {settings.style!r}")
            settings = replace(settings, depth=depth)
        if options.get("time") is not None:
            seconds = options["time"]
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
                raise SoccerOptionError(f"soccer: time must be a positive number of seconds, not {seconds!r}")
            settings = replace(settings, time=float(seconds))
        return settings


LEVELS: dict[int, Settings] = {
    1: Settings(style="source", depth=0),
    2: Settings(style="source", depth=2),
    3: Settings(style="source", depth=4),
    4: Settings(style="source", depth=6),
    5: Settings(depth=3),
    6: Settings(),
}


class SoccerBrain(Brain):
    name = "soccer"
    score_unit = "cp"  # for spectators: Brain.analysis
    takes_options = True
    levels = len(LEVELS)

    def __init__(self, level: int | None = None, **options: Any) -> None:
        super().__init__(level, **options)
        self.settings = Settings.parse(self.level, options)
        self._searches: dict[Game, TurnSearch] = {}

    @classmethod
    def plays(cls, game: Game) -> bool:
        return game.family == "paper_soccer"

    def search_for(self, game: Game) -> TurnSearch:
        """The field's search, created on first use and kept (with its table) for later turns."""
        if game not in self._searches:
            assert isinstance(game, PaperSoccerGame)  # plays() admits no other
            self._searches[game] = TurnSearch(game)
        return self._searches[game]

    def think(self, request: ThinkRequest) -> ThinkResult:
        started = time.perf_counter()
        level = self.level_for(request)
        if request.options or level != self.level:
            settings = Settings.parse(level, {**self.options, **request.options})
        else:
            settings = self.settings
        state = request.position()
        if not self.plays(state.game):
            raise ValueError(f"soccer does not play {state.game.name}")
        if state.is_terminal:
            raise ValueError("the game is over: there is no move to choose")
        seconds = max(request.budget * TIME_SHARE - TIME_MARGIN - (time.perf_counter() - started), 0.001)
        if settings.time is not None:
            seconds = min(seconds, settings.time)
        if settings.style == "source":
            depth = 2 if settings.depth is None else settings.depth
            turn = source_turn(state, depth, weakened=settings.heuristic == "weakened", seconds=seconds)
            steps = turn.steps
            info: dict[str, Any] = {
                "style": "source",
                "depth": turn.depth,
                "heuristic": settings.heuristic,
                "steps_searched": turn.steps_searched,
            }
        else:
            result = self.search_for(state.game).choose(state, max_depth=settings.depth, seconds=seconds)
            steps = result.steps
            info = {
                "style": "turns",
                "depth": result.depth,
                "nodes": result.nodes,
                "score": result.score,
                "proven": result.proven,
                "reason": result.reason,
                "root_turns": result.root_turns,
                "steps_searched": result.steps_searched,
            }
        info["level"] = level
        info["seconds"] = round(time.perf_counter() - started, 4)
        return ThinkResult(list(steps), info)

    def warm_up(self) -> None:
        """Load both players' kernels and the search's clock reading (compiled in each process on first
        use), with a search deep enough to read the clock, on the default field (whose search is kept), after
        the engine's rules (Brain.warm_up)."""
        super().warm_up()
        for options in ({"style": "source", "depth": 1}, {"depth": 3}):
            self.think(ThinkRequest("warm-up", "paper_soccer", {}, [], 10.0, options=options))
