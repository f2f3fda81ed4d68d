"""The web pages in a real headless Chromium against a whole running bot (Redis, the Hub
emulator, `evalbot serve`, a Celery worker, `evalbot web`): each page loads cleanly at
desktop and phone widths, the playground round trip, a PR's history after two pushes, and
hostile text rendered inert. Screenshots of each page are saved (tests/support/browser.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.devstack.workload import hle_entry
from tests.integration.web.conftest import OPERATOR_TOKEN, PAGES_URL
from tests.support.browser import DESKTOP, PHONE, open_tab
from tests.support.emulator import GPQA_FIXED, GPQA_TYPO, MODEL
from tests.support.stackbot import Bot, open_pr, push

pytestmark = pytest.mark.integration

GPQA_PATH = ".eval_results/gpqa-mini.yaml"
#: Each page and a text it must show, whatever else it holds.
PAGES = (
    ("/", "Evaluation results, checked"),
    ("/playground", "Validation playground"),
    ("/history", "PR history"),
    (f"/history/{MODEL}", "PR history"),
    ("/collections", "Collections"),
    ("/benchmarks", "Benchmarks"),
    ("/collections/mini-gate", "mini-gate"),
    ("/status", "The last hour"),
    ("/no/such/page", "Not found"),
)


@pytest.mark.parametrize(("width_name", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_each_page_is_clean_at_desktop_and_phone_width(
    web_bot: Bot, browser: Any, screenshots: Path, width_name: str, viewport: dict[str, int]
) -> None:
    """Structure, not pixels: one h1, the key text, no sideways scroll, axe finds nothing
    (scroll boxes reachable by keyboard included), no console error but the 404's own."""
    tab = open_tab(browser, viewport)
    for path, key_text in PAGES:
        expected = 404 if path == "/no/such/page" else 200
        assert tab.goto(web_bot.stack.web_url + path) == expected, path
        assert tab.page.locator("h1").count() == 1, path
        assert tab.page.locator("main").count() == 1, path
        assert key_text in tab.page.inner_text("main"), path
        assert not tab.overflows(), f"{path} scrolls sideways at {viewport['width']} px"
        assert tab.axe_violations() == [], path
        name = path.strip("/").replace("/", "-") or "landing"
        tab.page.screenshot(path=str(screenshots / f"{name}-{width_name}.png"), full_page=True)
    not_found = "Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert tab.errors == [not_found]


def test_each_page_reads_without_its_stylesheet(web_bot: Bot, browser: Any) -> None:
    """CSS off (blocked, as a text browser or a failed load would have it): each page still
    has its one heading, its key text and its navigation, in reading order, nothing wider than
    a desktop window."""
    tab = open_tab(browser)
    tab.page.route("**/static/*", lambda route: route.abort())
    for path, key_text in PAGES:
        tab.goto(web_bot.stack.web_url + path)
        assert tab.page.evaluate("getComputedStyle(document.body).margin") == "8px"  # no sheet
        assert tab.page.locator("h1").count() == 1, path
        text = tab.page.inner_text("body")
        assert key_text in text, path
        assert text.index("Playground") < text.index(key_text), path  # header, then main
        assert not tab.overflows(), path
    tab.errors.clear()  # the blocked sheet and fonts are the point


def test_the_pages_fonts_draw_the_badges_emoji(web_bot: Bot, browser: Any) -> None:
    """Without an emoji font every badge is an empty box: the machine must have one, and the
    page's font stack must reach it."""
    tab = open_tab(browser)
    tab.goto(web_bot.stack.web_url + "/")
    assert tab.page.evaluate("document.fonts.check('16px \"Noto Color Emoji\"', '✅')")
    # The Hub's typefaces, served by the bot itself, are the ones drawn.
    loaded = tab.page.evaluate(
        "document.fonts.ready.then(() => [...document.fonts]"
        ".filter(f => f.status === 'loaded').map(f => f.family.replaceAll('\"', '')))"
    )
    assert "Source Sans Pro" in loaded, loaded
    assert tab.page.locator("code").count() > 0
    assert "IBM Plex Mono" in loaded, loaded
    badge = tab.page.locator(".badges .badge-verified")
    assert badge.inner_text().startswith("✅")
    assert badge.evaluate("e => getComputedStyle(e).borderRadius") != "0px"  # a styled label


