"""Every block of the docs marked `<!-- runs: ... -->`, run as written against the installed wheel
(docs/README.md, "Docs are tests"): shell blocks in bash from an empty folder holding
`examples/`, workflows through their steps (the evalbot action through its action.yml), and
pre-commit configurations through pre-commit itself. `.ci/installed-smoke` runs this module.

The shell blocks of one page run in page order in one folder, as a reader following the page
would run them; each one's test runs the page's shell blocks before it first when they have not
run yet. A workflow or pre-commit block runs in a folder of its own, so it is a group of its
own for pytest-xdist (`--dist loadgroup`, `.ci/installed-smoke`): the slow ones run side by side.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from evalbot_dev.emulator.seed import load_state_file
from evalbot_dev.emulator.server import EmulatorServer
from tests.conftest import REPO_ROOT
from tests.docs.blocks import Block, all_blocks
from tests.docs.world import (
    BLOCK_TIMEOUT_S,
    HUB_STATE,
    INSTALLING_TIMEOUT_S,
    SERVER_VENV_VARIABLE,
    VENV_VARIABLE,
    WHEELHOUSE_VARIABLE,
    Installs,
    pip_offline,
    required,
    tracked_copy,
    user_environment,
    user_folder,
)
from tests.support.composite import Runner, StandIn, github_environment, setup_python

pytestmark = [pytest.mark.installed, pytest.mark.integration]

PROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
BLOCKS = all_blocks()
RUNNABLE = [block for block in BLOCKS if block.expectation is not None]
#: The repository a documented workflow or hook checks out: a model repo with results.
MODEL_REPO = REPO_ROOT / "examples" / "model-good"
EVALBOT_ACTION = re.compile(r"^[\w.-]+/evalbot@[\w.-]+$")
#: Where this repository is published (pyproject's `[project.urls]`): the docs' VCS URLs.
PUBLISHED = PROJECT["urls"]["Repository"]
VERSION = PROJECT["version"]
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "docs",
    "GIT_AUTHOR_EMAIL": "docs@example.org",
    "GIT_COMMITTER_NAME": "docs",
    "GIT_COMMITTER_EMAIL": "docs@example.org",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}


@dataclass
class Outcome:
    status: int
    output: str


@dataclass
class Page:
    """One page's folder and the outcomes of its blocks run so far."""

    folder: Path
    outcomes: dict[int, Outcome] = field(default_factory=dict)


