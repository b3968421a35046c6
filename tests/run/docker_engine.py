"""A Docker engine and Compose for the tests that run docker-compose.yml for real.

The engine already running (``DOCKER_HOST`` or the default socket) is used as it is. Where none
runs, the tests start Debian's ``dockerd`` (``make test`` installs docker.io) as root, the way
arbiter.soak.services starts PostgreSQL: its own socket and run folder in a temporary folder, and a
data folder under ~/.cache/arbiter/docker that is kept, so the base images built from Debian's
packages (scripts/compose-local-base) are made once per machine. One run at a time uses that
folder (a lock); the engine is stopped after.

Compose is whichever is installed: ``docker compose`` (v2) or Debian's ``docker-compose`` (1.29).
Nothing is pulled from a registry: images the two files name and this engine lacks are built by
scripts/compose-local-base, and the image's build downloads only from PyPI and npm.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arbiter" / "docker"
START_TIMEOUT = 120.0
PEM = re.compile(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", re.S)


class NoEngine(RuntimeError):
    """No Docker engine runs here and none could be started: the message says why, in one line."""


def docker_cli(host: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], env={**os.environ, "DOCKER_HOST": host}, capture_output=True,
                          text=True, timeout=timeout, check=False)  # fmt: skip


def _answers(host: str) -> bool:
    return docker_cli(host, "version", "--format", "{{.Server.Version}}", timeout=20).returncode == 0


@contextlib.contextmanager
def engine() -> Iterator[str]:
    """The ``DOCKER_HOST`` of a running engine: the one already there, else one started here."""
    if shutil.which("docker") is None:
        raise NoEngine("the docker client is missing: `make test` installs docker.io (install-system-deps --test)")
    running = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if _answers(running):
        yield running
        return
    dockerd = shutil.which("dockerd") or "/usr/sbin/dockerd"
    if not os.access(dockerd, os.X_OK):
        raise NoEngine("dockerd is missing: `make test` installs docker.io (install-system-deps --test)")
    if os.geteuid() != 0:
        raise NoEngine("no Docker engine runs and dockerd needs root to start one")
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "lock", "w") as lock, tempfile.TemporaryDirectory(prefix="arbiter-docker-") as run:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one engine on the data folder at a time
        host = f"unix://{run}/docker.sock"
        log = open(Path(run) / "dockerd.log", "w")  # noqa: SIM115 - read back if it does not start
        process = subprocess.Popen(
            [dockerd, "--data-root", str(CACHE / "data"), "--exec-root", f"{run}/exec", "--pidfile",
             f"{run}/dockerd.pid", "--host", host],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not _answers(host):
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = (Path(run) / "dockerd.log").read_text().strip().splitlines()[-1:]
                    raise NoEngine(f"dockerd did not start (exit {process.poll()}): {' '.join(tail)}")
                time.sleep(0.2)
            yield host
        finally:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()


def compose_command(host: str) -> list[str]:
    """``docker compose`` where the v2 plugin is installed, else Debian's ``docker-compose``."""
    if docker_cli(host, "compose", "version").returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    raise NoEngine("neither `docker compose` nor docker-compose: `make test` installs docker-compose")


def local_base_images(host: str) -> None:
    """Build the stand-ins for the registry images this engine lacks (scripts/compose-local-base)."""
    built = subprocess.run([str(ROOT / "scripts" / "compose-local-base")], env={**os.environ, "DOCKER_HOST": host},
                           capture_output=True, text=True, timeout=900, check=False)  # fmt: skip
    if built.returncode != 0:
        raise RuntimeError(f"scripts/compose-local-base failed:\n{built.stdout}{built.stderr}")


def extra_ca_certificates() -> str:
    """The CA certificates this machine trusts beyond Debian's ca-certificates (a TLS-intercepting
    proxy's), as PEM: what the image's build must trust too (the Dockerfile's CA_BUNDLE)."""
    bundle = Path("/etc/ssl/certs/ca-certificates.crt")
    if not bundle.exists():
        return ""
    known = {"".join(pem.split()) for path in Path("/usr/share/ca-certificates").rglob("*.crt")
             for pem in PEM.findall(path.read_text(errors="replace"))}  # fmt: skip
    return "\n".join(pem for pem in PEM.findall(bundle.read_text()) if "".join(pem.split()) not in known)


@dataclass
class Project:
    """One Compose project of docker-compose.yml, its one published port on 127.0.0.1."""

    host: str
    command: list[str]
    name: str
    profile: str
    port: int
    started: float = field(default_factory=time.time)

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DOCKER_HOST": self.host, "COMPOSE_PROJECT_NAME": self.name,
                "COMPOSE_PROFILES": self.profile, "PUBLISH": f"127.0.0.1:{self.port}",
                "CA_BUNDLE": extra_ca_certificates()}  # fmt: skip

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def compose(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run([*self.command, "-f", str(ROOT / "docker-compose.yml"), *args], env=self.env, cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout, check=False)  # fmt: skip
        if done.returncode != 0:
            raise AssertionError(f"{' '.join(self.command)} {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def docker(self, *args: str, timeout: float = 60) -> str:
        done = docker_cli(self.host, *args, timeout=timeout)
        assert done.returncode == 0, f"docker {' '.join(args)}: {done.stderr}"
        return done.stdout

    def container(self, service: str) -> str:
        (found,) = self.compose("ps", "-q", service).split()
        return found

    def health(self, service: str) -> str:
        state = json.loads(self.docker("inspect", "--format", "{{json .State}}", self.container(service)))
        return str(state.get("Health", {}).get("Status", state["Status"]))

    def exits_since(self, since: float) -> dict[str, int]:
        """Each of this project's containers that stopped since ``since`` (epoch seconds): its exit code."""
        events = self.docker("events", "--since", str(int(since)), "--until", str(int(time.time()) + 1), "--filter",
                             "event=die", "--filter", f"label=com.docker.compose.project={self.name}", "--format",
                             "{{json .Actor.Attributes}}")  # fmt: skip
        exits = {}
        for line in events.splitlines():
            attributes = json.loads(line)
            exits[attributes["com.docker.compose.service"]] = int(attributes["exitCode"])
        return exits

    def cache_writes(self) -> dict[str, list[str]]:
        """Kernels a running container compiled and cached (``docker diff``): empty when every one loaded."""
        written = {}
        for service in self.compose("ps", "--services", "--filter", "status=running").split():
            added = [line.split()[1] for line in self.docker("diff", self.container(service)).splitlines()
                     if line.startswith("A ") and line.endswith((".nbi", ".nbc"))]  # fmt: skip
            if added:
                written[service] = added
        return written

    def untagged_images(self) -> set[str]:
        """The engine's untagged images (a build's stages end as such)."""
        return set(self.docker("images", "--quiet", "--filter", "dangling=true").split())

    def remove(self) -> None:
        """Every container and volume of the project."""
        subprocess.run([*self.command, "-f", str(ROOT / "docker-compose.yml"), "down", "--volumes",
                        "--remove-orphans", "--timeout", "5"],
                       env=self.env, cwd=ROOT, capture_output=True, timeout=300, check=False)  # fmt: skip
