"""``arbiter pbrain BOT``: an Arbiter brain as a Gomocup engine on standard input and output."""

from __future__ import annotations

import logging
import sys

import click

from arbiter.cli.errors import fail, parse_options
from arbiter.cli.logs import configure_logging, log_options

log = logging.getLogger("arbiter.bots")


@click.command()
@click.argument("bot_name", metavar="BOT")
@click.option("--level", type=click.IntRange(1, 100), help="The brain's strength level (default: its strongest).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A brain option, e.g. depth=6 or time=0.5 (repeatable).")  # fmt: skip
@log_options("warning", "Log records on stderr (stdout is the protocol's).")
def pbrain(bot_name: str, level: int | None, options: tuple[str, ...], log_level: str, log_format: str) -> None:
    """Run the bot BOT as a Gomocup (pbrain) engine: commands on stdin, answers on stdout.

    Piskvork and the Gomocup managers can then play it against any other engine: m,n,k boards from
    3x3 (tic-tac-toe) up, five in a row from 5x5 under INFO rule (1 exact five, 4 renju, 8 caro, 9
    exact-five caro: refused with ERROR by a brain that does not play it), and SWAP2BOARD's swap2
    decisions from the brain's own search. Time follows INFO timeout_turn, timeout_match and
    time_left. The brain is warmed before the first answer.
    """
    from arbiter.bots.brain import BrainOptionError
    from arbiter.bots.pbrain.engine import PbrainEngine
    from arbiter.bots.registry import UnknownBot, brain_class

    configure_logging(log_level, log_format)
    try:
        cls = brain_class(bot_name)
        if level is not None and level > cls.levels:
            fail(f"{bot_name} has levels 1 to {cls.levels}")
        brain = cls(level, **parse_options(options, "--option"))
    except (UnknownBot, BrainOptionError) as error:
        fail(str(error))
    brain.warm_up()  # every kernel compiled before a manager's clock runs
    engine = PbrainEngine(brain, name=f"arbiter-{bot_name}")
    for line in sys.stdin:
        for answer in engine.handle(line):
            sys.stdout.write(answer + "\n")
        sys.stdout.flush()
        if engine.finished:
            return


COMMANDS = [pbrain]
