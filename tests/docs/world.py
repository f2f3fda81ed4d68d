"""Where the docs' runnable blocks run: the installed wheel, an empty folder holding `examples/`,
the Hub emulator serving tests/docs/hub.yaml, and nothing of the checkout on any path.

`.ci/installed-smoke` builds the wheel, installs it into a fresh virtualenv
(`EVALBOT_INSTALLED_VENV`) and downloads the locks' distributions into a wheelhouse that also
holds the wheel (`EVALBOT_WHEELHOUSE`): whatever pip or pre-commit installs here comes from it,
never from an index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from evalbot_dev.devstack.environment import inherited_environment
from tests.conftest import REPO_ROOT

VENV_VARIABLE = "EVALBOT_INSTALLED_VENV"
SERVER_VENV_VARIABLE = "EVALBOT_SERVER_VENV"
WHEELHOUSE_VARIABLE = "EVALBOT_WHEELHOUSE"
HUB_STATE = Path(__file__).resolve().parent / "hub.yaml"
#: The commands that need `pip install 'evalbot[server]'` (docs/operating.md): a block running
#: one gets a virtualenv with the extra.
SERVER_COMMANDS = (
    "serve",
    "worker",
    "beat",
    "issuer",
    "web",
    "playground",
    "status",
    "parked",
    "replay",
)
BLOCK_TIMEOUT_S = 120
#: pytest's timeout for a test that builds a virtualenv (the action's, a pre-commit hook's):
#: the suite's 120 s hang guard is shorter than its steps' own timeouts (a workflow step: 600 s),
#: and a loaded machine running two such builds at once takes them past 120 s.
INSTALLING_TIMEOUT_S = 900


def required(variable: str) -> Path:
    chosen = os.environ.get(variable)
    if not chosen:
        pytest.fail(f"{variable} is not set: run .ci/installed-smoke, which sets it")
    return Path(chosen)


def needs_server(script: str) -> bool:
    words = script.split()
    return any(
        word == "evalbot" and index + 1 < len(words) and words[index + 1] in SERVER_COMMANDS
        for index, word in enumerate(words)
    )


def pip_offline(wheelhouse: Path) -> dict[str, str]:
    """pip (and pre-commit's pip) installing from the wheelhouse only."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse), "PIP_CONFIG_FILE": os.devnull}


@dataclass
class Installs:
    """The installed wheel's virtualenv, and one with the `[server]` extra: the one
    `.ci/installed-smoke` made (`EVALBOT_SERVER_VENV`), else one made on demand."""

    base: Path
    wheelhouse: Path
    work: Path
    _server: Path | None = None

    def venv_for(self, script: str) -> Path:
        if not needs_server(script) or self.has_server_extra(self.base):
            return self.base
        if self._server is None:
            self._server = self.work / "server-venv"
            subprocess.run(
                [sys.executable, "-m", "venv", str(self._server)], check=True, timeout=120
            )
            subprocess.run(
                [
                    str(self._server / "bin" / "pip"),
                    "install",
                    "--quiet",
                    "--no-compile",
                    "evalbot[server]",
                ],
                env=inherited_environment() | pip_offline(self.wheelhouse),
                check=True,
                timeout=300,
            )
        return self._server

    @staticmethod
    def has_server_extra(venv: Path) -> bool:
        """Every requirement of the `server` extra is installed there (true when there is no
        such extra: then the base install carries everything)."""
        script = (
            "import importlib.metadata as m, re\n"
            "need = [re.match(r'[A-Za-z0-9._-]+', r).group() for r in m.requires('evalbot') or []"
            " if re.search(r'extra\\s*==\\s*.server.', r)]\n"
            "missing = []\n"
            "for name in need:\n"
            "    try: m.distribution(name)\n"
            "    except m.PackageNotFoundError: missing.append(name)\n"
            "print(len(missing))\n"
        )
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-c", script],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return done.returncode == 0 and done.stdout.strip() == "0"


def user_folder(parent: Path) -> Path:
    """An empty folder outside the checkout, holding only a copy of the repository's examples."""
    folder = parent / "user"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(REPO_ROOT)
    shutil.copytree(REPO_ROOT / "examples", folder / "examples")
    return folder


def user_environment(venv: Path, home: Path, hub_url: str) -> dict[str, str]:
    """A user's shell with the virtualenv active and the emulator as the Hub: no checkout on
    any path, no token, nothing of the developer's own settings."""
    env = inherited_environment()
    for name in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(name, None)
    path = [str(venv / "bin")] + [
        entry
        for entry in env.get("PATH", "").split(os.pathsep)
        if entry and not Path(entry).resolve().is_relative_to(REPO_ROOT)
    ]
    return env | {
        "PATH": os.pathsep.join(path),
        "VIRTUAL_ENV": str(venv),
        "HOME": str(home),
        "HF_HOME": str(home / ".cache" / "huggingface"),
        "HF_ENDPOINT": hub_url,
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "NO_COLOR": "1",
    }


def tracked_copy(destination: Path) -> Path:
    """The repository's tracked files (as `git archive` of the work tree would give them):
    what a runner downloads for `uses:` and what pre-commit clones."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination
