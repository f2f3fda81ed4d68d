"""deploy/space/entrypoint.sh, run for real with sh: which mode the container starts in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalbot_dev.devstack.environment import inherited_environment
from tests.unit.deploy.files import ENTRYPOINT


def _run(args: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    env = inherited_environment()
    # `python` in the script must be this interpreter (the image's is the only one there).
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return subprocess.run(
        ["sh", str(ENTRYPOINT), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_outside_a_space_the_given_command_runs() -> None:
    result = _run(["echo", "evalbot", "worker"])
    assert result.returncode == 0
    assert result.stdout == "evalbot worker\n"


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["evalbot", "serve"], {"SPACE_ID": "acme/evalbot"}),  # on a Space: always supervise
        (["evalbot", "serve"], {"EVALBOT_SUPERVISE": "1"}),
        (["supervise"], {}),
    ],
)
def test_space_mode_runs_the_supervisor(args: list[str], extra: dict[str, str]) -> None:
    # With no bot settings the supervisor refuses to start anything: proof that it ran.
    result = _run(args, **extra)
    assert result.returncode == 2
    assert result.stderr.startswith("evalbot-supervise: invalid settings")
    assert "HF_TOKEN is required" in result.stderr


def test_script_is_executable() -> None:
    assert os.access(ENTRYPOINT, os.X_OK)
