"""Compile every game's kernels before the server listens, so no clock ever runs during a compilation."""

from __future__ import annotations

from arbiter.engine import create_game, decode_state, describe_games


def warm_games() -> list[str]:
    """For each registered game: play its first whole move, then replay it through the wire path.

    numba compiles a kernel on its first call (or loads it from the on-disk cache); the replay
    uses play_wire exactly as the server does for a client's move.
    """
    warmed = []
    for info in describe_games():
        game = create_game(info["name"])
        state = game.new_state()
        mover = state.to_move
        while not state.is_terminal and state.to_move == mover:
            state.play_action(int(state.legal_actions()[0]))
        replay = game.new_state()
        for move in state.moves():
            replay.play_wire(game.encode_move(move))
        decode_state(replay.encode())
        warmed.append(info["name"])
    return warmed