def test_landing_shows_the_badges_and_the_live_state(web_bot: Bot, browser: Any) -> None:
    tab = open_tab(browser)
    tab.goto(web_bot.stack.web_url + "/")
    text = tab.page.inner_text("main")
    for label in ("✅ verified", "👥 community", "🏆 leaderboard", "🔗 source"):
        assert label in text
    live = tab.page.inner_text("#live")
    assert "Workers:" in live
    assert "waiting" in live
    assert "Hub: not paused" in live
    assert "@evalbot recheck" in text


def test_playground_round_trip(web_bot: Bot, browser: Any, screenshots: Path) -> None:
    tab = open_tab(browser)
    tab.goto(web_bot.stack.web_url + "/playground")
    tab.page.fill("#content", GPQA_TYPO)
    tab.page.click("button[type=submit]")
    assert "error" in tab.page.inner_text("#verdict")
    # The result has the focus (a screen reader reads it) and is on screen, not below the fold.
    assert tab.page.evaluate("document.activeElement.id") == "result"
    top = tab.page.evaluate("document.getElementById('result').getBoundingClientRect().top")
    assert 0 <= top < DESKTOP["height"] / 2
    assert tab.page.title().startswith("1 error")
    assert ".eval_results/gpqa_mini.yaml" in tab.page.inner_text("#verdict")  # CRLF sent
    flagged = tab.page.locator(".source .line.error")
    assert flagged.count() == 1
    assert flagged.first.get_attribute("id") == "L3"  # task_id: Diamond
    assert "Diamond" in flagged.first.inner_text()
    problems = tab.page.inner_text(".problems")
    assert "line 3" in problems
    assert "Fix:" in problems
    assert "diamond" in problems
    assert "❌" in tab.page.inner_text("#comment")  # the PR comment's own rendering
    tab.page.screenshot(path=str(screenshots / "playground-error.png"), full_page=True)

    assert tab.page.input_value("#content") == GPQA_TYPO  # the form keeps what was pasted
    tab.page.fill("#content", GPQA_FIXED)
    tab.page.click("button[type=submit]")
    assert "No errors" in tab.page.inner_text("#verdict")
    assert tab.page.locator(".source .line.error").count() == 0
    comment = tab.page.inner_text("#comment")
    assert "👥 community" in comment
    assert "🏆 leaderboard" in comment
    assert tab.errors == []


def test_playground_takes_an_uploaded_file_under_its_own_name(web_bot: Bot, browser: Any) -> None:
    tab = open_tab(browser, PHONE)
    tab.goto(web_bot.stack.web_url + "/playground")
    upload = {
        "name": "gpqa_mini.yaml",
        "mimeType": "application/yaml",
        "buffer": GPQA_TYPO.encode(),
    }
    tab.page.set_input_files("#upload", files=[upload])
    tab.page.click("button[type=submit]")
    verdict = tab.page.inner_text("#verdict")
    assert ".eval_results/gpqa_mini.yaml" in verdict
    assert "1 error" in verdict
    assert tab.page.locator("#L3.error").count() == 1
    assert not tab.overflows()
    assert tab.errors == []


def test_playground_checks_an_eval_yaml(web_bot: Bot, browser: Any) -> None:
    tab = open_tab(browser)
    tab.goto(web_bot.stack.web_url + "/playground")
    tab.page.check("input[value=benchmark]")
    tab.page.fill("#content", "name: x\nmetrics: []\ntasks:\n  - id: main\n")
    tab.page.click("button[type=submit]")
    assert "error" in tab.page.inner_text("#verdict")
    assert tab.page.locator(".source .line.error").count() >= 1
    assert tab.page.is_checked("input[value=benchmark]")


def test_playground_shows_what_a_picked_benchmark_expects(web_bot: Bot, browser: Any) -> None:
    tab = open_tab(browser)
    tab.goto(web_bot.stack.web_url + "/playground")
    tab.page.fill("#benchmark", "emulator-samples/gpqa-mini")
    tab.page.fill("#content", GPQA_FIXED)
    tab.page.click("button[type=submit]")
    expected = tab.page.inner_text("#expected")
    assert "diamond" in expected
    tab.goto(web_bot.stack.web_url + "/playground")
    options = tab.page.locator("#known option")
    assert "emulator-samples/gpqa-mini" in [
        options.nth(i).get_attribute("value") for i in range(options.count())
    ]


HOSTILE = """\
- dataset:
    id: emulator-samples/gpqa-mini
    task_id: "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"
  value: 43.1
  source:
    url: "javascript:alert(2)"
- dataset:
    id: emulator-samples/gpqa-mini
    task_id: "[click me](javascript:alert(1)) @evalbot recheck <b>bold</b> ![x](http://198.51.100.1/t.png)"
  value: 43.2
"""


