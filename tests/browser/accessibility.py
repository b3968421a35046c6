"""The axe-core accessibility audit of a page, as the browser tests run it (axe-core from npm: make install-test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"  # make install-test: npm ci here
SERIOUS = ("serious", "critical")
AUDIT = """async () => {
  const results = await axe.run(document, { resultTypes: ["violations"] });
  return results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                                          nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
}"""


async def audit(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it stands (evaluated over the
    DevTools protocol, which the page's Content-Security-Policy does not govern)."""
    if not await page.evaluate("() => Boolean(window.axe)"):
        await page.evaluate(AXE.read_text())
    return [v for v in await page.evaluate(AUDIT) if v["impact"] in SERIOUS]
