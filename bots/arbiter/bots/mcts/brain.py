"""``mcts``: Monte-Carlo tree search that plays every game Arbiter hosts with the same code.

Each decision grows a UCT tree (``tree.py``) from the position to move, with light playouts
(``policy.py``) and the MCTS-Solver, until the clock share of the move is spent (or a fixed
number of simulations, for tests and benchmarks), then plays the most visited move — at once if
the solver proved a win.

The tree is kept between moves, one per match in the worker process that thinks for that match
(the pool keeps a match on one worker): the next request's move list is checked against the
moves the tree was grown for, the new moves — the bot's own, then the opponent's reply — are
followed down the tree, and the search goes on from the subtree that was reached (a reply the
search never expanded starts a fresh tree). With root parallelism every worker searches the same
request with its own seed and keeps its own tree, and ``merge`` adds up the visits of each first
action; since a tree is kept rooted where it was searched, the merged move is found in every
worker's tree even when it was not that worker's own choice.

A paper soccer move is a whole turn of steps. The tree works step by step: after choosing the
first step from the search, the bot re-roots at it and, while the same player is still to move,
searches on (with part of the remaining time) and chooses the next step, until the turn passes
or the game ends.

Options (constructor keywords, or a request's ``options``, which take precedence):
``exploration`` (UCT constant, default 0.3), ``simulations`` (search exactly until each root has
this many visits instead of using the clock), ``policy`` (``"light"`` or ``"random"`` playouts),
``solver`` (bool, default true), ``max_nodes`` (arena size cap, default 2,000,000 nodes).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from arbiter.engine import Game, State, create_game, game_names

from ..brain import Brain, BrainOptionError, ThinkRequest, ThinkResult, refuse_unknown_options
from .tree import (
    DONE,
    POLICY_LIGHT,
    POLICY_RANDOM,
    PROVEN_NAMES,
    UNKNOWN,
    ChildStats,
    Tree,
    best_child,
    seed_random,
)

POLICIES = {"light": POLICY_LIGHT, "random": POLICY_RANDOM}
TIME_SHARE = 0.92  # of the budget: the rest covers replaying the moves and answering
TIME_MARGIN = 0.003  # seconds kept back from every budget
FIRST_STEP_SHARE = 0.6  # of the move's time for a turn's first step, when turns have several steps
LATER_STEP_SHARE = 0.5  # of the remaining time for each later step of a turn
CHUNK_SECONDS = 0.004  # the clock is read between kernel calls of about this length
MAX_TREES = 64  # matches whose trees a worker keeps (least recently used dropped first) ...
MAX_KEPT_NODES = 4_000_000  # ... and the node slots they may hold in all (58 bytes each)
ROOT_MOVES_LISTED = 8  # root children whose wire move is written into info for merge()


class MctsOptionError(BrainOptionError):
    """An MCTS option with an unknown name or a bad value."""


@dataclass(frozen=True)
class Settings:
    exploration: float = 0.3
    simulations: int | None = None
    policy: int = POLICY_LIGHT
    solver: bool = True
    max_nodes: int = 2_000_000

    @classmethod
    def parse(cls, options: dict[str, Any]) -> Settings:
        """Validated settings from option values; MctsOptionError names the first bad one."""
        refuse_unknown_options(
            "mcts", options, {"exploration", "simulations", "policy", "solver", "max_nodes"}, MctsOptionError
        )
        values: dict[str, Any] = {}
        if "exploration" in options:
            value = options["exploration"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 100:
                raise MctsOptionError(f"mcts: exploration must be a number in [0, 100), not {value!r}")
            values["exploration"] = float(value)
        for name, low in (("simulations", 1), ("max_nodes", 2)):
            if options.get(name) is not None:
                value = options[name]
                if isinstance(value, bool) or not isinstance(value, int) or value < low:
                    raise MctsOptionError(f"mcts: {name} must be an integer of at least {low}, not {value!r}")
                values[name] = value
        if "policy" in options:
            if options["policy"] not in POLICIES:
                raise MctsOptionError(f"mcts: policy must be one of {', '.join(POLICIES)}, not {options['policy']!r}")
            values["policy"] = POLICIES[options["policy"]]
        if "solver" in options:
            if not isinstance(options["solver"], bool):
                raise MctsOptionError(f"mcts: solver must be true or false, not {options['solver']!r}")
            values["solver"] = options["solver"]
        return cls(**values)


@dataclass
class _MatchTree:
    """A match's tree, rooted where the bot last searched: ``moves`` (wire) then ``steps`` (the
    actions of the bot's own unfinished turn before its last step, paper soccer only)."""

    game: Game
    moves: list[Any]
    steps: list[int]
    tree: Tree


