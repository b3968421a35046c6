"""One msgpack map per binary frame: encoding and strict, bounded decoding.

Decoding never trusts the frame: strings must be valid UTF-8 (``raw=False``), map keys must be
strings, extension types (timestamps included) and binary strings are refused, and every
container is bounded, so a hostile frame costs at most a small, fixed amount of memory. Anything
else is a ``ProtocolError`` with a stable code; nothing here raises any other exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgpack
import msgspec
from msgpack.exceptions import ExtraData, FormatError, StackError

from .errors import ErrorCode, ProtocolError

MAX_FRAME_BYTES = 16 * 1024  # the default; the server announces its own value in welcome.limits
MAX_ARRAY_LEN = 1024  # a paper-soccer turn is the longest array a client sends (a few hundred steps)
MAX_MAP_LEN = 64
MAX_STR_LEN = 4096

# msgspec's encoder writes the same bytes as msgpack's packer (use_bin_type, the smallest int and
# string forms, float64) in about a third of the time, and the server encodes every frame it sends.
_encoder = msgspec.msgpack.Encoder()


def encode(message: Mapping[str, Any]) -> bytes:
    """The message as one msgpack frame (the caller builds only plain maps, lists, ints and strings)."""
    return _encoder.encode(message)


def decode(
    frame: bytes | str,
    *,
    max_bytes: int = MAX_FRAME_BYTES,
    max_array_len: int = MAX_ARRAY_LEN,
    max_map_len: int = MAX_MAP_LEN,
) -> dict[str, Any]:
    """A frame as a map with a string ``type``, or ProtocolError (bad_frame, frame_too_large, not_a_map).

    The defaults bound what a client may send a server; a client reading the server's messages
    (a long game's ``match_state``, ``welcome.games``) passes the larger bounds it accepts."""
    if not isinstance(frame, bytes):
        raise ProtocolError(ErrorCode.BAD_FRAME, "send binary frames holding msgpack, not text frames")
    if len(frame) > max_bytes:
        raise ProtocolError(ErrorCode.FRAME_TOO_LARGE, f"a frame may hold at most {max_bytes} bytes")
    try:
        value = msgpack.unpackb(
            frame,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=MAX_STR_LEN,
            max_bin_len=0,
            max_array_len=max_array_len,
            max_map_len=max_map_len,
            max_ext_len=0,
            ext_hook=_refuse_ext,
        )
    except (ValueError, TypeError, RecursionError) as error:
        # msgpack signals every malformation (truncation, extra data, bad UTF-8, limits, nesting
        # depth, ext types) as a ValueError subclass; TypeError covers unhashable keys.
        raise ProtocolError(ErrorCode.BAD_FRAME, _frame_fault(error)) from None
    if type(value) is not dict:
        raise ProtocolError(ErrorCode.NOT_A_MAP, "a frame must hold a msgpack map")
    kind = value.get("type")
    if type(kind) is not str:
        raise ProtocolError(ErrorCode.NOT_A_MAP, "a message map needs a string field `type`", re=request_id_of(value))
    return value


_EXT_REFUSED = "msgpack extension types (timestamps included) are not part of the protocol"
_LIMIT = re.compile(r"(\d+) exceeds max_(str|bin|array|map|ext)_len\((\d+)\)")
_LIMITS = {
    "str": "a string of {0} bytes: strings hold at most {1}",
    "array": "an array of {0} items: arrays hold at most {1}",
    "map": "a map of {0} entries: maps hold at most {1}",
    "bin": "a msgpack bin value: send text as msgpack strings (str), binary is not part of the protocol",
}
_KEY = re.compile(r"^(\w+) is not allowed for map key")
_KEY_KINDS = {"int": "an integer", "float": "a number", "bool": "a boolean", "NoneType": "nil", "list": "an array",
              "tuple": "an array", "dict": "a map", "bytes": "binary"}  # fmt: skip


def _frame_fault(error: Exception) -> str:
    """What was wrong with a frame msgpack refused, in the protocol's words (never msgpack's own)."""
    text = str(error)
    if isinstance(error, UnicodeDecodeError):
        return f"a string is not valid UTF-8 (byte 0x{error.object[error.start]:02x})"
    if isinstance(error, ExtraData):
        return "the frame holds bytes after its first msgpack value: send exactly one map per frame"
    if isinstance(error, (StackError, RecursionError)):
        return "the frame nests arrays and maps deeper than any message does"
    if isinstance(error, FormatError):
        return "the frame holds a byte no msgpack value starts with (0xc1)"
    if isinstance(error, TypeError):
        return "map keys must be strings; this frame has a container as a key"
    if (key := _KEY.match(text)) is not None:
        return f"map keys must be strings; this frame has {_KEY_KINDS.get(key.group(1), 'a non-string value')} as a key"
    if text == _EXT_REFUSED or "max_ext_len" in text:
        return _EXT_REFUSED
    if (limit := _LIMIT.search(text)) is not None:
        return "the frame holds " + _LIMITS[limit.group(2)].format(limit.group(1), limit.group(3))
    if "incomplete" in text:
        return "the frame ends in the middle of a msgpack value"
    return "the frame is not one valid msgpack value"


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ValueError(_EXT_REFUSED)


def request_id_of(value: dict[str, Any]) -> int | str | None:
    """The map's ``id`` when it is a valid one (so even a malformed request's error can echo it), else None."""
    rid = value.get("id")
    if (type(rid) is int and -(2**63) <= rid < 2**64) or (type(rid) is str and len(rid) <= 64):
        return rid
    return None