@dataclass
class Docs:
    installs: Installs
    hub: EmulatorServer
    work: Path
    pages: dict[Path, Page] = field(default_factory=dict)

    def outcome(self, block: Block) -> Outcome:
        page = self.page(block.path)
        for earlier in [b for b in RUNNABLE if group(b) == group(block) and b.line <= block.line]:
            if earlier.line not in page.outcomes:
                page.outcomes[earlier.line] = self.run(earlier, page)
        return page.outcomes[block.line]

    def page(self, path: Path) -> Page:
        if path not in self.pages:
            folder = self.work / re.sub(r"\W", "-", path.as_posix())
            folder.mkdir()
            self.pages[path] = Page(user_folder(folder))
        return self.pages[path]

    def run(self, block: Block, page: Page) -> Outcome:
        if block.kind == "shell":
            return self.shell(block, page.folder)
        if block.kind == "workflow":
            return self.workflow(block, page.folder.parent / f"job-{block.line}")
        return self.pre_commit(block, page.folder.parent / f"hooks-{block.line}")

    def shell(self, block: Block, folder: Path) -> Outcome:
        script = block.commands()
        venv = self.installs.venv_for(script)
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", script],
            cwd=folder,
            env=user_environment(venv, folder.parent / "home", self.hub.url),
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_S,
            check=False,
        )
        return Outcome(done.returncode, done.stdout + done.stderr)

    def workflow(self, block: Block, job: Path) -> Outcome:
        """The block's steps on a fresh runner: checkout gives a model repo, setup-python
        this machine's python3, any `<owner>/evalbot@<ref>` the repository's action.yml (its
        files as a runner downloads them); pip on the runner installs from the wheelhouse."""
        steps = steps_of(block.yaml())
        workspace, temp = job / "workspace", job / "temp"
        workspace.mkdir(parents=True)
        temp.mkdir()
        python = Path(shutil.which("python3") or sys.executable)
        action = tracked_copy(job / "action")

        def resolve(uses: str) -> Path | StandIn | None:
            if uses.startswith("actions/checkout@"):
                return checkout(MODEL_REPO)
            if uses.startswith("actions/setup-python@"):
                return setup_python(python)
            return action if EVALBOT_ACTION.match(uses) else None

        machine = user_environment(python.parent.parent, job / "home", self.hub.url)
        machine["PATH"] = machine["PATH"].split(":", 1)[1]  # no virtualenv on a fresh runner
        machine.pop("VIRTUAL_ENV")
        env = github_environment(workspace, temp) | machine | pip_offline(self.installs.wheelhouse)
        runner = Runner(workspace, temp, env, resolve=resolve)
        ok = runner.run_steps(steps)
        log = "\n".join(f"{r.name}\n{r.stdout}{r.stderr}" for r in runner.results)
        status = 0 if ok else runner.results[-1].returncode
        return Outcome(status, log + "\n" + runner.summary)

    def pre_commit(self, block: Block, folder: Path) -> Outcome:
        """The configuration as written, `pre-commit run --all-files` in a git repo holding a
        model repo's results. What pre-commit and pip fetch comes from here: this
        repository's URL is its tracked files, committed and tagged with the version (git's
        `insteadOf`), every other distribution the locks' wheelhouse less evalbot's own
        wheel, which no index has yet: a hook asking for `evalbot==X` fails, as for a user.
        Every block shares one store (`PRE_COMMIT_HOME`): a hook environment is built once."""
        repo = folder / "model"
        shutil.copytree(MODEL_REPO, repo)
        env = (
            user_environment(Path(sys.executable).parent.parent, folder / "home", self.hub.url)
            | pip_offline(self.dependencies_only())
            | GIT_IDENTITY
            | {"PRE_COMMIT_HOME": str(self.work / "pre-commit-home")}
        )
        env["PATH"] = env["PATH"].split(":", 1)[1]  # evalbot is what the hook installs
        env |= this_repository_at(self.hook_repository(env))
        git(repo, env, "init", "--quiet")
        (repo / ".pre-commit-config.yaml").write_text(block.text, encoding="utf-8")
        git(repo, env, "add", "-A")
        done = subprocess.run(
            [str(Path(sys.executable).parent / "pre-commit"), "run", "--all-files"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        return Outcome(done.returncode, done.stdout + done.stderr)

    def hook_repository(self, env: dict[str, str]) -> Path:
        """This repository's tracked files, committed and tagged `v<version>`: one copy for
        every block, so pre-commit builds the hook's environment once."""
        hooks = self.work / "evalbot-hooks"
        if not hooks.is_dir():
            tracked_copy(hooks)
            git(hooks, env, "init", "--quiet")
            git(hooks, env, "add", "-A")
            git(hooks, env, "commit", "--quiet", "-m", "evalbot")
            git(hooks, env, "tag", f"v{VERSION}")
        return hooks

    def dependencies_only(self) -> Path:
        """The wheelhouse without evalbot's wheel: what an index offers before the release."""
        folder = self.work / "wheelhouse-dependencies"
        if not folder.is_dir():
            folder.mkdir()
            for wheel in self.installs.wheelhouse.iterdir():
                if not wheel.name.lower().startswith("evalbot-"):
                    (folder / wheel.name).symlink_to(wheel)
        return folder


def this_repository_at(copy: Path) -> dict[str, str]:
    """git settings, as environment variables, under which this repository's published URL
    (with or without `.git`, as pip and pre-commit are given it) is the local `copy`."""
    settings = {}
    for index, published in enumerate((PUBLISHED, PUBLISHED + ".git")):
        settings[f"GIT_CONFIG_KEY_{index}"] = f"url.{copy.as_uri()}.insteadOf"
        settings[f"GIT_CONFIG_VALUE_{index}"] = published
    return settings | {"GIT_CONFIG_COUNT": "2"}


def group(block: Block) -> str:
    """What a block depends on: a shell block on its page's shell blocks before it (they share
    a folder), a workflow or a pre-commit configuration on nothing but itself."""
    return block.path.as_posix() if block.kind == "shell" else block.where


def git(folder: Path, env: dict[str, str], *args: str) -> str:
    """Run git in `folder`; what it printed."""
    done = subprocess.run(
        ["git", *args], cwd=folder, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def checkout(source: Path) -> StandIn:
    """actions/checkout: the repository's files in the workspace."""

    def stand_in(step: Any) -> int:
        shutil.copytree(source, step.workspace, dirs_exist_ok=True)
        return 0

    return stand_in


def steps_of(document: Any) -> list[dict[str, Any]]:
    """The steps of a workflow (its one job), of a job, or a list of steps."""
    if isinstance(document, list):
        return document
    if "jobs" in document:
        (job,) = document["jobs"].values()
        return list(job["steps"])
    return list(document["steps"])


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Docs]:
    work = tmp_path_factory.mktemp("docs")
    server = os.environ.get(SERVER_VENV_VARIABLE)
    installs = Installs(
        required(VENV_VARIABLE),
        required(WHEELHOUSE_VARIABLE),
        work,
        Path(server) if server else None,
    )
    loaded = load_state_file(HUB_STATE)
    with EmulatorServer(loaded.state, delivery=loaded.delivery) as hub:
        yield Docs(installs, hub, work)


def marks(block: Block) -> list[pytest.MarkDecorator]:
    """Its xdist group, and for a workflow or pre-commit block (it builds a virtualenv) the
    timeout of `INSTALLING_TIMEOUT_S`."""
    if block.kind == "shell":
        return [pytest.mark.xdist_group(group(block))]
    return [pytest.mark.xdist_group(group(block)), pytest.mark.timeout(INSTALLING_TIMEOUT_S)]


@pytest.mark.parametrize("block", [pytest.param(b, id=b.where, marks=marks(b)) for b in RUNNABLE])
def test_the_block_runs_as_written(docs: Docs, block: Block) -> None:
    expected = block.expectation
    assert expected is not None
    outcome = docs.outcome(block)
    shown = f"{block.where} ({block.kind} block) printed:\n{outcome.output}"
    assert outcome.status == expected.exit, f"exit {outcome.status}, not {expected.exit}: {shown}"
    lines = [line.rstrip() for line in outcome.output.splitlines()]
    for wanted in (*expected.prints, *block.shown_output()):
        assert any(wanted in line for line in lines), f"no line has {wanted!r}: {shown}"
