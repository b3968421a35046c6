"""The ``arbiter`` command: one entry point, one module per group of subcommands."""

from __future__ import annotations

import importlib

import click

from arbiter import __version__

# Each module defines a list COMMANDS of click commands; keep this list sorted by concern.
COMMAND_MODULES = [
    "arbiter.cli.engine_commands",
    "arbiter.cli.store_commands",
    "arbiter.cli.server_commands",
    "arbiter.cli.bot_commands",
    "arbiter.cli.series_commands",
    "arbiter.cli.up_commands",
]


# Every option also reads ARBITER_<COMMAND>_<OPTION> (e.g. ARBITER_SERVE_PORT); flags win over the
# environment, the environment over defaults. docs/CONFIGURATION.md lists them all.
@click.group(context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "ARBITER",
                               "show_default": True})
@click.version_option(__version__, prog_name="arbiter")
def main() -> None:
    """Arbiter: match server, bots and tools for two-player board games."""


for _module_name in COMMAND_MODULES:
    for _command in importlib.import_module(_module_name).COMMANDS:
        main.add_command(_command)
