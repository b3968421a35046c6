"""The common move frame decoded and checked in one C call: the server's fast path for ``move``.

A server spends most of its time on ``move`` frames. ``codec.decode`` then ``messages.parse``
check one in Python, field by field (about 3 µs); msgspec decodes the same frame straight into a
typed struct whose constraints are the schema's (about 0.2 µs), and the server handles that struct
as it is, with MakeMove's fields under MakeMove's names (building a MakeMove from it would double
the cost). It only ever accepts: any frame it does not take (another type, a bad field, a frame
msgspec reads differently) gives None, and the caller goes the general way, which accepts it or
answers with the precise error code. So this path can only make a valid move cheaper, never change
what is valid; tests/protocol/test_move_frames.py checks that it agrees with the general path on
generated frames, valid and not.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from .codec import MAX_ARRAY_LEN
from .messages import INT32, MAX_ID_LEN, FieldError, analysis

_Int32 = Annotated[int, msgspec.Meta(ge=-INT32, le=INT32)]


class MoveFrame(msgspec.Struct, forbid_unknown_fields=True):
    """A valid ``move``: MakeMove's fields with its checkers' bounds (messages.py: IDENT, PLY, wire_move, id).

    ``type`` is a required field, not msgspec's tag: a lone tagged struct decodes a map without its tag, and a
    frame with no type is no move (the general path refuses it).
    """

    type: Literal["move"]
    match: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]
    ply: Annotated[int, msgspec.Meta(ge=0, le=INT32)]
    move: Annotated[list[_Int32 | Annotated[list[_Int32], msgspec.Meta(max_length=MAX_ARRAY_LEN)]],
                    msgspec.Meta(max_length=MAX_ARRAY_LEN)]  # fmt: skip
    id: int | Annotated[str, msgspec.Meta(max_length=MAX_ID_LEN)] | msgspec.UnsetType | None = (
        msgspec.UNSET
    )  # nil: none
    info: dict[str, Any] | None = None  # checked by messages.analysis, as parse does

    @property
    def request_id(self) -> int | str | None:
        """``id`` as a Request has it: None when the frame had none."""
        return None if self.id is msgspec.UNSET else self.id  # (nil too)

    def wire(self) -> dict[str, Any]:
        """The message as the map a client sends, as ``Request.wire`` gives it (a cluster forwards it)."""
        out: dict[str, Any] = {"type": "move", "match": self.match, "ply": self.ply, "move": self.move}
        if self.id is not msgspec.UNSET and self.id is not None:
            out["id"] = self.id
        if self.info is not None:
            out["info"] = self.info
        return out


_decoder = msgspec.msgpack.Decoder(MoveFrame)


def decode_move_frame(frame: bytes) -> MoveFrame | None:
    """The frame as a MoveFrame when it is a valid move; None for anything else (the general path decides)."""
    try:
        decoded = _decoder.decode(frame)
    except (msgspec.MsgspecError, ValueError, TypeError, RecursionError):  # bad UTF-8 is a ValueError
        return None
    info = decoded.info
    if info is not None:
        try:
            analysis(info)
        except FieldError:
            return None
    return decoded
