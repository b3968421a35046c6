"""Engine tools: ``arbiter perft`` (move-generator check) and ``arbiter bench`` (playout speed)."""

from __future__ import annotations

import click

from arbiter.cli.errors import fail, parse_params
from arbiter.engine import EngineError, Game, create_game

WARM_GROUP = "arbiter.warm"
PARAM_OPTION = click.option(
    "--param", "-p", "params", multiple=True, metavar="KEY=VALUE", help="A rule parameter (repeatable)."
)


def _game(name: str, params: tuple[str, ...]) -> Game:
    try:
        return create_game(name, parse_params(params))
    except EngineError as error:
        fail(str(error))


@click.command()
@click.argument("game_name", metavar="GAME")
@click.argument("depth", type=click.IntRange(0, 64))
@PARAM_OPTION
@click.option("--divide", is_flag=True, help="Also print the count below each first action.")
def perft(game_name: str, depth: int, params: tuple[str, ...], divide: bool) -> None:
    """Count the action sequences of exactly DEPTH from the start of GAME.

    Sequences that pass through a finished position are not extended. For paper soccer the unit
    is one step. The last line printed is the count.
    """
    from arbiter.engine.perft import divide as divide_counts
    from arbiter.engine.perft import perft as perft_count

    game = _game(game_name, params)
    state = game.new_state()
    if divide and depth > 0:
        total = 0
        for action, count in divide_counts(state, depth):
            click.echo(f"{action}: {count}")
            total += count
        click.echo(total)
        return
    click.echo(perft_count(state, depth))


@click.command()
@click.argument("game_names_", metavar="[GAME]...", nargs=-1)
@click.option(
    "--seconds",
    type=click.FloatRange(0.1, 60.0),
    default=1.0,
    show_default=True,
    help="Time spent on each measurement.",
)
def bench(game_names_: tuple[str, ...], seconds: float) -> None:
    """Random playouts per second on one core, numba kernels against the pure-Python reference."""
    from arbiter.engine.bench import DEFAULT_GAMES, bench_game, format_table

    games = [_game(name, ()) for name in (game_names_ or DEFAULT_GAMES)]
    rows = [bench_game(game, seconds=seconds) for game in games]
    click.echo(format_table(rows))


@click.command()
def warm() -> None:
    """Compile every numba kernel (the engine's and each bot's) once into the cache.

    Later processes then load the compiled code in a fraction of a second instead of compiling it.
    Each installed distribution with kernels names its warmer in the ``arbiter.warm`` entry-point
    group: a function that yields a label each time one of its parts is warm.
    """
    import time
    from importlib.metadata import entry_points

    for point in sorted(entry_points(group=WARM_GROUP), key=lambda p: p.name != "engine"):
        began = time.perf_counter()
        for label in point.load()():
            click.echo(f"{label}: warm ({time.perf_counter() - began:.1f} s)")
            began = time.perf_counter()


COMMANDS = [perft, bench, warm]
