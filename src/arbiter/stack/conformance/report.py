"""The pass/fail table: each row what was checked, the result, what was expected and seen, and where SPEC.md says so."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from websockets.exceptions import ConnectionClosed

Status = Literal["pass", "fail", "skip"]


class Mismatch(Exception):
    """A check saw something other than what SPEC.md promises."""

    def __init__(self, expected: str, seen: str) -> None:
        super().__init__(f"expected {expected}, seen {seen}")
        self.expected = expected
        self.seen = seen


class NotExercised(Exception):
    """The run never reached the situation a row is about (the row is skipped, not failed)."""


def verify(condition: bool, expected: str, seen: object) -> None:
    """Mismatch unless ``condition`` holds."""
    if not condition:
        raise Mismatch(expected, str(seen))


@dataclass
class Row:
    check: str
    section: str
    status: Status
    expected: str = ""
    seen: str = ""


@dataclass
class Report:
    """The rows in the order they ran; each scenario stops at its first failure and skips the rest."""

    timeout_s: float = 10.0
    rows: list[Row] = field(default_factory=list)

    def scenario(self) -> Scenario:
        return Scenario(self)

    @property
    def failed(self) -> list[Row]:
        return [row for row in self.rows if row.status == "fail"]

    def render(self, *, verbose: bool = False) -> str:
        """The table as text: one line a row, and under a failure what was expected and what was seen
        (with ``verbose``, under a pass what was seen too)."""
        width = max((len(row.section) for row in self.rows), default=1)
        lines = [f"{'result':6}  {'SPEC':{width}}  check"]
        for row in self.rows:
            lines.append(f"{row.status.upper():6}  {row.section:{width}}  {row.check}")
            if row.status == "fail":
                lines.append(f"{'':{8 + width}}  expected: {row.expected}")
                lines.append(f"{'':{8 + width}}  seen:     {row.seen}")
            elif row.seen and (row.status == "skip" or verbose):
                lines.append(f"{'':{8 + width}}  {row.seen}")
        counts = {status: sum(row.status == status for row in self.rows) for status in ("pass", "fail", "skip")}
        lines.append(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
        return "\n".join(lines)


class Scenario:
    """A sequence of checks that build on each other: after a failure, the later ones cannot be judged."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.broken: str | None = None

    async def check(
        self, check: str, section: str, body: Callable[[], Awaitable[object]], *, limit_s: float | None = None
    ) -> bool:
        """Run one check; its row passes when ``body`` returns (its value, if any, is what was seen).
        Each wait inside is bounded; ``limit_s`` (default six waits) bounds the whole check."""
        limit = self.report.timeout_s * 6 if limit_s is None else limit_s
        rows = self.report.rows
        if self.broken is not None:
            rows.append(Row(check, section, "skip", seen=f"not run: {self.broken} failed"))
            return False
        try:
            async with asyncio.timeout(limit):
                seen = await body()
        except Mismatch as error:
            rows.append(Row(check, section, "fail", error.expected, error.seen))
        except NotExercised as error:
            rows.append(Row(check, section, "skip", seen=str(error)))
            return False
        except TimeoutError:
            rows.append(Row(check, section, "fail", "the check to finish", f"nothing after {limit:g} s"))
        except (ConnectionClosed, OSError) as error:
            rows.append(Row(check, section, "fail", "the connection to stay open", f"{type(error).__name__}: {error}"))
        except Exception as error:  # a reply of an unexpected shape: the table says so, the other checks go on
            rows.append(Row(check, section, "fail", "replies as SPEC.md describes", f"{type(error).__name__}: {error}"))
        else:
            rows.append(Row(check, section, "pass", seen="" if seen is None else str(seen)))
            return True
        self.broken = f"“{check}”"
        return False
