"""`make demo`: `evalbot validate` on the bundled example repos, one passing, one failing.

Until the bot itself runs in the demo, this shows its core on real-shaped files: the good
repo passes (exit 0), the broken one fails (exit 1) with errors that point at lines and say
how to fix them. The demo exits 0 only when both behave as expected.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bot.cli import main

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def run_demo() -> int:
    benchmarks = _shown(EXAMPLES / "benchmarks")
    outcomes: list[bool] = []
    for name, expected in (("model-good", 0), ("model-broken", 1)):
        repo = _shown(EXAMPLES / name)
        command = ["validate", repo, "--benchmarks", benchmarks]
        print(f"$ evalbot {' '.join(command)}", flush=True)
        status = main(command)
        sys.stdout.flush()
        print(f"(exit status {status}, expected {expected})\n", flush=True)
        outcomes.append(status == expected)
    return 0 if all(outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(run_demo())