def test_hostile_strings_in_a_pasted_file_render_inert(
    web_bot: Bot, browser: Any, screenshots: Path
) -> None:
    tab = open_tab(browser)
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    tab.page.on("dialog", on_dialog)
    requests: list[str] = []
    tab.page.on("request", lambda request: requests.append(request.url))
    tab.goto(web_bot.stack.web_url + "/playground")
    tab.page.fill("#content", HOSTILE)
    tab.page.click("button[type=submit]")
    tab.page.wait_for_selector("#verdict")
    assert tab.page.title() != "pwned"
    assert dialogs == []
    main = tab.page.locator("main")
    assert main.locator("script").count() == 0
    assert main.locator("img").count() == 0
    assert main.locator("b:text('bold')").count() == 0
    hrefs = [
        main.locator("a").nth(i).get_attribute("href") or ""
        for i in range(main.locator("a").count())
    ]
    assert not any(href.lower().startswith("javascript:") for href in hrefs)
    assert main.locator("a:has-text('click me')").count() == 0
    assert main.locator("a:has-text('@evalbot')").count() == 0
    text = main.inner_text()
    assert "<script>" in text  # shown as text, where the user can read what they wrote
    comment = tab.page.inner_text("#comment")
    assert "[click me]" in comment  # the markdown link shown as text
    assert "@\u200bevalbot recheck" in comment  # the mention broken, as in the PR comment
    assert not [url for url in requests if "198.51.100.1" in url]
    tab.page.screenshot(path=str(screenshots / "playground-hostile.png"), full_page=True)
    assert tab.errors == []


def test_pr_history_after_two_pushes(web_bot: Bot, browser: Any, screenshots: Path) -> None:
    num, first = open_pr(web_bot, {GPQA_PATH: GPQA_TYPO})
    web_bot.wait_for_report(num, head=first)
    second = push(web_bot, num, GPQA_PATH, GPQA_FIXED)
    report = web_bot.wait_for_report(num, head=second)
    details = f"/pr/{MODEL}/{num}"
    assert f"[details and history]({PAGES_URL}{details})" in report.content  # the footer
    tab = open_tab(browser)

    def rows() -> Any:
        tab.goto(f"{web_bot.stack.web_url}/history/{MODEL}")
        found = tab.page.locator(f"#pr-{num} tbody tr")
        return found if found.count() >= 2 else None

    found = wait_until(rows, timeout=30, what="two verdicts on the history page")
    newest, oldest = found.nth(0).inner_text(), found.nth(found.count() - 1).inner_text()
    assert second[:7] in newest
    assert "valid" in newest
    assert first[:7] in oldest
    assert "errors" in oldest
    link = tab.page.locator(f"#pr-{num} h2 a").first.get_attribute("href")
    assert link == f"{web_bot.stack.hub.url}/{MODEL}/discussions/{num}"
    assert "ENTRY-TASK-UNKNOWN" in oldest  # which error, not just "errors"
    heading = tab.page.inner_text(f"#pr-{num} h2")
    assert "Add results" in heading  # the PR's title
    assert "by alice" in heading
    tab.page.click(f"#pr-{num} h2 a:has-text('details')")
    assert tab.page.url == web_bot.stack.web_url + details
    pushes = tab.page.locator("section.push")
    # the click's navigation may still be loading the page: count() does not wait for it
    wait_until(lambda: pushes.count() == 2, timeout=10, what="both pushes on the details page")
    assert "Fix:" in pushes.nth(1).inner_text()
    assert "<td>3</td>" in pushes.nth(1).inner_html()  # the line of the typo
    assert tab.axe_violations() == []
    tab.page.screenshot(path=str(screenshots / "pr-details.png"), full_page=True)
    tab.page.screenshot(path=str(screenshots / "history-two-pushes.png"), full_page=True)
    tab.goto(f"{web_bot.stack.web_url}/history")
    assert MODEL in tab.page.inner_text(".repos")
    assert tab.errors == []


