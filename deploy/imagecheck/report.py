"""PASS/FAIL lines with figures, collected for the exit status."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field


def say(line: str) -> None:
    print(line, flush=True)


@dataclass
class Report:
    failures: list[str] = field(default_factory=list)
    passes: int = 0

    def check(self, name: str, ok: bool, detail: str) -> bool:
        say(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        if ok:
            self.passes += 1
        else:
            self.failures.append(name)
        return ok

    def summary(self) -> int:
        if self.failures:
            say(
                f"imagecheck: {len(self.failures)} FAIL ({', '.join(self.failures)}),"
                f" {self.passes} PASS"
            )
            return 1
        say(f"imagecheck: all {self.passes} checks PASS")
        sys.stdout.flush()
        return 0
