"""Cookies are read in bounded, linear time (cookies.py): a parser checked against a model of
RFC 6265's syntax, and over real sockets a ``Cookie`` header full of backslashes, which made
``http.cookies`` stall the event loop for seconds, answered at once on HTTP and on the websocket."""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading
import time
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server import RunningServer
from arbiter.server.net.cookies import COOKIE_OCTETS, MAX_HEADER_CHARS, MAX_HEADERS, read_cookies

NAMES = ("arbiter_session", "arbiter_csrf")
names = st.sampled_from([*NAMES, "other", "Arbiter_session", "_ga"])
values = st.text(st.sampled_from(sorted(COOKIE_OCTETS)), min_size=1, max_size=40)
space = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def cookie_headers(draw: st.DrawFn) -> tuple[list[str], dict[str, str]]:
    """Header values as browsers and proxies write them, and what this server should read from them."""
    expected: dict[str, str] = {}
    headers = []
    for _ in range(draw(st.integers(1, MAX_HEADERS))):
        pairs = []
        for name, value in draw(st.lists(st.tuples(names, values), max_size=6)):
            written = f'"{value}"' if draw(st.booleans()) else value
            pairs.append(f"{draw(space)}{name}{draw(space)}={draw(space)}{written}{draw(space)}")
            if name in NAMES:
                expected.setdefault(name, value)
        headers.append(";".join(pairs))
    return headers, expected


@settings(max_examples=300, deadline=None)
@given(cookie_headers())
def test_the_first_value_of_each_wanted_name_is_read(case: tuple[list[str], dict[str, str]]) -> None:
    headers, expected = case
    assert read_cookies(headers, NAMES) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=6))
def test_any_text_gives_cookie_octets_it_holds_and_nothing_else(headers: list[str]) -> None:
    found = read_cookies(headers, NAMES)
    assert set(found) <= set(NAMES)
    for value in found.values():
        assert value and COOKIE_OCTETS.issuperset(value) and any(value in header for header in headers[:MAX_HEADERS])


def test_bad_values_count_as_absent_and_the_caps_hold() -> None:
    assert read_cookies(['arbiter_session="a\\\\b"; arbiter_csrf=x y; other=1'], NAMES) == {}
    assert read_cookies(["arbiter_session=; arbiter_csrf=ok", "arbiter_session=late"], NAMES) == {
        "arbiter_csrf": "ok", "arbiter_session": "late"
    }  # fmt: skip
    assert read_cookies(["x=1"] * MAX_HEADERS + ["arbiter_csrf=past-the-cap"], NAMES) == {}
    assert read_cookies(["arbiter_csrf=a;" + "x" * MAX_HEADER_CHARS], NAMES) == {}


# --- over real sockets -----------------------------------------------------------------------------------
EVIL = 'arbiter_session="' + "\\" * 8000 + '"'  # http.cookies: 0.26 s a parse on Python 3.11.7
COPIES = 20  # Cookie headers per request (websockets takes up to 128 headers)
BOUND_S = 2.0  # http.cookies took 4 s (the websocket) and 15 s (HTTP) here; the new parser microseconds


def healthz_latency(server: RunningServer) -> float:
    """Seconds /healthz takes to answer, from a thread (the event loop may be the one stalled)."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
    finally:
        conn.close()
    return time.perf_counter() - started


def worst_latency_while(server: RunningServer, attack: Callable[[], None]) -> tuple[float, float]:
    """How long ``attack`` took, and the worst /healthz latency seen while it ran (probed from a thread)."""
    done, worst = threading.Event(), [0.0]

    def probe() -> None:
        while not done.is_set():
            worst[0] = max(worst[0], healthz_latency(server))
            done.wait(0.02)

    prober = threading.Thread(target=probe)
    prober.start()
    started = time.perf_counter()
    try:
        attack()
    finally:
        took = time.perf_counter() - started
        done.set()
        prober.join()
    return took, worst[0]


def http_attack(server: RunningServer) -> None:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    try:
        conn.putrequest("GET", "/account.json", skip_host=True)
        conn.putheader("Host", f"{server.host}:{server.port}")
        for _ in range(COPIES):
            conn.putheader("Cookie", EVIL)
        conn.endheaders()
        response = conn.getresponse()
        assert response.status == 200 and b'"player":null' in response.read()
    finally:
        conn.close()


def websocket_attack(server: RunningServer) -> None:
    """A websocket handshake with the cookies (read after the 101, when the session starts); then
    one /healthz, which a session start that stalled the loop would hold up."""
    request = (
        f"GET / HTTP/1.1\r\nHost: {server.host}:{server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + f"Cookie: {EVIL}\r\n" * COPIES
        + "\r\n"
    )
    with socket.create_connection((server.host, server.port), timeout=60) as sock:
        sock.sendall(request.encode())
        assert sock.recv(12) == b"HTTP/1.1 101"
        assert healthz_latency(server) < BOUND_S


async def test_a_cookie_header_full_of_backslashes_is_read_at_once_and_stalls_nothing(server: RunningServer) -> None:
    for attack in (http_attack, websocket_attack):
        took, worst = await asyncio.to_thread(worst_latency_while, server, lambda: attack(server))  # noqa: B023
        assert took < BOUND_S and worst < BOUND_S, (attack.__name__, took, worst)
