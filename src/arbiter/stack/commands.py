"""The subcommands of the whole stack: ``arbiter up``, ``arbiter series`` and ``arbiter conformance``."""

from .conformance_commands import COMMANDS as CONFORMANCE_COMMANDS
from .series_commands import COMMANDS as SERIES_COMMANDS
from .up_commands import COMMANDS as UP_COMMANDS

COMMANDS = [*UP_COMMANDS, *SERIES_COMMANDS, *CONFORMANCE_COMMANDS]
