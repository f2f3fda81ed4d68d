"""`make demo` runs the whole bot; it must keep working exactly as the README promises, and print
what a person reads: the comment rendered for a terminal, a merge that lights up the badge and
the standing, and what to do next."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import bot
from evalbot_dev.devstack.environment import inherited_environment
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def demo() -> tuple[int, str]:
    """What `make demo` runs, its output to a pipe (as a terminal 100 columns wide)."""
    done = subprocess.run(
        [sys.executable, "-m", "evalbot_dev.demo"],
        cwd=REPO_ROOT,
        env=inherited_environment(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def test_demo_runs_the_bot_end_to_end(demo: tuple[int, str]) -> None:
    status, out = demo
    assert status == 0, out
    assert "FAIL" not in out
    assert "✅ verified" in out
    assert "ok   one comment, edited in place" in out
    assert "ok   the result signed by the issuer is verified" in out
    assert "ok   the pages show both pushes of the PR" in out
    assert "web pages     http://127.0.0.1:" in out


def comments(out: str) -> list[str]:
    """The text printed under each "the bot's comment" and "the same comment" banner."""
    parts = re.split(r"^=== (?:the bot's comment|the same comment)[^\n]*\n", out, flags=re.M)
    return [part.split("\n=== ", 1)[0] for part in parts[1:]]


def test_the_comment_is_rendered_for_a_terminal(demo: tuple[int, str]) -> None:
    """Headings, tables and badges as text a person reads: no Markdown or HTML escape of what
    users wrote, no hidden marker, no table pipes."""
    _, out = demo
    shown = comments(out)
    assert len(shown) == 3
    for text in shown:
        assert "Evaluation results check" in text
        assert "### " not in text
        assert "&#46;" not in text
        assert "\\_" not in text
        assert "<!--" not in text
        assert "<br>" not in text
        assert "|---|" not in text
    first = shown[0]
    assert "✔️ .eval_results/aime_2026.yaml" in first
    assert "❌ .eval_results/gpqa.yaml" in first
    header = next(line for line in first.splitlines() if " benchmark " in line)
    assert header.split() == ["#", "line", "benchmark", "task", "metrics", "badges", "verdict"]
    assert re.search(r"MathArena/aime_2026\s+aime_2026\s+accuracy: 61\.7", first)
    words = " ".join(first.split())  # the list item wraps at the terminal's width
    assert "ENTRY-TASK-UNKNOWN: [0].dataset.task_id: task `gpqa_diamond` is not a task" in words
    assert "Fix: did you mean `diamond`? Write `task_id: diamond`" in words
    # the cell's line break (<br>) kept: the second metric on a line of its own
    assert re.search(r"^\s+cost_usd: 14\.83", first, flags=re.M)


def test_a_merge_lights_up_the_badge_and_the_standing(demo: tuple[int, str]) -> None:
    _, out = demo
    assert "none checked yet" not in out
    assert "ok   the comment says the PR is merged" in out
    merged = out.split("=== alice merges PR #1", 1)[1].split("\n=== ", 1)[0]
    assert re.search(r"badge         http://127\.0\.0\.1:\d+/badge/alice/demo-model\.svg", merged)
    assert "evals: 1 verified · 2 community" in merged
    assert "PASS " in merged
    assert "/collections/frontier-reasoning-v1?model=alice/demo-model" in merged
    assert merged.count("passed   ") == 4


def test_the_demo_ends_with_what_to_do_next(demo: tuple[int, str]) -> None:
    _, out = demo
    tail = out.rsplit("\nnext:\n", 1)[1].splitlines()
    commands = [line.split("#", 1)[0].strip() for line in tail if line.strip()]
    assert [c for c in commands if c] == [
        f"make dist && pip install dist/evalbot-{bot.__version__}-py3-none-any.whl",
        "evalbot validate .",
        "make demo DEMO_ARGS=--web",
    ]
