"""Slow, plain Python definitions the soccer bot's kernels are checked against.

Written over the engine's ``State`` API (one step at a time, with its legality checks), sharing
no code with ``arbiter.bots.soccer`` except the static judgements it is defined by.
"""

from __future__ import annotations

import numpy as np

from arbiter.bots.soccer.evaluation import GOAL_SCORE, evaluate, source_heuristic
from arbiter.bots.soccer.search import WIN
from arbiter.engine.paper_soccer import PaperSoccerState


def distinct_turns(
    state: PaperSoccerState,
) -> tuple[dict[int, tuple[int, ...]], list[tuple[tuple[int, ...], int | None]]]:
    """Every turn of ``state``: those that pass, one per end position (key → steps), and those that
    end the game, as (steps, winner). Positions in mid-turn are walked once each."""
    passing: dict[int, tuple[int, ...]] = {}
    ending: list[tuple[tuple[int, ...], int | None]] = []
    seen: set[int] = set()
    mover = state.to_move
    trial = state.copy()

    def walk(path: tuple[int, ...]) -> None:
        for step in trial.legal_actions().tolist():
            trial.play_action(step)
            steps = (*path, step)
            if trial.is_terminal:
                ending.append((steps, trial.outcome.winner))
            elif trial.to_move != mover:
                passing.setdefault(trial.key(), steps)
            elif trial.key() not in seen:
                seen.add(trial.key())
                walk(steps)
            trial.undo_action()

    walk(())
    return passing, ending


def can_score(state: PaperSoccerState) -> bool:
    _, ending = distinct_turns(state)
    return any(winner == state.to_move for _, winner in ending)


def shortest_goal(state: PaperSoccerState, limit: int) -> int:
    """The fewest steps of a turn that scores for the side to move, 0 if none takes at most ``limit``."""
    mover = state.to_move
    layer = [state]
    seen: set[int] = set()  # a breadth-first walk: a position met again is no nearer the goal
    for steps in range(1, limit + 1):
        following = []
        for position in layer:
            for step in position.legal_actions().tolist():
                child = position.copy()
                child.play_action(step)
                if child.is_terminal:
                    if child.outcome.winner == mover:
                        return steps
                elif child.to_move == mover and child.key() not in seen:
                    seen.add(child.key())
                    following.append(child)
        layer = following
    return 0


def turn_value(state: PaperSoccerState, depth: int, ply: int, dist: np.ndarray) -> int:
    """The alpha-beta's score, by plain minimax over distinct turns: a goal this turn wins, turns that
    end the game otherwise are worth their result, and at the horizon a turn is judged by the
    evaluation unless the opponent can then score."""
    passing, ending = distinct_turns(state)
    results = []
    for _, winner in ending:
        if winner == state.to_move:
            return WIN - ply
        results.append(0 if winner is None else -(WIN - ply))
    for steps in passing.values():
        child = state.copy()
        child.play(steps)
        if depth == 1:
            results.append(-(WIN - ply - 1) if can_score(child) else -judgement(child, dist))
        else:
            results.append(-turn_value(child, depth - 1, ply + 1, dist))
    return max(results)


def judgement(state: PaperSoccerState, dist: np.ndarray) -> int:
    scratch = np.zeros((2, state.game.points), dtype=np.int64)
    return int(evaluate(state.game.param_array, state.s, dist, scratch))


FORWARD = {0: [0, 1, 2, 3, 4, 5, 6, 7], 1: [4, 5, 6, 7, 0, 1, 2, 3]}


def source_value(state: PaperSoccerState, depth: int, steps: int, weakened: bool) -> tuple[int, int]:
    """The source's minimax over single steps, literally: (value for the mover, first best step)."""
    mover = state.to_move
    best, choice = None, -1
    legal = set(state.legal_actions().tolist())
    for step in FORWARD[mover]:
        if step not in legal:
            continue
        child = state.copy()
        child.play_action(step)
        if child.is_terminal:
            winner = child.outcome.winner
            value = 0 if winner is None else (GOAL_SCORE if winner == mover else -GOAL_SCORE)
            value -= 0 if weakened else steps + 1
        elif depth == 0:
            value = int(source_heuristic(child.game.param_array, child.s, mover, steps + 1, int(weakened)))
        elif child.to_move == mover:
            value = source_value(child, depth - 1, steps + 1, weakened)[0]
        else:
            value = -source_value(child, depth - 1, steps + 1, weakened)[0]
        if best is None or value > best:
            best, choice = value, step
    return best, choice


def random_position(params: dict, turns: int, seed: int) -> PaperSoccerState:
    """A position after up to ``turns`` random turns, stopped early rather than at the game's end."""
    from arbiter.bots.random_bot import random_move
    from arbiter.engine import create_game

    rng = np.random.default_rng(seed)
    state = create_game("paper_soccer", params).new_state()
    for _ in range(turns):
        move = random_move(state, rng)
        child = state.copy()
        child.play(move)
        if child.is_terminal:
            break
        state = child
    return state
