"""`wait_until` gives up as soon as the process meant to bring the condition about has exited."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalbot_dev.devstack.waiting import DeadlineExceeded, ProcessExited, wait_until


def test_a_dead_process_ends_the_wait_with_its_status_and_log(tmp_path: Path) -> None:
    log = tmp_path / "child.log"
    with log.open("wb") as out:
        child = subprocess.Popen(
            [sys.executable, "-c", "print('no redis-server was found'); raise SystemExit(3)"],
            stdout=out,
        )
    child.wait(timeout=30)
    # a deadline far beyond pytest's own timeout: only the exit can end this wait in time
    with pytest.raises(ProcessExited, match="exited with status 3") as raised:
        wait_until(lambda: False, timeout=3600, what="a server", process=child, log=log)
    assert "no redis-server was found" in str(raised.value)


def test_a_running_process_leaves_the_deadline_in_charge() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(DeadlineExceeded):
            wait_until(lambda: False, timeout=0.2, what="never", process=child)
    finally:
        child.kill()
        child.wait(timeout=10)


def test_the_condition_wins_over_an_exit() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    assert wait_until(lambda: "done", process=child) == "done"