class MctsBrain(Brain):
    name = "mcts"
    score_unit = "win"  # for spectators: Brain.analysis
    takes_options = True
    root_parallel: ClassVar[bool] = True

    def __init__(self, level: int | None = None, **options: Any) -> None:
        super().__init__(level, **options)
        self.settings = Settings.parse(options)
        self._trees: OrderedDict[str, _MatchTree] = OrderedDict()

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    # --- one decision -------------------------------------------------------------------------
    def think(self, request: ThinkRequest) -> ThinkResult:
        started = time.perf_counter()
        settings = Settings.parse({**self.options, **request.options})
        position = request.position()
        if position.is_terminal:
            raise ValueError("the game is over: there is no move to choose")
        seed_random(_mix_seed(request.seed, len(request.moves)))
        tree, reused = self._tree_for(request, position, settings)
        deadline = started + max(request.budget * TIME_SHARE - TIME_MARGIN, request.budget * 0.5)

        me = position.to_move
        trial = position.copy()
        steps: list[int] = []
        simulations = 0
        first: list[ChildStats] = []
        while True:
            share = 1.0 if not steps else LATER_STEP_SHARE
            simulations += self._search(tree, settings, deadline, share)
            children = tree.children()
            if not steps:
                first = children
                root_proven = tree.root_proven
            chosen = best_child(children, settled=tree.root_proven != UNKNOWN)
            steps.append(chosen.action)
            trial.play_action(chosen.action)
            if trial.is_terminal or trial.to_move != me:
                break
            tree.advance(chosen.action)
        wire = position.game.encode_move(trial.moves()[-1])
        # Kept rooted before the last step: with root parallelism the move played may be another
        # worker's, and it is then still found among the root's children.
        self._remember(request.match_id, _MatchTree(position.game, list(request.moves), steps[:-1], tree))
        info = {
            "simulations": simulations,
            "nodes": tree.used,
            "reused": reused,
            "value": round(first_choice_mean(first, steps[0]), 4),
            "proven": PROVEN_NAMES[root_proven] if root_proven != UNKNOWN else None,
            "steps": steps,
            "root": root_table(position, first),
            "seconds": round(time.perf_counter() - started, 4),
        }
        return ThinkResult(wire, info)

    def _search(self, tree: Tree, settings: Settings, deadline: float, share: float) -> int:
        """Search the tree's root by the settings' count, or by the clock: ``share`` of the time left
        (the first step of a multi-step turn gets FIRST_STEP_SHARE once turns are seen to continue)."""
        solve = settings.solver
        if settings.simulations is not None:
            wanted = max(settings.simulations - tree.root_visits, 1)
            done, _ = tree.search(wanted, exploration=settings.exploration, solver=solve, policy=settings.policy)
            return done
        start = time.perf_counter()
        total = 0
        chunk = 64
        while True:
            began = time.perf_counter()
            done, why = tree.search(chunk, exploration=settings.exploration, solver=solve, policy=settings.policy)
            total += done
            now = time.perf_counter()
            if why != DONE:  # the root is proven: nothing left to learn
                return total
            part = share if share < 1.0 else (FIRST_STEP_SHARE if tree.turns_continue else 1.0)
            if now >= start + (deadline - start) * part:
                return total
            rate = done / max(now - began, 1e-6)
            left = start + (deadline - start) * part - now
            chunk = int(min(max(rate * min(CHUNK_SECONDS, left / 2), 16), 1_000_000))

    # --- trees kept between moves -------------------------------------------------------------
    def _tree_for(self, request: ThinkRequest, position: State, settings: Settings) -> tuple[Tree, bool]:
        """The match's tree moved down to ``position`` if it can be, else a fresh one; and whether
        any of the old tree was kept."""
        entry = self._trees.pop(request.match_id, None)
        known = len(entry.moves) if entry else 0
        if entry is None or entry.game != position.game or request.moves[:known] != entry.moves:
            return Tree(position, max_nodes=settings.max_nodes), False
        actions = [
            action
            for wire in request.moves[known:]
            for action in position._move_to_actions(position.game.decode_move(wire))
        ]
        if actions[: len(entry.steps)] != entry.steps:  # another turn than the one the tree went into
            return Tree(position, max_nodes=settings.max_nodes), False
        tree = entry.tree
        tree.max_nodes = settings.max_nodes
        kept = True
        for action in actions[len(entry.steps) :]:
            kept = tree.advance(action) and kept
        if not np.array_equal(tree.position.s, position.s):
            return Tree(position, max_nodes=settings.max_nodes), False
        return tree, kept and tree.used > 1

    def _remember(self, match_id: str, entry: _MatchTree) -> None:
        self._trees[match_id] = entry
        self._trees.move_to_end(match_id)
        while len(self._trees) > 1 and (
            len(self._trees) > MAX_TREES or sum(e.tree.capacity for e in self._trees.values()) > MAX_KEPT_NODES
        ):
            self._trees.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._trees.pop(match_id, None)

    # --- root parallelism ---------------------------------------------------------------------
    @classmethod
    def merge(cls, results: list[ThinkResult]) -> ThinkResult:
        """Add up each first action's visits and rewards over the workers and choose by visits.

        A proof found by any worker holds for all. The move returned is a worker's whole move
        that starts with the chosen action (for paper soccer, the turn of the worker that visited
        that step most), else the wire move listed for that action in a worker's root table.
        """
        if not results:
            raise ValueError("nothing to merge")
        visits: dict[int, int] = {}
        values: dict[int, float] = {}
        proofs: dict[int, int] = {}
        listed: dict[int, Any] = {}
        for result in results:
            for action, n, value, proven, wire in result.info["root"]:
                visits[action] = visits.get(action, 0) + n
                values[action] = values.get(action, 0.0) + value
                proofs[action] = max(proofs.get(action, UNKNOWN), _PROVEN_CODES[proven])
                if wire is not None:
                    listed[action] = wire
        merged = [ChildStats(a, visits[a], values[a], proofs[a]) for a in visits]
        chosen = best_child(merged)

        def visits_of_first(result: ThinkResult) -> int:
            return next((row[1] for row in result.info["root"] if row[0] == chosen.action), 0)

        starting = [r for r in results if r.info["steps"][0] == chosen.action]
        if starting:
            base = max(starting, key=visits_of_first)
            move = base.move
        elif chosen.action in listed:
            base, move = results[0], listed[chosen.action]
            base = ThinkResult(move, {**base.info, "steps": [chosen.action]})
        else:  # no worker can spell out a whole move starting with the action: take the most visited answer
            base = max(results, key=lambda r: visits_of_first(r) or r.info["simulations"])
            move = base.move
        info = dict(base.info)
        info.update(
            simulations=sum(r.info["simulations"] for r in results),
            workers=len(results),
            value=round(chosen.mean, 4),
            root=[[c.action, c.visits, c.value, PROVEN_NAMES[c.proven], listed.get(c.action)] for c in merged],
        )
        return ThinkResult(move, info)

    # --- before any clock starts ---------------------------------------------------------------
    def warm_up(self) -> None:
        """The engine's rules (Brain.warm_up), then the kernels: a short search on every game's start position."""
        super().warm_up()
        seed_random(0)  # each think seeds the kernels' generator first
        for name in game_names():
            tree = Tree(create_game(name).new_state(), max_nodes=64, capacity=64)
            for policy in POLICIES.values():
                tree.search(100, exploration=1.0, solver=True, policy=policy)
            tree.advance(best_child(tree.children()).action)


