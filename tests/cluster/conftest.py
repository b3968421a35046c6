"""Three ``arbiter serve --cluster`` nodes as separate processes on one PostgreSQL and one Redis
(both started by the tests), and clients that connect to them: the fixtures of the cluster tests."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
import redis

from arbiter.server.store.postgresql import PostgresStore
from arbiter.soak.services import HAProxy
from tests.support.wsclient import Client

ARBITER = [sys.executable, "-m", "arbiter.cli"]
NODES = ("n1", "n2", "n3")


class Node:
    def __init__(self, name: str, process: asyncio.subprocess.Process, url: str) -> None:
        self.name, self.process, self.url = name, process, url
        self.log: list[str] = []  # its log lines, read all along so a full pipe never stops the node
        self._reader = asyncio.get_running_loop().create_task(self._read_log())

    async def _read_log(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.log.append(line.decode())

    @property
    def http(self) -> str:
        return self.url.replace("ws://", "http://").rstrip("/")


async def start_node(name: str, db: str, cluster: str, *options: str) -> Node:
    process = await asyncio.create_subprocess_exec(
        *ARBITER, "serve", "--port", "0", "--db", db, "--cluster", cluster, "--node-id", name, "--no-warm",
        "--grace", "20", *options, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    async with asyncio.timeout(60):
        while not (line := (await process.stderr.readline()).decode()).startswith("listening on "):
            assert line, f"node {name} exited before listening"
    return Node(name, process, line.split()[-1])


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """Keep each phase's report on the test, so the cluster fixture knows whether the test failed."""
    report: pytest.TestReport = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def node_options() -> tuple[str, ...]:
    """More ``arbiter serve`` options for every node (a test module overrides it)."""
    return ()


@pytest.fixture
async def cluster(
    request: pytest.FixtureRequest, postgres_url: str, redis_server, node_options: tuple[str, ...]
) -> AsyncIterator[tuple[dict[str, Node], dict[str, str]]]:
    redis.Redis.from_url(redis_server.url).flushall()
    store = PostgresStore(postgres_url)
    await store.open()
    tokens = {name: await store.add_player(name, "bot") for name in ("alice", "bob", "carol")}
    await store.close()
    nodes = {}
    try:
        for name in NODES:  # one after another: the first migrates the database
            nodes[name] = await start_node(name, postgres_url, redis_server.url, *node_options)
        yield nodes, tokens
    finally:
        call = getattr(request.node, "report_call", None)
        if call is not None and call.failed:  # shown under the failure: what each node logged
            for node in nodes.values():
                print(f"---- node {node.name}\n{''.join(node.log[-80:])}")
        for node in nodes.values():
            if node.process.returncode is None:
                node.process.terminate()
        for node in nodes.values():
            assert await node.process.wait() in (0, -9)  # -9: killed by the test


Connect = Callable[..., Awaitable[Client]]


@pytest.fixture
async def connect() -> AsyncIterator[Connect]:
    clients: list[Client] = []

    async def open_client(node: Node | HAProxy, **fields: object) -> Client:
        client = await Client.connect(node.url, **fields)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        await client.close()
