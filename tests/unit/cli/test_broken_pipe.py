"""`evalbot validate | head`: a reader that goes away is an I/O error, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_a_closed_stdout_exits_2_without_a_traceback() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # no reader at all: the first write fails, whatever the timing
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "bot",
                "validate",
                str(EXAMPLES / "model-broken"),
                "--benchmarks",
                str(EXAMPLES / "benchmarks"),
            ],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 2, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"BrokenPipeError" not in done.stderr