def test_status_charts_and_operator_sign_in(web_bot: Bot, browser: Any, screenshots: Path) -> None:
    tab = open_tab(browser)

    def charted() -> bool:
        tab.goto(web_bot.stack.web_url + "/status")
        return int(tab.page.locator(".chart polyline").count()) >= 4

    wait_until(charted, timeout=30, interval=0.5, what="samples charted on the status page")
    assert tab.page.locator("form[action='/status/replay']").count() == 0  # read-only
    workers = tab.page.locator("#workers tbody tr")  # the stack's worker, by its heartbeat
    assert workers.count() >= 1
    assert "alive" in workers.first.inner_text()
    assert "worker alive" in tab.page.inner_text("#live")
    tab.page.fill("#token", "not-the-token")
    tab.page.click("form[action='/status/login'] button")
    assert "Wrong token" in tab.page.inner_text("h1")
    assert tab.errors == [
        "Failed to load resource: the server responded with a status of 403 (Forbidden)"
    ]
    tab.errors.clear()  # the 403 was the point
    tab.goto(web_bot.stack.web_url + "/status")
    tab.page.fill("#token", OPERATOR_TOKEN)
    tab.page.click("form[action='/status/login'] button")
    assert "Parked events" in tab.page.inner_text("main")
    tab.page.screenshot(path=str(screenshots / "status-operator.png"), full_page=True)
    assert tab.errors == []


def test_pages_through_the_receivers_port_as_on_a_space(web_bot: Bot, browser: Any) -> None:
    """One public port: the receiver answers webhooks and forwards every other path."""
    tab = open_tab(browser, PHONE)
    receiver = web_bot.stack.receiver_url
    assert tab.goto(receiver + "/") == 200
    assert "Evaluation results, checked" in tab.page.inner_text("h1")
    tab.goto(receiver + "/playground")
    tab.page.fill("#content", GPQA_FIXED)
    tab.page.click("button[type=submit]")  # the Origin check passes: Host is kept
    assert "No errors" in tab.page.inner_text("#verdict")
    assert tab.goto(receiver + "/healthz") == 200  # the receiver's own routes still its own
    assert tab.errors == []


def test_a_models_standing_in_a_collection(web_bot: Bot, browser: Any, screenshots: Path) -> None:
    """alice/model's main holds GPQA 41.5 (the emulator's seed); an HLE result of 20 joins it:
    GPQA clears its 40, HLE misses its 25, and the aggregate (41.5 + 20) / 2 = 30.75 is under
    the pass line of 35."""
    web_bot.api("alice").upload_file(
        path_or_fileobj=hle_entry("20").encode(),
        path_in_repo=".eval_results/hle_mini.yaml",
        repo_id=MODEL,
    )
    tab = open_tab(browser, PHONE)
    tab.goto(web_bot.stack.web_url + "/collections")
    tab.page.select_option("#cid", "mini-gate")
    tab.page.fill("#model", MODEL)
    tab.page.click("#standing-form button")
    assert tab.page.url.endswith("/collections/mini-gate?model=alice/model")
    verdict = tab.page.inner_text("#verdict")
    assert "does not pass" in verdict
    assert "aggregate 30.75" in verdict
    assert "below the pass threshold 35 by 4.25" in tab.page.inner_text("#reasons")
    bars = tab.page.locator("#standing figure")
    assert bars.count() == 3  # two benchmarks and the aggregate
    gpqa, hle, aggregate = (bars.nth(i) for i in range(3))
    assert "passed" in (gpqa.get_attribute("class") or "")
    assert "41.5" in gpqa.inner_text()
    assert "failed" in (hle.get_attribute("class") or "")
    assert "≥ 25" in hle.inner_text()
    assert "failed" in (aggregate.get_attribute("class") or "")
    assert "≥ 35" in aggregate.inner_text()
    assert hle.locator("line.mark").count() == 1
    assert not tab.overflows()
    tab.page.screenshot(path=str(screenshots / "collection-standing-phone.png"), full_page=True)
    assert tab.errors == []


def test_an_operator_sign_in_through_the_receiver_is_not_shared_with_other_visitors(
    web_bot: Bot,
) -> None:
    """On a Space every visitor comes through the receiver's forwarder: one operator signing in
    there must not turn the next anonymous visitor into an operator."""
    receiver = web_bot.stack.receiver_url
    with httpx2.Client(timeout=10) as operator, httpx2.Client(timeout=10) as visitor:
        signed_in = operator.post(
            receiver + "/status/login",
            data={"token": OPERATOR_TOKEN},
            headers={"origin": receiver},
            follow_redirects=False,
        )
        assert signed_in.status_code == 303
        assert "Parked events" in operator.get(receiver + "/status").text
        anonymous = visitor.get(receiver + "/status")
        assert anonymous.status_code == 200
        assert "Parked events" not in anonymous.text
        assert "/status/replay" not in anonymous.text
        assert "/status/logout" not in anonymous.text
