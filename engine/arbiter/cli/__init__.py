"""The ``arbiter`` command: one entry point whose subcommands come from the installed distributions.

Each distribution names its click commands in the ``arbiter.commands`` entry-point group (a list
``COMMANDS`` in one module of its own), so the command grows with what is installed: a machine with
the bots alone has ``arbiter bot``, one with the server ``arbiter serve``, the full ``arbiter``
distribution everything. This host lives in the engine's distribution because every part that has
commands depends on the engine; it imports none of them, it only loads what the group names.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, distributions, entry_points

import click

COMMAND_GROUP = "arbiter.commands"


class DuplicateCommand(RuntimeError):
    """Two installed distributions define a subcommand of the same name."""


def installed_versions() -> str:
    """``arbiter-bots 0.1.0, arbiter-engine 0.1.0, …``: every installed part of Arbiter."""
    parts = sorted({(d.metadata["Name"], d.version) for d in distributions()
                    if (d.metadata["Name"] or "").lower().startswith("arbiter")})  # fmt: skip
    return ", ".join(f"{name} {version}" for name, version in parts)


def _print_version(context: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not context.resilient_parsing:
        click.echo(f"arbiter: {installed_versions()}")
        context.exit()


# Every option also reads ARBITER_<COMMAND>_<OPTION> (e.g. ARBITER_SERVE_PORT); flags win over the
# environment, the environment over defaults. docs/CONFIGURATION.md lists them all.
@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "ARBITER", "show_default": True}
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the installed Arbiter distributions and exit.",
)
def main() -> None:
    """Arbiter: match server, bots and tools for two-player board games."""


def add_commands(group: click.Group, points: list[EntryPoint]) -> None:
    """Add every command each entry point's ``COMMANDS`` list names; a name defined twice is an error."""
    for point in sorted(points, key=lambda p: p.name):
        for command in point.load():
            if command.name in group.commands:
                raise DuplicateCommand(f"`arbiter {command.name}` is defined twice (again by {point.value})")
            group.add_command(command)


add_commands(main, list(entry_points(group=COMMAND_GROUP)))
