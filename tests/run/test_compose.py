"""docker-compose.yml: valid for Compose, and every command and variable in it real for `arbiter`;
both profiles (single and cluster) complete, and the cluster's proxy configuration valid for HAProxy.

These checks need no engine and say precisely what is wrong: Compose validates the file
(`docker-compose config`, Debian's package, which the test set-up installs), and each service's
command parses with the real `arbiter` CLI, so a renamed flag or an ARBITER_* variable that names no
setting fails here rather than in a container. tests/run/test_compose_up.py runs the stack itself.
"""

from __future__ import annotations

import ipaddress
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
CLUSTER = {"postgres", "redis", "cluster-accounts", "node1", "node2", "proxy", *(f"cluster-{bot}" for bot in BOTS)}


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
    assert set(services) == {"accounts", "server", *BOTS, *CLUSTER}
    assert {name for name, service in services.items() if service["profiles"] == ["single"]} == {
        "accounts", "server", *BOTS
    }  # fmt: skip
    assert (ROOT / ".env").read_text().splitlines()[-1] == "COMPOSE_PROFILES=single"  # `docker compose up`
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


def test_the_cluster_profile_runs_two_nodes_behind_the_proxy_on_postgresql_and_redis(compose: dict) -> None:
    services = compose["services"]
    assert all(services[name]["profiles"] == ["cluster"] for name in CLUSTER)
    for name in ("node1", "node2"):
        node = services[name]
        argv = _command(node)
        assert argv[:2] == ["arbiter", "serve"] and argv[argv.index("--node-id") + 1] == name
        assert node["environment"]["ARBITER_DB"].startswith("postgresql://arbiter:")
        assert (
            node["environment"]["ARBITER_CLUSTER"] == f"redis://arbiter:{_env('ARBITER_REDIS_PASSWORD')}@redis:6379/0"
        )
        assert "/healthz" in " ".join(node["healthcheck"]["test"])
        assert set(node["depends_on"]) == {"cluster-accounts", "postgres", "redis"}  # stopped before both
    proxy = services["proxy"]
    assert any(str(volume).startswith(f"{ROOT}/deploy/haproxy.cfg:") for volume in proxy["volumes"])
    assert (proxy["environment"]["PROXY_NODE1"], proxy["environment"]["PROXY_NODE2"]) == ("node1:8765", "node2:8765")
    for bot, brain in BOTS.items():
        argv = _command(services[f"cluster-{bot}"])
        assert argv[:3] == ["arbiter", "bot", brain]
        assert argv[argv.index("--server") + 1] == "ws://node1:8765/,ws://node2:8765/"  # moves to the other node


def _env(name: str) -> str:
    """A variable's value in .env, which Compose reads."""
    return next(
        line.partition("=")[2] for line in (ROOT / ".env").read_text().splitlines() if line.startswith(name + "=")
    )


def test_the_cluster_trusts_only_its_proxy_and_redis_wants_a_password(compose: dict) -> None:
    services = compose["services"]
    proxy_address = services["proxy"]["networks"]["default"]["ipv4_address"]
    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(
        compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    )
    for name in ("node1", "node2"):
        argv = _command(services[name])
        trusted = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--trusted-proxy"]
        assert trusted == [f"{proxy_address}/32"], name  # not Docker's whole private ranges
    redis = _command(services["redis"])
    password = _env("ARBITER_REDIS_PASSWORD")
    assert "--user default off" in " ".join(redis)  # no anonymous access
    user = redis[redis.index("arbiter") - 1 :]
    assert user[:4] == ["--user", "arbiter", "on", f">{password}"] and "-@dangerous" in user
    assert password in services["redis"]["healthcheck"]["test"]


def test_the_proxy_configuration_is_valid_for_haproxy(compose: dict) -> None:
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    assert Path(binary).exists(), "haproxy is missing: `make test` installs it (scripts/install-system-deps --test)"
    environment = {key: str(value) for key, value in compose["services"]["proxy"]["environment"].items()}
    checked = subprocess.run([binary, "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")], capture_output=True,
                             text=True, timeout=60, check=False, env=environment)  # fmt: skip
    assert checked.returncode == 0 and "Configuration file is valid" in checked.stdout, checked.stdout + checked.stderr


def test_every_service_command_parses_with_the_real_cli(compose: dict) -> None:
    for name, service in compose["services"].items():
        if name in ("accounts", "cluster-accounts"):  # a shell chaining `arbiter player ensure` for each bot
            steps = [shlex.split(step) for step in _command(service)[-1].split("&&")]
            assert [step[3] for step in steps] == list(BOTS)
            for step in steps:
                _parses(step)
        elif name in ("postgres", "redis", "proxy"):
            continue  # not Arbiter
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
