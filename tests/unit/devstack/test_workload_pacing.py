"""`Workload.open_paced`: a steady stream, not a burst: the i-th PR is opened no earlier than
i / rate seconds after the start, whatever the number of opener threads."""

from __future__ import annotations

import threading
import time
from typing import Any

from evalbot_dev.devstack.workload import Workload


class RecordingWorkload(Workload):
    """Opens nothing: records when each PR would have been opened."""

    def __init__(self) -> None:
        super().__init__(stack=_unused(), issuer=_unused(), redis=_unused())
        self.calls: list[tuple[int, float]] = []
        self._calls_lock = threading.Lock()

    def open_pr(self, index: int, content: str) -> int:
        with self._calls_lock:
            self.calls.append((index, time.monotonic()))
        return 1000 + index


def _unused() -> Any:
    return object()


def test_paced_opening_spreads_the_prs_at_the_rate() -> None:
    workload = RecordingWorkload()
    rate = 50.0
    contents = [(index, f"content {index}") for index in range(10)]
    started = time.monotonic()
    nums = workload.open_paced(contents, rate, threads=8)
    assert nums == [1000 + index for index in range(10)]  # in the order given
    opened_at = dict(workload.calls)
    for position, (index, _) in enumerate(contents):
        assert opened_at[index] - started >= position / rate - 0.001
    # Eight threads did not turn it into a burst: the stream took its 9 intervals.
    assert max(opened_at.values()) - started >= 9 / rate - 0.001
