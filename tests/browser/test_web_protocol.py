"""The browser client's protocol constants cannot drift from arbiter.protocol: the checked-in
``web/js/protocol.js`` is what ``arbiter.server.web_protocol`` writes, a new code reaches it, and the
module the server serves, run as JavaScript, holds exactly the Python values."""

from __future__ import annotations

import asyncio
import json
import subprocess
import urllib.request
from enum import StrEnum
from pathlib import Path

import pytest

from arbiter.protocol import ERROR_DESCRIPTIONS, PROTOCOL_VERSION, CloseCode, ErrorCode
from arbiter.server import ServerConfig, run_server, web_protocol
from arbiter.server.store.memory import MemoryStore

REGENERATE = "run `python -m arbiter.server.web_protocol` and commit web/js/protocol.js"


def test_the_checked_in_module_is_what_the_protocol_writes() -> None:
    assert web_protocol.MODULE.read_text(encoding="utf-8") == web_protocol.render(), REGENERATE


def test_a_code_added_to_the_protocol_reaches_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    grown = StrEnum("ErrorCode", [*((c.name, c.value) for c in ErrorCode), ("OUT_OF_TEA", "out_of_tea")])
    descriptions = {grown(code.value): text for code, text in ERROR_DESCRIPTIONS.items()}
    monkeypatch.setattr(web_protocol, "ErrorCode", grown)
    monkeypatch.setattr(web_protocol, "ERROR_DESCRIPTIONS", {**descriptions, grown("out_of_tea"): "the pot is empty"})
    text = web_protocol.render()
    assert '  /** the pot is empty */\n  OUT_OF_TEA: "out_of_tea",\n' in text
    assert text != web_protocol.MODULE.read_text(encoding="utf-8")  # so the test above would fail


async def test_the_served_module_holds_the_protocols_values(tmp_path: Path) -> None:
    async with run_server(ServerConfig(port=0, warm_engine=False), MemoryStore()) as server:
        with await asyncio.to_thread(
            urllib.request.urlopen, server.http_url + "/js/protocol.js", timeout=10
        ) as response:
            assert response.headers["Content-Type"] == "text/javascript; charset=utf-8"
            served = response.read()
    (tmp_path / "protocol.mjs").write_bytes(served)
    script = "import * as p from './protocol.mjs'; console.log(JSON.stringify(p));"
    ran = subprocess.run(
        ["node", "--input-type=module", "-e", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {
        "PROTOCOL_VERSION": PROTOCOL_VERSION,
        "ErrorCode": {code.name: code.value for code in ErrorCode},
        "CloseCode": {code.name: code.value for code in CloseCode},
    }
