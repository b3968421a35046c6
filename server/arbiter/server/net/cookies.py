"""The cookies a request carries, read in bounded, linear time.

``http.cookies.SimpleCookie`` is quadratic on a quoted value full of backslashes on CPython before
3.11.10 / 3.12.6 (one 8 KB ``Cookie`` header: 0.26 s on the event loop), and it parses every cookie
where the server wants two. ``read_cookies`` looks only for the names asked for, in at most
``MAX_HEADERS`` ``Cookie`` headers of at most ``MAX_HEADER_CHARS`` each (the rest are ignored), with
one split and one scan per header, whatever the Python version and whatever the text.

The syntax is RFC 6265 section 4.2: ``name=value`` pairs separated by ``;``, optional whitespace
around them, a value optionally in double quotes (removed). A value with a character outside the
RFC's cookie-octets, or an empty one, counts as absent. A name sent twice counts the first time: a
browser sends the cookie of the most specific path first.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from itertools import islice

MAX_HEADERS = 4  # a browser sends one Cookie header; HTTP/2 proxies may split it in a few
MAX_HEADER_CHARS = 8192  # websockets' own cap on one header line

# cookie-octet: printable US-ASCII but for whitespace, DQUOTE, comma, semicolon and backslash.
COOKIE_OCTETS = frozenset(chr(c) for c in range(0x21, 0x7F)) - frozenset('",;\\')


def read_cookies(headers: Iterable[str], names: Collection[str]) -> dict[str, str]:
    """The value of each of ``names`` that these ``Cookie`` header values carry (absent ones left out)."""
    found: dict[str, str] = {}
    for header in islice(headers, MAX_HEADERS):
        if len(header) > MAX_HEADER_CHARS:
            continue
        for pair in header.split(";"):
            name, equals, value = pair.partition("=")
            name = name.strip(" \t")
            if not equals or name in found or name not in names:
                continue
            value = value.strip(" \t")
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            if value and COOKIE_OCTETS.issuperset(value):
                found[name] = value
    return found
