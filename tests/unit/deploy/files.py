"""Readers for the deployment files, shared by the tests (no Docker engine needed)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import REPO_ROOT

DOCKERFILE = REPO_ROOT / "Dockerfile"
COMPOSE_FILE = REPO_ROOT / "docker-compose.yml"
ENV_EXAMPLE = REPO_ROOT / ".env.example"
SPACE_README = REPO_ROOT / "deploy" / "space" / "README.md"
ENTRYPOINT = REPO_ROOT / "deploy" / "space" / "entrypoint.sh"
OPERATING_DOC = REPO_ROOT / "docs" / "operating.md"

#: Names that hold secrets: their values must never be written into an image or a compose file.
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|CREDENTIAL", re.IGNORECASE)


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str


def dockerfile_instructions(path: Path = DOCKERFILE) -> list[Instruction]:
    """Instructions in order, with `\\` continuations joined and comments dropped."""
    instructions: list[Instruction] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).partition(" ")
        instructions.append(Instruction(keyword.upper(), " ".join(arguments.split())))
        pending = ""
    assert not pending, "Dockerfile ends inside a continued instruction"
    return instructions


def env_assignments(arguments: str) -> dict[str, str]:
    """`ENV A=1 B=2` (the key=value form) as a dict."""
    pairs = re.findall(r'([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)', arguments)
    return {name: value.strip('"') for name, value in pairs}


def compose() -> dict[str, Any]:
    document = yaml.safe_load(COMPOSE_FILE.read_text())
    assert isinstance(document, dict)
    return document


def env_file(path: Path = ENV_EXAMPLE) -> dict[str, str]:
    values: dict[str, str] = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, separator, value = line.partition("=")
        assert separator, f"not NAME=value: {raw!r}"
        assert name not in values, f"{name} twice in {path.name}"
        values[name] = value
    return values


def documented_settings() -> list[str]:
    """The variables in docs/operating.md's settings table that a compose deployment reads:
    the rows before the Space supervisor's (then come the CLI user's and the removed ones)."""
    table = OPERATING_DOC.read_text().partition("| **Space supervisor**")[0]
    return re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", table, re.MULTILINE)


def front_matter(path: Path) -> dict[str, Any]:
    text = path.read_text()
    assert text.startswith("---\n"), f"{path} has no YAML front matter"
    block = text[4 : text.index("\n---\n", 4)]
    document = yaml.safe_load(block)
    assert isinstance(document, dict)
    return document
