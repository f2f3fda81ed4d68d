"""Progress on a terminal, nothing elsewhere: `evalbot eee impact` over a datastore, run with
its standard error on a pseudo-terminal and on a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from tests.conftest import REPO_ROOT

DATASTORE = REPO_ROOT / "tests" / "samples" / "real-world" / "every_eval_ever" / "datastore"
ARGS = [sys.executable, "-m", "bot", "eee", "impact", "--schema", "0.3.0", str(DATASTORE)]


def test_a_terminal_gets_a_progress_bar_a_pipe_gets_nothing() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    piped = subprocess.run(ARGS, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert piped.returncode == 0, piped.stderr
    assert piped.stderr == ""
    main, child = pty.openpty()
    try:
        done = subprocess.run(
            ARGS,
            stdout=subprocess.PIPE,
            stderr=child,
            env=env | {"TERM": "xterm"},
            timeout=60,
            check=False,
        )
        os.close(child)
        drawn = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the child's end is closed and everything was read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(main)
    assert done.returncode == 0
    assert done.stdout.decode() == piped.stdout  # the report itself is the same
    assert b"records checked" in drawn
