"""A small GitHub Actions job runner: workflow steps and composite actions run as the runner runs
them, on this machine, without Docker.

No maintained Python library runs composite actions without Docker (`act`, the usual tool,
runs every job in a container), so this one does the part evalbot's action and the docs'
workflows use, after GitHub's documentation of the runner:

- a `run:` step runs in bash as `bash --noprofile --norc -eo pipefail FILE` (the `bash` shell's
  template), in the workspace (or `working-directory`), with the job's environment, the
  variables earlier steps wrote to `GITHUB_ENV`, `GITHUB_PATH` in front of `PATH`, and the
  step's own `env:`;
- each step gets fresh `GITHUB_OUTPUT`, `GITHUB_ENV`, `GITHUB_PATH` and `GITHUB_STEP_SUMMARY`
  files, read back when it ends: outputs by step id, the summaries appended to the job's;
- `${{ ... }}` takes `inputs.*`, `github.*`, `runner.*`, `env.*`, `secrets.*`,
  `steps.<id>.outputs.*` and quoted literals; anything else is an error, not an empty string;
- `uses: ./path` or a `uses:` the test maps to a folder runs that folder's composite
  `action.yml` (inputs from its defaults and `with:`, `github.action_path` its folder, its
  `outputs:` evaluated after its steps); a JavaScript action (setup-python, checkout) runs as
  the Python stand-in the test gives for it, which must do what that action documents.

The first failing step ends the job (no `if:`, `continue-on-error` or post steps).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_MULTILINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)<<(.+)$")
#: GitHub's template for `shell: bash` (and for `run:` steps without a shell on Linux/macOS
#: when bash is present).
BASH = ("bash", "--noprofile", "--norc", "-eo", "pipefail")


class WorkflowError(Exception):
    """The runner cannot run what it was given (an unknown expression, a `uses:` it has no
    stand-in for, a shell other than bash)."""


@dataclass
class StepFiles:
    """The four files a step writes its effects to (fresh for each step)."""

    output: Path
    env: Path
    path: Path
    summary: Path


@dataclass
class StepResult:
    name: str
    returncode: int
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class JavaScriptStandIn:
    """What a JavaScript action's stand-in receives: its `with:` inputs and the step's files
    (to write outputs, environment and PATH as the real action does)."""

    inputs: dict[str, str]
    files: StepFiles
    workspace: Path


#: A stand-in for a JavaScript action: it may write to `files` and returns its exit status.
StandIn = Callable[[JavaScriptStandIn], int]


@dataclass
class Runner:
    """One job on one machine: `workspace` is `GITHUB_WORKSPACE`, `temp` is `RUNNER_TEMP`.

    `env` is the machine's environment (with the faked `GITHUB_*` variables the test wants);
    `actions` maps a `uses:` value (`owner/name@ref`, matched as written) to a composite
    action's folder or to a JavaScript stand-in; `resolve`, when given, answers for the others.
    """

    workspace: Path
    temp: Path
    env: dict[str, str]
    actions: dict[str, Path | StandIn] = field(default_factory=dict)
    #: Consulted for a `uses:` that `actions` does not name (inside composite actions too).
    resolve: Callable[[str], Path | StandIn | None] | None = None
    secrets: dict[str, str] = field(default_factory=dict)
    timeout: float = 600
    #: Steps not run, by id, with the outputs they are taken to have given (a unit test that
    #: must not install anything gives the install step's outputs).
    given: dict[str, dict[str, str]] = field(default_factory=dict)
    results: list[StepResult] = field(default_factory=list)
    summary: str = ""
    exported: dict[str, str] = field(default_factory=dict)
    added_path: list[str] = field(default_factory=list)
    _count: int = 0

    def run_steps(self, steps: list[dict[str, Any]]) -> bool:
        """Run a job's steps in order; False at the first that fails."""
        outputs: dict[str, dict[str, str]] = {}
        return self._steps(steps, outputs, {}, None)

    def job_env(self) -> dict[str, str]:
        """The environment a next step would start from (GITHUB_ENV and GITHUB_PATH applied)."""
        env = dict(self.env) | self.exported
        if self.added_path:
            env["PATH"] = os.pathsep.join([*reversed(self.added_path), env.get("PATH", "")])
        return env

    def _steps(
        self,
        steps: list[dict[str, Any]],
        outputs: dict[str, dict[str, str]],
        inputs: Mapping[str, str],
        action_path: Path | None,
    ) -> bool:
        for index, step in enumerate(steps):
            unknown = set(step) - {
                "name",
                "id",
                "run",
                "uses",
                "with",
                "env",
                "shell",
                "working-directory",
            }
            if unknown:
                raise WorkflowError(f"step {index + 1}: unsupported keys {sorted(unknown)}")
            context = _Context(self, outputs, inputs, action_path)
            if str(step.get("id")) in self.given:
                result = StepResult(str(step["id"]), 0, outputs=self.given[str(step["id"])])
            else:
                result = self._step(step, context)
            self.results.append(result)
            if "id" in step:
                outputs[str(step["id"])] = result.outputs
            if result.returncode != 0:
                return False
        return True

    def _files(self) -> StepFiles:
        self._count += 1
        folder = self.temp.parent / f"_runner_file_commands_{self._count}"
        folder.mkdir(parents=True)
        files = StepFiles(
            folder / "output", folder / "env", folder / "path", folder / "step_summary"
        )
        for path in (files.output, files.env, files.path, files.summary):
            path.touch()
        return files

    def _step(self, step: dict[str, Any], context: _Context) -> StepResult:
        name = context.substitute(str(step.get("name") or step.get("uses") or "run"))
        files = self._files()
        if "uses" in step:
            result = self._uses(step, context, files, name)
        else:
            result = self._run(step, context, files, name)
        self._collect(files, result)
        return result

    def _collect(self, files: StepFiles, result: StepResult) -> None:
        result.outputs |= parse_file_command(files.output.read_text(encoding="utf-8"))
        self.exported |= parse_file_command(files.env.read_text(encoding="utf-8"))
        self.added_path += [
            line for line in files.path.read_text(encoding="utf-8").splitlines() if line
        ]
        self.summary += files.summary.read_text(encoding="utf-8")

    def _run(
        self, step: dict[str, Any], context: _Context, files: StepFiles, name: str
    ) -> StepResult:
        shell = step.get("shell", "bash")
        if shell != "bash":
            raise WorkflowError(f"step {name!r}: shell {shell!r} (this runner runs bash only)")
        script = self.temp.parent / f"_step_{self._count}.sh"
        script.write_text(context.substitute(str(step["run"])), encoding="utf-8")
        env = self.job_env() | {
            "GITHUB_OUTPUT": str(files.output),
            "GITHUB_ENV": str(files.env),
            "GITHUB_PATH": str(files.path),
            "GITHUB_STEP_SUMMARY": str(files.summary),
        }
        for key, value in (step.get("env") or {}).items():
            env[str(key)] = context.substitute(scalar(value))
        cwd = self.workspace / context.substitute(str(step.get("working-directory", ".")))
        done = subprocess.run(
            [*BASH, str(script)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=self.timeout,
            check=False,
        )
        return StepResult(name, done.returncode, done.stdout, done.stderr)

    def _uses(
        self, step: dict[str, Any], context: _Context, files: StepFiles, name: str
    ) -> StepResult:
        uses = str(step["uses"])
        given = {str(k): context.substitute(scalar(v)) for k, v in (step.get("with") or {}).items()}
        target = self.actions.get(uses)
        if target is None and self.resolve is not None:
            target = self.resolve(uses)
        if target is None and uses.startswith("./"):
            target = self.workspace / uses
        if target is None:
            raise WorkflowError(f"no stand-in for `uses: {uses}`")
        if not isinstance(target, Path):
            status = target(JavaScriptStandIn(given, files, self.workspace))
            return StepResult(name, status)
        action = yaml.safe_load((target / "action.yml").read_text(encoding="utf-8"))
        if action["runs"]["using"] != "composite":
            raise WorkflowError(f"{uses}: not a composite action")
        declared = action.get("inputs") or {}
        unknown = set(given) - set(declared)
        if unknown:
            raise WorkflowError(f"{uses}: unknown inputs {sorted(unknown)}")
        inputs = {k: scalar((spec or {}).get("default", "")) for k, spec in declared.items()}
        inputs |= given
        inner: dict[str, dict[str, str]] = {}
        ok = self._steps(action["runs"]["steps"], inner, inputs, target)
        composite = _Context(self, inner, inputs, target)
        outputs = {
            str(key): composite.substitute(str(spec.get("value", "")))
            for key, spec in (action.get("outputs") or {}).items()
        }
        return StepResult(name, 0 if ok else 1, outputs=outputs)


@dataclass
class _Context:
    runner: Runner
    steps: dict[str, dict[str, str]]
    inputs: Mapping[str, str]
    action_path: Path | None

    def substitute(self, text: str) -> str:
        return _EXPRESSION.sub(lambda match: self.evaluate(match.group(1)), text)

    def evaluate(self, expression: str) -> str:
        literal = re.fullmatch(r"'((?:[^']|'')*)'", expression)
        if literal:
            return literal.group(1).replace("''", "'")
        parts = expression.split(".")
        head, rest = parts[0], parts[1:]
        env = self.runner.job_env()
        if head == "inputs" and len(rest) == 1:
            if rest[0] not in self.inputs:
                raise WorkflowError(f"`${{{{ {expression} }}}}`: no such input")
            return self.inputs[rest[0]]
        if head == "steps" and len(rest) == 3 and rest[1] == "outputs":
            return self.steps.get(rest[0], {}).get(rest[2], "")
        if head == "github" and rest == ["action_path"] and self.action_path is not None:
            return str(self.action_path)
        if head == "github" and len(rest) == 1:
            variable = "GITHUB_" + rest[0].upper()
            if variable in env:
                return env[variable]
        if head == "runner" and len(rest) == 1 and "RUNNER_" + rest[0].upper() in env:
            return env["RUNNER_" + rest[0].upper()]
        if head == "env" and len(rest) == 1:
            return env.get(rest[0], "")
        if head == "secrets" and len(rest) == 1:
            return self.runner.secrets.get(rest[0], "")
        raise WorkflowError(f"`${{{{ {expression} }}}}`: not an expression this runner knows")


def scalar(value: object) -> str:
    """A YAML scalar as the runner hands it to an action: booleans as `true`/`false`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def parse_file_command(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as GITHUB_OUTPUT and GITHUB_ENV hold."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line:
            continue
        block = _MULTILINE.match(line)
        if block:
            name, delimiter = block.groups()
            body: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            else:
                raise WorkflowError(f"{name}<<{delimiter}: no closing delimiter")
            values[name] = "\n".join(body)
            continue
        name, separator, value = line.partition("=")
        if not separator:
            raise WorkflowError(f"not a file command line: {line!r}")
        values[name] = value
    return values


def github_environment(workspace: Path, temp: Path, **overrides: str) -> dict[str, str]:
    """The variables a GitHub-hosted Linux runner sets for every step, for a push to main of
    `acme/evals` (overrides replace any of them)."""
    return {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": "acme/evals",
        "GITHUB_REPOSITORY_OWNER": "acme",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_SHA": "0" * 40,
        "GITHUB_RUN_ID": "1",
        "GITHUB_JOB": "job",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_API_URL": "https://api.github.com",
        "RUNNER_OS": "Linux",
        "RUNNER_ARCH": "X64",
        "RUNNER_TEMP": str(temp),
        **overrides,
    }


def setup_python(python: Path) -> StandIn:
    """actions/setup-python as its action.yml and docs/advanced-usage.md describe it, with
    `python` as the interpreter found: `python-path` and `python-version` outputs always; with
    `update-environment` true (its default) it also puts the interpreter's folder on PATH and
    exports `pythonLocation` (as `core.addPath`/`core.exportVariable` do)."""

    def stand_in(step: JavaScriptStandIn) -> int:
        version = subprocess.run(
            [str(python), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
        with step.files.output.open("a", encoding="utf-8") as output:
            output.write(f"python-version={version}\npython-path={python}\n")
        if step.inputs.get("update-environment", "true") != "false":
            with step.files.path.open("a", encoding="utf-8") as path:
                path.write(f"{python.parent}\n")
            with step.files.env.open("a", encoding="utf-8") as env:
                env.write(f"pythonLocation={python.parent.parent}\n")
        return 0

    return stand_in
