"""The Arbiter wire protocol, version 1: one msgpack map per binary websocket frame.

SPEC.md in this package is the reference a client author needs; the modules are its executable
form: ``codec`` (frames ↔ maps), ``messages`` (the client messages' schema and its validation), ``server_messages`` (the
server's messages as typed values), ``errors`` (codes).
"""

from . import (
    analysis,  # noqa: F401  (registers the analysis messages)
    ladder,  # noqa: F401  (registers the ladder's messages)
    learning,  # noqa: F401  (registers takebacks' and hints' messages)
    tournaments,  # noqa: F401  (registers the tournaments' messages)
)
from .codec import MAX_FRAME_BYTES, decode, encode
from .errors import CLOSE_DESCRIPTIONS, ERROR_DESCRIPTIONS, CloseCode, ErrorCode, ProtocolError
from .messages import CLIENT_MESSAGES, PROTOCOL_VERSION, Request, parse
from .server_messages import SERVER_MESSAGES, ServerMessage, check_server_message

__all__ = [
    "CLIENT_MESSAGES",
    "CLOSE_DESCRIPTIONS",
    "ERROR_DESCRIPTIONS",
    "MAX_FRAME_BYTES",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGES",
    "CloseCode",
    "ErrorCode",
    "ProtocolError",
    "Request",
    "ServerMessage",
    "check_server_message",
    "decode",
    "encode",
    "parse",
]
