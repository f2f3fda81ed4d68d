"""`make demo` runs the whole bot; it must keep working exactly as the README promises."""

from __future__ import annotations

import pytest

from evalbot_dev.demo import run_demo

pytestmark = pytest.mark.integration


def test_demo_runs_the_bot_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    status = run_demo()
    out = capsys.readouterr().out
    assert status == 0, out
    assert "FAIL" not in out
    assert "✅ verified" in out
    assert "ok   one comment, edited in place" in out
    assert "ok   the result signed by the issuer is verified" in out
    assert "ok   the pages show both pushes of the PR" in out
    assert "web pages     http://127.0.0.1:" in out
