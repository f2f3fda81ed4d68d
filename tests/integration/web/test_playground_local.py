"""`evalbot playground`: the playground on a laptop, with no Redis, token, secret or bot name.

The command runs as a model owner runs it: a subprocess under uvicorn, from an empty folder,
with none of the bot's settings in its environment, benchmarks from the Hub emulator; the pages
are driven in a real headless Chromium.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evalbot_dev.devstack.waiting import free_port, wait_until
from tests.support.browser import DESKTOP, browser, open_tab, screenshots
from tests.support.emulator import GPQA_FIXED, GPQA_TYPO, running_emulator

__all__ = ["browser", "screenshots"]  # fixtures

pytestmark = pytest.mark.integration

#: What `evalbot web` requires and the playground must not.
BOT_SETTINGS = ("REDIS_URL", "HF_TOKEN", "EVALBOT_WEBHOOK_SECRET", "EVALBOT_BOT_NAME")


def laptop_env(home: Path, hub_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in BOT_SETTINGS}
    env.pop("EVALBOT_BOT_CONFIG", None)
    return env | {
        "HOME": str(home),
        "HF_HOME": str(home / ".hf"),
        "HF_ENDPOINT": hub_url,
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HUB_OFFLINE": "0",
    }


@pytest.fixture
def playground(tmp_path: Path) -> Iterator[str]:
    folder = tmp_path / "laptop"
    folder.mkdir()
    port = free_port()
    log = tmp_path / "playground.log"
    with running_emulator() as hub, log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "playground", "--port", str(port)],
            cwd=folder,
            env=laptop_env(folder, hub.url),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until(
                lambda: httpx.get(url + "/playground", timeout=2).status_code == 200,
                timeout=60,
                what="evalbot playground answering",
                process=process,
                log=log,
            )
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)
    assert f"evalbot playground: {url}/playground" in log.read_text()
    assert list(folder.iterdir()) == [folder / ".hf"] or list(folder.iterdir()) == []


def test_the_playground_round_trip_on_a_laptop(
    playground: str, browser: Any, screenshots: Path
) -> None:
    tab = open_tab(browser)
    assert tab.goto(playground + "/") == 200
    assert "A playground on this computer" in tab.page.inner_text("#live")
    nav = tab.page.inner_text("header nav")
    assert "Playground" in nav
    assert "PR history" not in nav  # the bot's pages need its Redis: not offered
    assert tab.axe_violations() == []
    tab.page.click("header nav a[href='/playground']")
    tab.page.fill("#content", GPQA_TYPO)
    tab.page.click("button[type=submit]")
    assert tab.page.title().startswith("1 error")
    assert tab.page.evaluate("document.activeElement.id") == "result"
    flagged = tab.page.locator(".source .line.error")
    assert flagged.count() == 1
    assert flagged.first.get_attribute("id") == "L3"
    assert "diamond" in tab.page.inner_text(".problems")
    tab.page.screenshot(path=str(screenshots / "playground-local.png"), full_page=True)
    tab.page.fill("#content", GPQA_FIXED)
    tab.page.click("button[type=submit]")
    assert "No errors" in tab.page.inner_text("#verdict")
    assert tab.axe_violations() == []
    assert tab.errors == []
    assert tab.page.viewport_size["width"] == DESKTOP["width"]
    # The bot's pages are not served: a 404 page like the others.
    assert tab.goto(playground + "/history") == 404
    assert "There is no page at this address" in tab.page.inner_text("main")
    assert tab.goto(playground + "/status") == 404


def test_only_this_computer_and_its_own_names(playground: str) -> None:
    assert httpx.get(playground + "/", headers={"Host": "rebound.example"}).status_code == 400
    cross_site = httpx.post(
        playground + "/playground",
        data={"content": GPQA_FIXED, "kind": "results"},
        headers={"Origin": "https://rebound.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert cross_site.status_code == 403


def test_a_host_other_than_loopback_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "playground", "--host", "0.0.0.0"],
        cwd=tmp_path,
        env=laptop_env(tmp_path, "http://127.0.0.1:9"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "listens on this computer only" in done.stderr
    assert "evalbot web" in done.stderr
