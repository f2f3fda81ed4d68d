"""A real headless Chromium for the web tests: Debian's `/usr/bin/chromium` (installed by
`.ci/run`) driven by Playwright's Python API. `playwright install` is never run: no browser is
downloaded, the driver ships inside the Playwright wheel.

Every page a test opens records its console errors and uncaught page errors, and screenshots
go to `$EVALBOT_WEB_SCREENSHOTS` (default: a folder under pytest's temporary directory), kept
as the run's artefacts.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("EVALBOT_CHROMIUM", "/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@dataclass
class Tab:
    """One browser page and what went wrong on it."""

    page: Any
    errors: list[str] = field(default_factory=list)

    def goto(self, url: str) -> int:
        response = self.page.goto(url)
        assert response is not None
        return int(response.status)

    def axe_violations(self) -> list[str]:
        """What axe-core (run in the page, from the wheel: nothing downloaded) finds, one line
        a violation: its rule and the elements it names."""
        from axe_playwright_python.sync_playwright import Axe

        results = Axe().run(self.page)
        return [
            f"{v['id']}: " + ", ".join(str(node["target"]) for node in v["nodes"])
            for v in results.response["violations"]
        ]

    def overflows(self) -> bool:
        """The page is wider than the window (a phone would scroll sideways)."""
        width: int = self.page.evaluate("document.documentElement.scrollWidth")
        return width > int(self.page.viewport_size["width"]) + 1


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    configured = os.environ.get("EVALBOT_WEB_SCREENSHOTS")
    folder = Path(configured) if configured else tmp_path_factory.mktemp("web-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if shutil.which(CHROMIUM) is None:
        raise RuntimeError(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


def open_tab(browser: Any, viewport: dict[str, int] = DESKTOP, *, dark: bool = False) -> Tab:
    # The pages' CSP forbids every script; the test's own (axe-core) is let in, the pages'
    # own markup still runs none (they carry no script).
    context = browser.new_context(
        viewport=viewport,
        java_script_enabled=True,
        bypass_csp=True,
        color_scheme="dark" if dark else "light",
    )
    tab = Tab(context.new_page())
    tab.page.on(
        "console",
        lambda message: tab.errors.append(message.text) if message.type == "error" else None,
    )
    tab.page.on("pageerror", lambda error: tab.errors.append(str(error)))
    return tab
