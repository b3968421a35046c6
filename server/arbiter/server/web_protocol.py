"""The browser client's copy of the protocol's constants, written from ``arbiter.protocol``.

The client is plain ES modules with no build step, so what it shares with the server is a generated
module checked in beside them, ``web/js/protocol.js``: the protocol version, the error codes and the
close codes, each with its description. A file rather than a route built at start-up, so that it
can be read and grepped like the other modules and ``tsc`` type-checks the client against it;
tests/browser/test_web_protocol.py fails when it differs from what this module writes.
``python -m arbiter.server.web_protocol`` writes it again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from arbiter.protocol import CLOSE_DESCRIPTIONS, ERROR_DESCRIPTIONS, PROTOCOL_VERSION, CloseCode, ErrorCode

MODULE = Path(__file__).resolve().parent / "web" / "js" / "protocol.js"


def render() -> str:
    """The text of ``protocol.js``."""
    return "\n".join(
        [
            "// @ts-check",
            "// The protocol's constants the browser client shares with the server (SPEC.md is the reference).",
            "// Generated from arbiter.protocol by `python -m arbiter.server.web_protocol`: do not edit.",
            "",
            "/** The protocol version this client speaks (hello's `protocol`). */",
            f"export const PROTOCOL_VERSION = {json.dumps(PROTOCOL_VERSION)};",
            "",
            *_enum("ErrorCode", "The `code` of an error reply (SPEC.md, Error codes).", ErrorCode, ERROR_DESCRIPTIONS),
            *_enum(
                "CloseCode",
                "The WebSocket close codes the server uses (SPEC.md, Close codes).",
                CloseCode,
                CLOSE_DESCRIPTIONS,
            ),
        ]
    )


def _enum(name: str, doc: str, members: type[Enum], descriptions: Mapping[Any, str]) -> list[str]:
    lines = [f"/** {doc} */", f"export const {name} = Object.freeze({{"]
    for member in members:
        description = descriptions[member]
        assert "*/" not in description, f"{member!r}'s description would end its comment"
        lines += [f"  /** {description} */", f"  {member.name}: {json.dumps(member.value)},"]
    return [*lines, "});", ""]


def main() -> int:
    MODULE.write_text(render(), encoding="utf-8")
    print(MODULE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
