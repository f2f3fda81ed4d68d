"""The Dockerfile built from the files docs/deploy.md uploads to a Space, and
docker-compose.yml and the Space mode run from it for real, without a Docker engine.

Opt-in (`pytest -m image`, or `make image`): it needs root, the network to Debian's mirror and
PyPI, and a few minutes on a cold cache (debootstrap). It runs `python -m deploy.imagecheck`
as a child process, since the check moves its own threads into network namespaces, and
asserts on its verdict. IMAGECHECK_CACHE chooses the cache (default /work/cache/imagecheck).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The checks the image scenarios run; each must be in the output as a PASS line.
EXPECTED = (
    "upload set",
    "build",
    "user",
    "evalbot --help",
    "writable as uid 1000",
    "compose: workers",
    "compose: healthchecks",
    "compose: receiver listens on all addresses",
    "compose: redis listens on all addresses",
    "compose: signed PR",
    "healthcheck redis-1 (compose)",
    "healthcheck receiver-1 (compose)",
    "healthcheck receiver-1 (Dockerfile HEALTHCHECK)",
    "healthcheck worker-1 (compose)",
    "healthcheck worker-2 (compose)",
    "healthcheck beat-1",
    "stop worker-1",
    "stop worker-2",
    "stop receiver-1",
    "stop beat-1",
    "stop redis-1",
    "compose: nothing left",
    "compose: redis AOF",
    "space: HEALTHCHECK",
    "space: supervisor",
    "space: card",
    "space: operator sign-in",
    "space: signed PR",
    "stop space",
    "space: nothing left",
    "space: redis AOF",
)


@pytest.mark.image
@pytest.mark.timeout(1800)
def test_the_image_builds_and_its_containers_work() -> None:
    if os.geteuid() != 0:
        pytest.fail("the image check needs root (debootstrap, namespaces, mounts)")
    cache = os.environ.get("IMAGECHECK_CACHE", "/work/cache/imagecheck")
    result = subprocess.run(
        [sys.executable, "-m", "deploy.imagecheck", "--cache", cache],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1700,
        check=False,
    )
    output = result.stdout + result.stderr
    print(output)  # the step times and figures, shown with -s or on failure
    lines = output.splitlines()
    failed = [line for line in lines if line.startswith("FAIL ")]
    assert not failed, "\n".join(failed)
    assert result.returncode == 0, output[-5000:]
    missing = [
        name for name in EXPECTED if not any(line.startswith(f"PASS {name}:") for line in lines)
    ]
    assert not missing, f"checks that did not report PASS: {missing}"
