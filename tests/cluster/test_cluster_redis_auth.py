"""Redis with the compose file's own ACL (docker-compose.yml's `redis` service: no anonymous access,
one user `arbiter` limited to Arbiter's keys and channels, no dangerous commands): two nodes sign in
with the user and password in their redis:// URL and play a match across nodes; a node without the
password, or with a wrong one, is refused at start with an error that does not show the password."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from test_cluster import play_moves

from arbiter.server import ServerConfig, run_server
from arbiter.server.cluster import ClusterError
from arbiter.server.store.postgresql import PostgresStore
from arbiter.soak.services import RedisServer
from tests.support.wsclient import Client, play_move, start_match

pytestmark = pytest.mark.process  # Redis runs in its own process

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"
PASSWORD = "a-test-password-0f3a9"


def compose_acl(password: str) -> list[str]:
    """The ACL options of the compose file's redis-server, with this password."""
    command = yaml.safe_load(COMPOSE.read_text())["services"]["redis"]["command"]
    acl = command[command.index("--user") :]
    return [option.replace("${ARBITER_REDIS_PASSWORD}", password) for option in acl]


@pytest.fixture
def redis_with_acl() -> Iterator[RedisServer]:
    server = RedisServer(*compose_acl(PASSWORD))
    server.start()
    try:
        yield server
    finally:
        server.remove()


def url(server: RedisServer, credentials: str) -> str:
    return f"redis://{credentials}127.0.0.1:{server.port}/0"


async def test_nodes_sign_in_to_redis_and_play_across_nodes(redis_with_acl: RedisServer, postgres_url: str) -> None:
    def config(node: str) -> ServerConfig:
        return ServerConfig(
            port=0, warm_engine=False, node_id=node, cluster_url=url(redis_with_acl, f"arbiter:{PASSWORD}@")
        )

    async with (
        run_server(config("n1"), PostgresStore(postgres_url)) as n1,
        run_server(config("n2"), PostgresStore(postgres_url)) as n2,
    ):
        alice = await Client.connect(n1.url)
        bob = await Client.connect(n2.url)
        try:
            match = await start_match(alice, bob)  # bob's challenge lives on n2, the match on one of them
            await play_moves(alice, bob, match, [[1, 1], [0, 0], [2, 2]])
            end = await play_move(bob, match, 3, [0, 1])
            assert end["type"] == "moved", end
        finally:
            await alice.close()
            await bob.close()


@pytest.mark.parametrize("credentials", ["", "arbiter:not-the-password@", "default:@"])
async def test_a_node_without_the_password_is_refused(redis_with_acl: RedisServer, credentials: str) -> None:
    config = ServerConfig(port=0, warm_engine=False, cluster_url=url(redis_with_acl, credentials))
    with pytest.raises(
        ClusterError, match=f"cannot join the cluster at redis://127.0.0.1:{redis_with_acl.port}"
    ) as caught:
        async with run_server(config):
            pass
    assert "not-the-password" not in str(caught.value)
