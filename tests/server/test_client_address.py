"""The client address of a connection: the peer, or whom a trusted proxy's X-Forwarded-For or
Forwarded names: the rightmost hop that is not a trusted proxy, whatever a client writes to its left."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server.net.client_address import (
    IPAddress,
    TrustedProxies,
    address_key,
    forwarded_for_hops,
    forwarded_hops,
    parse_ip,
    parse_network,
    parse_node,
)

NETWORKS = [ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("fd00::/8")]
PROXIES = TrustedProxies(NETWORKS)
FORWARDED = TrustedProxies(NETWORKS, "forwarded")


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
        ("10.0.0.2", ["unknown"], "10.0.0.2"),  # the proxy's own hop is bad: the peer
        ("10.0.0.2", ["203.0.113.5, junk"], "10.0.0.2"),
        ("10.0.0.2", ["junk, 203.0.113.5"], "203.0.113.5"),  # junk left of the client changes nothing
        ("10.0.0.2", ["junk", "203.0.113.5"], "203.0.113.5"),
        ("10.0.0.2", ["203.0.113.5, junk, 10.0.0.9"], "10.0.0.9"),  # a trusted hop named junk: that hop
        ("10.0.0.2", ["203.0.113.5, 203.0.113.6:8080"], "203.0.113.6"),  # ports are dropped
        ("10.0.0.2", ["[2001:db8::7]:443"], "2001:db8::7"),
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


@pytest.mark.parametrize(
    ("header", "client"),
    [
        (["for=203.0.113.5"], "203.0.113.5"),
        (["for=192.0.2.60;proto=http;by=10.0.0.2"], "192.0.2.60"),
        (['For="[2001:db8:cafe::17]:4711"'], "2001:db8:cafe::17"),
        (['for="192.0.2.43:47011", for=198.51.100.17;by=10.0.0.2'], "198.51.100.17"),
        (["for=junk, for=203.0.113.5"], "203.0.113.5"),
        (["for=203.0.113.5", "for=10.0.0.9"], "203.0.113.5"),  # the header given twice, a trusted hop
        (["for=203.0.113.5, for=_hidden"], "10.0.0.2"),  # obfuscated: the proxy names no address
        (["for=203.0.113.5, for=unknown"], "10.0.0.2"),
        (["for=203.0.113.5, proto=https"], "10.0.0.2"),  # an element without for=
        (['for="unclosed, for=203.0.113.5'], "203.0.113.5"),  # a client's open quote swallows nothing
        (['for="a,b";x="\\"", for=203.0.113.5'], "203.0.113.5"),
        ([",, for=203.0.113.5 ,"], "203.0.113.5"),  # empty elements are skipped
    ],
)
def test_forwarded_names_the_client_as_rfc_7239_writes_it(header, client):
    assert str(FORWARDED.client_of("10.0.0.2", header)) == client
    assert str(PROXIES.client_of("10.0.0.2", header)) == "10.0.0.2"  # not read as X-Forwarded-For


def test_forwarded_splits_outside_quotes_only():
    assert forwarded_hops(['for="a,b";by=x, ,for=_hid;x="q;,\\\\"', "proto=https"]) == ["a,b", "_hid", ""]
    assert [parse_node(t) for t in ("1.2.3.4:_port", "[1.2.3.4]", "1.2.3.4:x", "[::1", "_hidden")] == [
        ipaddress.ip_address("1.2.3.4"), None, None, None, None
    ]  # fmt: skip


# --- fuzzing: random hop lists, the client is always the rightmost untrusted hop ------------------------
def _trusted(ip: IPAddress) -> bool:
    return PROXIES.trusts(ip)


untrusted = st.ip_addresses().map(lambda ip: parse_ip(str(ip))).filter(lambda ip: ip is not None and not _trusted(ip))
trusted = st.ip_addresses(network="10.0.0.0/8") | st.ip_addresses(network="fd00::/8")
anything = st.text(st.characters(blacklist_characters="\r\n\x00"), max_size=30)  # what a client may send


@st.composite
def written(draw: st.DrawFn, ip: IPAddress, forwarded: bool) -> str:
    """One hop as a proxy may write it: with or without a port, quoted where RFC 7239 needs it."""
    port = draw(st.sampled_from(["", ":4711", ":_obf"] if forwarded else ["", ":4711"]))
    bracketed = ip.version == 6 and (port or draw(st.booleans()))
    node = f"[{ip}]{port}" if bracketed else f"{ip}{port}"
    if not forwarded:
        return node
    value = f'"{node}"' if ":" in node or draw(st.booleans()) else node
    extras = draw(st.lists(st.sampled_from(["proto=https", "by=10.0.0.1", 'host="a.example"']), max_size=2))
    pairs = [f"{draw(st.sampled_from(['for', 'For', 'FOR']))}={value}", *extras]
    return ";".join(draw(st.permutations(pairs)))


@st.composite
def headers(draw: st.DrawFn, hops: list[str], forwarded: bool) -> list[str]:
    """The hops as header values: joined with commas, split into lines at random places."""
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(hops) - 1)), max_size=3))) if len(hops) > 1 else []
    lines, start = [], 0
    for cut in [*cuts, len(hops)]:
        lines.append(", ".join(hops[start:cut]))
        start = cut
    return lines


@settings(max_examples=400, deadline=None)
@given(data=st.data(), forwarded=st.booleans())
def test_whatever_a_client_writes_the_client_is_the_rightmost_untrusted_hop(data, forwarded):
    """Hops the client forged (any text), then its own address, then the trusted proxies' hops."""
    client = data.draw(untrusted)
    proxies = data.draw(st.lists(trusted, max_size=3))
    addresses = (untrusted | trusted).flatmap(lambda ip: written(ip, forwarded))
    forged = data.draw(st.lists(anything | addresses, max_size=4))  # junk, and addresses of anyone
    hops = [*forged, data.draw(written(client, forwarded)), *[data.draw(written(ip, forwarded)) for ip in proxies]]
    lines = data.draw(headers(hops, forwarded))
    if forged and data.draw(st.booleans()):  # the forged part on its own header line, as HAProxy adds its own
        lines = [", ".join(forged), ", ".join(hops[len(forged) :])]
    chosen = (FORWARDED if forwarded else PROXIES).client_of("10.0.0.2", lines)
    assert chosen is not None and chosen.ip == client, (lines, chosen)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), forwarded=st.booleans())
def test_well_formed_lists_give_the_rightmost_untrusted_hop_or_the_farthest_proxy(data, forwarded):
    chain = data.draw(st.lists(untrusted | trusted, max_size=6))
    lines = data.draw(headers([data.draw(written(ip, forwarded)) for ip in chain], forwarded))
    chosen = (FORWARDED if forwarded else PROXIES).client_of("10.0.0.2", lines)
    normal = [parse_ip(str(ip)) for ip in chain]
    expected = next((ip for ip in reversed(normal) if not _trusted(ip)), normal[0] if normal else parse_ip("10.0.0.2"))
    assert chosen is not None and chosen.ip == expected, (lines, chosen)


@settings(max_examples=300, deadline=None)
@given(st.lists(anything, max_size=5), st.booleans())
def test_any_header_gives_the_peer_or_an_address_one_of_its_hops_names(lines, forwarded):
    chosen = (FORWARDED if forwarded else PROXIES).client_of("10.0.0.2", lines)
    hops = forwarded_hops(lines) if forwarded else forwarded_for_hops(lines)
    assert chosen is not None and chosen.ip in {parse_ip("10.0.0.2"), *(parse_node(hop) for hop in hops)}
