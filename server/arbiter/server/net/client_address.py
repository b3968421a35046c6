"""Who a connection comes from: the socket's peer, or the client a trusted reverse proxy names.

A proxy such as HAProxy (``option forwardfor``) appends the address it got the request from to
``X-Forwarded-For`` (or, RFC 7239, a ``for=`` element to ``Forwarded``). Anyone can send those
headers, so one is read only when the peer itself is one of the configured trusted proxy networks
(``arbiter serve --trusted-proxy CIDR``), only the one the proxy writes (``--proxy-header``), and
only from the right: the rightmost hop that is not a trusted proxy is the client, and what the
client wrote to the left of it is never looked at, so no value it adds (an address, junk) moves it
anywhere else. Caps and bans count a client by its *key*: an IPv4 address as it is, an IPv6 address
by its /64 (one subscriber usually gets a whole /64 and could otherwise take a new address per connection).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
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


def parse_node(text: str) -> IPAddress | None:
    """A hop's address as proxies write it, the port dropped: ``203.0.113.7``, ``203.0.113.7:4711``,
    ``2001:db8::1``, ``[2001:db8::1]`` or ``[2001:db8::1]:4711``; None for anything else (RFC 7239's
    ``unknown`` and obfuscated ``_hidden`` identifiers, junk)."""
    text = text.strip()
    if text.startswith("["):
        host, bracket, port = text[1:].partition("]")
        return parse_ip(host) if bracket and ":" in host and _is_port(port) else None
    ip = parse_ip(text)
    if ip is not None:
        return ip
    host, colon, port = text.rpartition(":")
    if colon and ":" not in host and _is_port(colon + port):
        return parse_ip(host)
    return None


def _is_port(text: str) -> bool:
    """'' or ``:4711`` or an obfuscated port (``:_abc``, RFC 7239 section 6.3)."""
    if not text:
        return True
    port = text[1:]
    return text[0] == ":" and ((port.isascii() and port.isdigit() and len(port) <= 5) or _is_obfuscated(port))


def _is_obfuscated(text: str) -> bool:
    return len(text) > 1 and text[0] == "_" and all(c.isascii() and (c.isalnum() or c in "._-") for c in text[1:])


def forwarded_for_hops(values: Iterable[str]) -> list[str]:
    """The hops of ``X-Forwarded-For`` header values, in order, empty entries skipped."""
    return [hop for value in values for hop in (part.strip() for part in value.split(",")) if hop]


def forwarded_hops(values: Iterable[str]) -> list[str]:
    """The ``for=`` of each element of ``Forwarded`` header values (RFC 7239), in order; '' for an
    element that has none. Commas and semicolons inside quoted strings do not split; empty elements
    are skipped. Linear in the text, whatever it holds."""
    hops = []
    for value in values:
        for element in _split_quoted(value, ","):
            pairs = _split_quoted(element, ";")
            if not any(pair.strip() for pair in pairs):
                continue
            hop = ""
            for pair in pairs:
                key, equals, raw = pair.partition("=")
                if equals and key.strip().lower() == "for":
                    hop = _unquote(raw.strip())
                    break
            hops.append(hop)
    return hops


def _split_quoted(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside double-quoted strings (with backslash escapes).

    A quote left open makes the text malformed: it is then split at every ``separator``, so a
    client's unclosed quote cannot swallow the element a proxy appended to the same header line."""
    parts, start, quoted, escaped = [], 0, False, False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return text.split(separator) if quoted else parts


def _unquote(value: str) -> str:
    """A token as it is, a quoted string without its quotes and escapes; '' if a quote is unclosed."""
    if not value.startswith('"'):
        return value
    if len(value) < 2 or not value.endswith('"'):
        return ""
    out, escaped = [], False
    for char in value[1:-1]:
        if escaped or char != "\\":
            out.append(char)
            escaped = False
        else:
            escaped = True
    return "" if escaped else "".join(out)


# The headers a trusted proxy may name the client in, by --proxy-header's value.
PROXY_HEADERS: dict[str, tuple[str, Callable[[Iterable[str]], list[str]]]] = {
    "x-forwarded-for": ("X-Forwarded-For", forwarded_for_hops),
    "forwarded": ("Forwarded", forwarded_hops),
}


class TrustedProxies:
    """The networks whose forwarding header is believed (none by default: the peer is the client),
    and which header that is: ``X-Forwarded-For`` (HAProxy's ``option forwardfor``, nginx) or
    ``Forwarded`` (RFC 7239). Only that one is read; the other is the client's to forge."""

    def __init__(self, networks: Iterable[IPNetwork] = (), header: str = "x-forwarded-for") -> None:
        self.networks = tuple(networks)
        self.header, self._hops = PROXY_HEADERS[header]

    def trusts(self, ip: IPAddress) -> bool:
        return any(ip.version == network.version and ip in network for network in self.networks)

    def client_of(self, peer: str, values: Iterable[str] = ()) -> ClientAddress | None:
        """The client of a connection whose socket peer is ``peer`` and whose request carried these
        values of the proxy header (in order); None if even the peer is not an IP address (a Unix
        socket).

        The hops are walked from the right, as each trusted proxy appended the address it got the
        request from: the first that is not a trusted proxy is the client, and whatever stands to its
        left was sent by the client itself and is ignored. A hop that names no address (junk,
        ``unknown``) stops the walk at the trusted proxy that wrote it: the client is then that
        proxy, the peer itself when the peer's own hop is bad."""
        client = parse_ip(peer)
        if client is None:
            return None
        if self.trusts(client):
            for hop in reversed(self._hops(values)):
                ip = parse_node(hop)
                if ip is None:
                    break
                client = ip
                if not self.trusts(ip):
                    break
        return ClientAddress(client)
