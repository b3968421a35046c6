"""Who a connection comes from: the socket's peer, or the client a trusted reverse proxy names.

A proxy such as HAProxy (``option forwardfor``) appends the address it got the request from to
``X-Forwarded-For``. Anyone can send that header, so it is read only when the peer itself is one of
the configured trusted proxy networks (``arbiter serve --trusted-proxy CIDR``), and then from the
right: the rightmost address that is not a trusted proxy is the client. A header that does not parse
is ignored and the peer is the client, so a broken or forged header never lets a client pose as
another. Caps and bans count a client by its *key*: an IPv4 address as it is, an IPv6 address by
its /64 (one subscriber usually gets a whole /64 and could otherwise take a new address per connection).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

IPV6_GROUP_PREFIX = 64


@dataclass(frozen=True, slots=True)
class ClientAddress:
    """A client's address and the key its caps and rate limits are counted under."""

    ip: IPAddress

    @property
    def key(self) -> str:
        """``203.0.113.7`` for IPv4; ``2001:db8:1:2::/64`` for any IPv6 address in that /64."""
        return address_key(self.ip)

    def __str__(self) -> str:
        return str(self.ip)


def address_key(ip: IPAddress) -> str:
    """The group a client address is counted in: the IPv4 address, or the IPv6 address's /64."""
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, IPV6_GROUP_PREFIX), strict=False))
    return str(ip)


def parse_ip(text: str) -> IPAddress | None:
    """An address as a socket or a proxy gives it (an IPv4-mapped IPv6 address as IPv4); None if it is not one."""
    try:
        ip = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def parse_network(text: str) -> IPNetwork:
    """``10.0.0.0/8``, ``2001:db8::/32`` or a single address; ValueError saying what is wrong.

    Host bits set (``10.0.0.1/8``) are refused rather than silently widened: the operator meant one
    of two things and should say which."""
    try:
        return ipaddress.ip_network(text.strip(), strict=True)
    except ValueError as error:
        raise ValueError(f"{text!r} is not an IP address or network in CIDR form ({error})") from None


class TrustedProxies:
    """The networks whose ``X-Forwarded-For`` is believed (none by default: the peer is the client)."""

    def __init__(self, networks: Iterable[IPNetwork] = ()) -> None:
        self.networks = tuple(networks)

    def trusts(self, ip: IPAddress) -> bool:
        return any(ip.version == network.version and ip in network for network in self.networks)

    def client_of(self, peer: str, forwarded_for: Iterable[str] = ()) -> ClientAddress | None:
        """The client of a connection whose socket peer is ``peer`` and whose request carried these
        ``X-Forwarded-For`` header values (in order); None if even the peer is not an IP address
        (a Unix socket)."""
        peer_ip = parse_ip(peer)
        if peer_ip is None:
            return None
        if not self.trusts(peer_ip):
            return ClientAddress(peer_ip)
        hops = [hop for value in forwarded_for for hop in value.split(",")]
        chain = [parse_ip(hop) for hop in hops if hop.strip()]
        if not chain or any(ip is None for ip in chain):
            return ClientAddress(peer_ip)  # no header, or a bad one: the proxy's own address
        for ip in reversed(chain):
            assert ip is not None
            if not self.trusts(ip):
                return ClientAddress(ip)
        first = chain[0]  # every hop is a trusted proxy: the first one is as close to the client as known
        assert first is not None
        return ClientAddress(first)
