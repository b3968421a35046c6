"""The subcommands of the whole stack: ``arbiter up`` and ``arbiter series``."""

from .series_commands import COMMANDS as SERIES_COMMANDS
from .up_commands import COMMANDS as UP_COMMANDS

COMMANDS = [*UP_COMMANDS, *SERIES_COMMANDS]
