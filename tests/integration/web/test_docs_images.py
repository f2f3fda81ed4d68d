"""The screenshots in README.md and docs/web.md are taken here, from a running bot, not by
hand: every run takes them (into the run's screenshot folder), and
`EVALBOT_UPDATE_DOCS_IMAGES=1` writes them over docs/images/. Each image the docs show must be
one this test takes, so no screenshot in the docs can go stale unnoticed."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import httpx2
import pytest

from evalbot_dev.devstack.waiting import wait_until
from tests.support.browser import DESKTOP, PHONE, Tab, open_tab
from tests.support.emulator import GPQA_FIXED, GPQA_TYPO, MODEL
from tests.support.stackbot import Bot, open_pr, push

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parents[3]
DOCS_IMAGES = ROOT / "docs" / "images"
GPQA_PATH = ".eval_results/gpqa-mini.yaml"


def shoot(tab: Tab, folder: Path, name: str, *, full_page: bool = True) -> None:
    assert tab.axe_violations() == [], name
    assert not tab.overflows(), name
    tab.page.screenshot(path=str(folder / name), full_page=full_page)


def test_the_docs_screenshots(web_bot: Bot, browser: Any, screenshots: Path) -> None:
    folder = screenshots / "docs"
    folder.mkdir(exist_ok=True)
    num, first = open_pr(web_bot, {GPQA_PATH: GPQA_TYPO})
    web_bot.wait_for_report(num, head=first)
    second = push(web_bot, num, GPQA_PATH, GPQA_FIXED)
    web_bot.wait_for_report(num, head=second)
    web_bot.api("alice").merge_pull_request(repo_id=MODEL, discussion_num=num)
    url = web_bot.stack.web_url

    def badge_counts() -> bool:
        return "community" in httpx2.get(f"{url}/badge/{MODEL}.svg", timeout=10).text

    wait_until(badge_counts, timeout=30, what="the merged PR counted by the badge")

    tab = open_tab(browser, {"width": DESKTOP["width"], "height": 760})
    tab.goto(url + "/playground")
    tab.page.fill("#content", GPQA_TYPO)
    tab.page.click("button[type=submit]")
    assert tab.page.evaluate("document.activeElement.id") == "result"
    shoot(tab, folder, "web-playground.png", full_page=False)  # what a visitor sees first
    tab.goto(f"{url}/pr/{MODEL}/{num}")
    shoot(tab, folder, "web-pr-details.png")
    tab.goto(f"{url}/history/{MODEL}")
    shoot(tab, folder, "web-history.png", full_page=False)
    tab.goto(f"{url}/benchmarks/emulator-samples/gpqa-mini")
    shoot(tab, folder, "web-benchmark.png")
    tab.goto(f"{url}/status")
    shoot(tab, folder, "web-status.png")
    badge = open_tab(browser)  # an SVG document: the browser asks for /favicon.ico, a 404
    badge.goto(f"{url}/badge/{MODEL}.svg")
    badge.page.locator("svg").screenshot(path=str(folder / "web-badge.png"))

    dark = open_tab(browser, {"width": DESKTOP["width"], "height": 760}, dark=True)
    dark.goto(f"{url}/pr/{MODEL}/{num}")
    shoot(dark, folder, "web-pr-details-dark.png", full_page=False)
    phone = open_tab(browser, PHONE)
    phone.goto(url + "/")
    shoot(phone, folder, "web-landing-phone.png", full_page=False)
    assert tab.errors == dark.errors == phone.errors == []

    shown = set(re.findall(r"images/(web-[\w-]+\.png)", (ROOT / "docs" / "web.md").read_text()))
    shown |= set(re.findall(r"docs/images/(web-[\w-]+\.png)", (ROOT / "README.md").read_text()))
    taken = {path.name for path in folder.glob("*.png")}
    assert shown <= taken, f"the docs show screenshots no test takes: {shown - taken}"
    if os.environ.get("EVALBOT_UPDATE_DOCS_IMAGES") == "1":
        for name in sorted(shown):
            shutil.copyfile(folder / name, DOCS_IMAGES / name)
    missing = {name for name in shown if not (DOCS_IMAGES / name).is_file()}
    assert not missing, f"run with EVALBOT_UPDATE_DOCS_IMAGES=1 to add {missing}"
