"""The fenced blocks of README.md and docs/*.md that are promises: shell commands, GitHub
Actions workflows and `.pre-commit-config.yaml` snippets, each with the comment above its fence
that says how CI checks it (docs/README.md, "Docs are tests").

    <!-- runs: exit 1, prints "3 errors" -->        run it; the exit status and an output line
    <!-- not-runnable: the reason -->               not run, and why
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from markdown_it import MarkdownIt

from tests.conftest import REPO_ROOT

Kind = Literal["shell", "workflow", "pre-commit"]
SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}
MARKER = re.compile(r"^<!--\s*(runs|not-runnable)\s*:(.*?)-->\s*$")
_EXIT = re.compile(r"exit (\d+)")
_PRINTS = re.compile(r'prints "((?:[^"\\]|\\.)*)"')
#: Words that stand for something the reader must fill in: a block that holds one cannot run
#: as written.
PLACEHOLDERS = (
    (re.compile(r"\bOWNER\b"), "OWNER"),
    (re.compile(r"<[^<>\n]*[a-z][^<>\n]*>"), "a <...> placeholder"),
    (re.compile(r"path/to/"), "path/to/"),
    (re.compile(r"\bhf_\.\.\."), "hf_..."),
    (re.compile(r"(?<![\w.])\.\.\.(?![\w.])"), "..."),
    (re.compile(r"(?<!\w)\[--"), "an [--option] synopsis"),
)
SYNOPSIS = PLACEHOLDERS[-1][1]
HOW_TO_MARK = (
    'on the line right above its fence, write `<!-- runs: exit 0, prints "a line of its '
    'output" -->` (CI runs it from an empty folder holding `examples/`, with the installed '
    "wheel and the Hub emulator) or `<!-- not-runnable: why, in a few words -->` "
    '(docs/README.md, "Docs are tests")'
)


@dataclass(frozen=True)
class Expectation:
    """What a runnable block must do: exit with `exit`, and print each of `prints` on a line
    (stdout or stderr; a console block's shown output lines are added)."""

    exit: int
    prints: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    path: Path  # relative to the repository
    line: int  # the 1-based line of the opening fence
    language: str
    text: str
    kind: Kind | None  # None: not a promise (Python, JSON, configuration samples...)
    marker: str | None  # the comment above the fence, whole
    problem: str | None  # what is wrong with the block's marking, if anything

    @property
    def where(self) -> str:
        return f"{self.path.as_posix()}:{self.line}"

    @property
    def reason(self) -> str | None:
        """The not-runnable reason (None for a block that runs)."""
        match = MARKER.match(self.marker or "")
        if match and match.group(1) == "not-runnable":
            return match.group(2).strip()
        return None

    @property
    def expectation(self) -> Expectation | None:
        match = MARKER.match(self.marker or "")
        if not match or match.group(1) != "runs":
            return None
        return parse_expectation(match.group(2))

    def commands(self) -> str:
        """The block as a bash script: a console block's `$ ` lines (with their `\\`
        continuations), any other block whole."""
        if self.language != "console":
            return self.text
        script: list[str] = []
        continued = False
        for line in self.text.splitlines():
            if line.startswith("$ ") or continued:
                script.append(line[2:] if line.startswith("$ ") and not continued else line)
                continued = line.endswith("\\")
        return "\n".join(script) + "\n"

    def shown_output(self) -> tuple[str, ...]:
        """A console block's output lines (`...` lines elide and are not checked)."""
        if self.language != "console":
            return ()
        shown: list[str] = []
        continued = False
        for line in self.text.splitlines():
            if line.startswith("$ ") or continued:
                continued = line.endswith("\\")
                continue
            if line.strip() and line.strip() != "...":
                shown.append(line.rstrip())
        return tuple(shown)

    def yaml(self) -> Any:
        return yaml.safe_load(self.text)


def parse_expectation(text: str) -> Expectation:
    """`exit N, prints "TEXT", prints "TEXT"...`; ValueError names what is missing."""
    exit_status = _EXIT.search(text)
    prints = tuple(p.replace('\\"', '"') for p in _PRINTS.findall(text))
    if exit_status is None or not prints:
        raise ValueError(
            "a `runs:` comment needs an exit status and an output line: `<!-- runs: exit 0, "
            'prints "a line of its output" -->`'
        )
    return Expectation(int(exit_status.group(1)), prints)


def kind_of(language: str, text: str) -> Kind | None:
    if language in SHELL_LANGUAGES:
        return "shell"
    if language not in {"yaml", "yml"}:
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    repos = data.get("repos") if isinstance(data, dict) else None
    if (
        isinstance(repos, list)
        and repos
        and all(isinstance(repo, dict) and {"repo", "hooks"} <= set(repo) for repo in repos)
    ):
        return "pre-commit"
    if isinstance(data, dict) and ("jobs" in data or "steps" in data):
        return "workflow"
    if (
        isinstance(data, list)
        and data
        and all(isinstance(step, dict) and ("run" in step or "uses" in step) for step in data)
    ):
        return "workflow"
    return None


def blocks_of(path: Path) -> list[Block]:
    """Every fenced block of one Markdown file, with its kind and marking checked."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    relative = path.relative_to(REPO_ROOT)
    found = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.map is None:
            continue
        first = token.map[0]
        language = token.info.strip().split()[0] if token.info.strip() else ""
        above = lines[first - 1].strip() if first > 0 else ""
        marker = above if MARKER.match(above) else None
        kind = kind_of(language, token.content)
        block = Block(relative, first + 1, language, token.content, kind, marker, None)
        found.append(
            Block(relative, first + 1, language, token.content, kind, marker, _problem(block))
        )
    return found


def _problem(block: Block) -> str | None:
    if block.language == "":
        return (
            "a fence without a language: say what it holds (```sh or ```console for commands, "
            "```text for output, a synopsis or a diagram)"
        )
    if block.kind is None:
        return None
    if block.marker is None:
        return f"a {block.kind} block that is neither run nor marked: {HOW_TO_MARK}"
    if block.reason is not None:
        return None if block.reason else "a not-runnable comment with no reason: say why"
    try:
        block.expectation  # noqa: B018 (parsed for its errors)
    except ValueError as error:
        return str(error)
    for pattern, name in PLACEHOLDERS:
        if name == SYNOPSIS and block.kind != "shell":
            continue  # `[--` is a YAML flow list there
        if pattern.search(block.commands()):
            return (
                f"{name} in a runnable block: rewrite it to run as written (the files of "
                "examples/, repo ids the docs' Hub serves: tests/docs/hub.yaml), or mark it "
                "`<!-- not-runnable: why -->`"
            )
    return None


def documents() -> list[Path]:
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def all_blocks() -> list[Block]:
    return [block for path in documents() for block in blocks_of(path)]