_PROVEN_CODES = {name: code for code, name in PROVEN_NAMES.items()}


def first_choice_mean(children: list[ChildStats], action: int) -> float:
    return next((c.mean for c in children if c.action == action), 0.0)


def root_table(position: State, children: list[ChildStats]) -> list[list[Any]]:
    """The root's children as msgpack-able rows ``[action, visits, value, proven, wire move]``.

    The wire move is filled in for the most visited children whose action is a whole move (every
    game but paper soccer), so merge() can answer with an action no worker chose itself.
    """
    ranked = sorted(children, key=lambda c: -c.visits)
    listed = {c.action for c in ranked[:ROOT_MOVES_LISTED]}
    rows = []
    for c in ranked:
        wire = None
        if c.action in listed:
            trial = position.copy()
            trial.play_action(c.action)
            if trial.is_terminal or trial.to_move != position.to_move:
                wire = position.game.encode_move(trial.moves()[-1])
        rows.append([c.action, c.visits, round(c.value, 3), PROVEN_NAMES[c.proven], wire])
    return rows


def _mix_seed(seed: int, ply: int) -> int:
    """A 31-bit kernel seed from the request's seed and the move number (so moves differ)."""
    return (seed * 1_000_003 + ply * 7919 + 12345) % (2**31 - 1)
