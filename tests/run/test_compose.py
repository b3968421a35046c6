"""docker-compose.yml: valid for Compose, and every command and variable in it real for `arbiter`.

No docker engine runs here, so the stack itself cannot start; what can go wrong without one is
checked instead: Compose validates the file (`docker-compose config`, Debian's package, which the
test set-up installs), and each service's command parses with the real `arbiter` CLI, so a renamed
flag or an ARBITER_* variable that names no setting fails here rather than in a container.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import click
import pytest
import yaml

from arbiter.cli import main
from arbiter.cli.reference import environment_variable, options_by_command

ROOT = Path(__file__).resolve().parents[2]
BOTS = {"alphabeta": "gomoku", "mcts": "mcts", "minimax": "soccer"}


@pytest.fixture(scope="module")
def compose() -> dict:
    """The file as Compose resolves it (anchors merged), after Compose has validated it."""
    binary = shutil.which("docker-compose")
    assert binary, "docker-compose is missing: `make test` installs it (scripts/install-system-deps --test)"
    resolved = subprocess.run(
        [binary, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert resolved.returncode == 0, resolved.stderr
    return yaml.safe_load(resolved.stdout)


def _command(service: dict) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else list(command)


def _parses(argv: list[str]) -> None:
    """Parse an `arbiter …` command line with the real CLI, without running it."""
    assert argv[0] == "arbiter", argv
    with main.make_context("arbiter", argv[1:], resilient_parsing=False) as context:
        command = main.get_command(context, argv[1])
        assert command is not None, f"no such command: {argv[1]}"
        command.make_context(argv[1], argv[2:], parent=context)


def test_services_volumes_health_checks_and_restart_policies(compose: dict) -> None:
    services = compose["services"]
    assert set(services) == {"accounts", "server", *BOTS}
    assert {"data", "tokens"} <= set(compose["volumes"])
    server = services["server"]
    assert any(str(volume).startswith("data:/data") or _target(volume) == "/data" for volume in server["volumes"])
    assert "/healthz" in " ".join(server["healthcheck"]["test"])
    assert server["restart"] == "unless-stopped"
    for name, brain in BOTS.items():
        bot = services[name]
        argv = _command(bot)
        assert argv[:3] == ["arbiter", "bot", brain]
        assert argv[argv.index("--token-file") + 1] == f"/tokens/{name}.token"
        assert bot["restart"] == "unless-stopped"
        assert bot["healthcheck"]["test"], name
        assert bot["depends_on"]["server"]["condition"] == "service_healthy"


def _target(volume: object) -> str | None:
    return volume.get("target") if isinstance(volume, dict) else None


def test_every_service_command_parses_with_the_real_cli(compose: dict) -> None:
    for name, service in compose["services"].items():
        if name == "accounts":  # a shell chaining `arbiter player ensure` for each bot
            steps = [shlex.split(step) for step in _command(service)[-1].split("&&")]
            assert [step[3] for step in steps] == list(BOTS)
            for step in steps:
                _parses(step)
        else:
            _parses(_command(service))


def test_every_arbiter_variable_names_a_real_setting(compose: dict) -> None:
    known = {environment_variable(path, option) for path, _, options in options_by_command() for option in options}
    for name, service in compose["services"].items():
        for variable in service.get("environment", {}):
            if variable.startswith("ARBITER_"):
                assert variable in known, f"{name}: {variable} sets nothing (see docs/CONFIGURATION.md)"


def test_a_misspelt_flag_would_be_caught() -> None:
    with pytest.raises(click.UsageError):
        _parses(["arbiter", "serve", "--prot", "8765"])
