"""A short soak: steady deliveries to the receiver while the workers run, end to end.

Excluded by default (`-m "not soak"` in `make test`); run with `.venv/bin/pytest -m soak`.
Longer runs: `bench/load.py --soak SECONDS`. The invariant is the product's, not a speed:
every delivery is acknowledged, and every PR ends with exactly one comment on its head.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.load import run_load
from evalbot_dev.devstack.workload import running_workload

pytestmark = pytest.mark.soak


def test_a_short_soak_loses_nothing_and_doubles_nothing(tmp_path: Path) -> None:
    with running_workload(tmp_path / "stack", workers=2, concurrency=1) as workload:
        result = run_load(workload, rate=40, seconds=15, progress=lambda _: None)
        logs = workload.stack.logs()
    assert result.receiver.sent == 600
    assert result.receiver.ok == result.receiver.sent, logs
    assert result.tally.prs == 600
    assert result.tally.lost == (), logs
    assert result.tally.duplicated == ()
    assert result.tally.stale == ()
    assert result.clean
