"""The client address of a connection: the peer, or whom a trusted proxy's X-Forwarded-For names."""

from __future__ import annotations

import ipaddress

import pytest

from arbiter.server.client_address import TrustedProxies, address_key, parse_ip, parse_network

PROXIES = TrustedProxies([ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("fd00::/8")])


@pytest.mark.parametrize(
    ("peer", "header", "client"),
    [
        ("198.51.100.1", [], "198.51.100.1"),
        ("198.51.100.1", ["203.0.113.5"], "198.51.100.1"),  # not a trusted proxy: the header is anyone's
        ("10.0.0.2", [], "10.0.0.2"),  # a trusted proxy that sent no header
        ("10.0.0.2", ["203.0.113.5"], "203.0.113.5"),
        ("10.0.0.2", ["1.2.3.4, 203.0.113.5"], "203.0.113.5"),  # the rightmost: what the proxy saw
        ("10.0.0.2", ["203.0.113.5, 10.0.0.9"], "203.0.113.5"),  # a chain of trusted proxies
        ("10.0.0.2", ["203.0.113.5", "10.1.1.1"], "203.0.113.5"),  # the header given twice
        ("10.0.0.2", ["10.0.0.7, 10.0.0.9"], "10.0.0.7"),  # proxies all the way: the farthest one
        ("10.0.0.2", ["unknown"], "10.0.0.2"),  # bad values: the peer
        ("10.0.0.2", ["203.0.113.5, 203.0.113.6:8080"], "10.0.0.2"),
        ("10.0.0.2", [" , "], "10.0.0.2"),
        ("fd00::1", ["2001:db8::7"], "2001:db8::7"),
        ("::ffff:10.0.0.2", ["203.0.113.5"], "203.0.113.5"),  # a dual-stack socket's IPv4 peer
        ("::ffff:198.51.100.1", [], "198.51.100.1"),
    ],
)
def test_the_client_is_the_peer_unless_a_trusted_proxy_names_it(peer, header, client):
    assert str(PROXIES.client_of(peer, header)) == client


def test_no_trusted_proxy_by_default_and_no_address_off_ip():
    assert str(TrustedProxies().client_of("10.0.0.2", ["203.0.113.5"])) == "10.0.0.2"
    assert TrustedProxies().client_of("", []) is None


def test_keys_group_ipv6_by_64_and_ipv4_by_address():
    assert address_key(ipaddress.ip_address("203.0.113.5")) == "203.0.113.5"
    assert address_key(ipaddress.ip_address("2001:db8:1:2:3:4:5:6")) == "2001:db8:1:2::/64"
    assert address_key(ipaddress.ip_address("2001:db8:1:2::9")) == "2001:db8:1:2::/64"
    assert parse_ip("2001:DB8::1 ") == ipaddress.ip_address("2001:db8::1") and parse_ip("x") is None


def test_networks_parse_strictly():
    assert str(parse_network("203.0.113.7")) == "203.0.113.7/32"
    assert str(parse_network("2001:db8::/32")) == "2001:db8::/32"
    for bad in ("203.0.113.7/24", "10.0.0.0/33", "example.com", ""):
        with pytest.raises(ValueError, match="not an IP address or network"):
            parse_network(bad)
