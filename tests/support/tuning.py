"""Short values of the bot's tuning constants, for the processes a test starts.

The product reads no setting for its tuning values (a task's time limits, the visibility
timeout, the receiver's Redis timeout...): each is a named constant next to the code it tunes,
with the reason for its value. A test that runs the bot in-process sets such a constant with
`monkeypatch.setattr`. A test whose bot runs as child processes (`evalbot serve`, `worker`,
`web`) and cannot wait for a production value (a 5-minute time limit) puts `tuned(...)` into
those processes' environment instead: it prepends `tests/support/tunedsite` to `PYTHONPATH`,
whose `sitecustomize` (which Python imports as it starts, before the entry point) sets each
named constant. Nothing of this ships with evalbot, and a name that is not a constant of the
product stops the child at start, so a renamed constant cannot leave a test silently
untuned.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

#: The variable `tunedsite/sitecustomize.py` reads: a JSON object of `module.CONSTANT: value`.
TUNED_VARIABLE = "TEST_TUNED_CONSTANTS"
TUNED_SITE = Path(__file__).resolve().parent / "tunedsite"
REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def tuned(constants: Mapping[str, float | int | str]) -> dict[str, str]:
    """Environment entries that give a child process `constants` (`{"workers.app.
    TASK_TIME_LIMIT_S": 5}`); the whole set for the process, not an addition to another."""
    return {
        TUNED_VARIABLE: json.dumps(dict(constants)),
        "PYTHONPATH": os.pathsep.join((str(TUNED_SITE), str(REPO_ROOT))),
    }
