"""Compile every game's kernels before the server listens, so no clock ever runs during a compilation."""

from __future__ import annotations

from arbiter.engine import create_game, decode_state, describe_games


def warm_games() -> list[str]:
    """For each registered game: play its first whole move, then replay it through the wire path.

    numba compiles a kernel on its first call (or loads it from the on-disk cache); the replay
    uses decode_move and play exactly as the server does for a client's move.
    """
    warmed = []
    for info in describe_games():
        state = create_game(info["name"]).new_state()
        mover = state.to_move
        while not state.is_terminal and state.to_move == mover:
            state.play_action(int(state.legal_actions()[0]))
        decode_state(state.encode())
        warmed.append(info["name"])
    return warmed
