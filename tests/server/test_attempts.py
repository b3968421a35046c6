"""The sign-in and sign-up limiter: a token bucket per client address, in bounded memory."""

from __future__ import annotations

import ipaddress

import pytest

from arbiter.server.access.attempts import AttemptLimiter
from arbiter.server.net.client_address import ClientAddress


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def at(text: str) -> ClientAddress:
    return ClientAddress(ipaddress.ip_address(text))


def test_a_burst_then_one_attempt_per_interval():
    clock = FakeClock()
    limiter = AttemptLimiter(per_minute=6, burst=3, now=clock)  # one every 10 s
    alice = at("198.51.100.1")
    assert [limiter.allow(alice) for _ in range(4)] == [True, True, True, False]
    assert limiter.retry_after(alice) == pytest.approx(10.0)
    clock.t += 5
    assert not limiter.allow(alice)  # a refused attempt costs nothing
    assert limiter.retry_after(alice) == pytest.approx(5.0)
    clock.t += 5
    assert limiter.allow(alice) and not limiter.allow(alice)
    clock.t += 3600
    assert [limiter.allow(alice) for _ in range(4)] == [True, True, True, False]  # never more than the burst


def test_addresses_are_counted_apart_and_ipv6_by_its_64():
    limiter = AttemptLimiter(per_minute=1, burst=1, now=FakeClock())
    assert limiter.allow(at("198.51.100.1")) and not limiter.allow(at("198.51.100.1"))
    assert limiter.allow(at("198.51.100.2"))
    assert limiter.allow(at("2001:db8:0:1::1"))
    assert not limiter.allow(at("2001:db8:0:1:ffff::9"))  # the same /64
    assert limiter.allow(at("2001:db8:0:2::1"))
    assert limiter.retry_after(at("203.0.113.1")) == 0.0


def test_memory_is_bounded_by_forgetting_the_least_recently_seen():
    limiter = AttemptLimiter(per_minute=1, burst=1, max_addresses=100, now=FakeClock())
    for n in range(1000):
        assert limiter.allow(at(f"10.0.{n // 256}.{n % 256}"))
    assert len(limiter) == 100
    assert not limiter.allow(at("10.0.3.231"))  # the last one seen is still remembered
    assert limiter.allow(at("10.0.0.0"))  # the first was forgotten: it may try again


def test_bad_settings_are_refused():
    for kwargs in (
        {"per_minute": 0, "burst": 1},
        {"per_minute": 1, "burst": 0},
        {"per_minute": 1, "burst": 1, "max_addresses": 0},
    ):
        with pytest.raises(ValueError):
            AttemptLimiter(**kwargs)  # type: ignore[arg-type]
