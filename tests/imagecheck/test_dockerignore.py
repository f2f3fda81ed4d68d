"""`.dockerignore` matching against Docker's rules, on the project's real file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deploy.imagecheck import dockerignore

ROOT = Path(__file__).resolve().parents[2]
PROJECT = dockerignore.parse((ROOT / ".dockerignore").read_text())


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".venv/bin/python",
        ".env",
        ".env.local",
        "bot/__pycache__/app.cpython-311.pyc",
        "evalbot_dev/emulator/routes/__pycache__/x.pyc",
        "tests/conftest.py",
        "bench/timing.py",
        "var/redis/appendonly.aof",
    ],
)
def test_the_project_context_leaves_out(path: str) -> None:
    assert dockerignore.excluded(path, PROJECT)


@pytest.mark.parametrize(
    "path",
    [
        ".env.example",
        "Dockerfile",
        "pyproject.toml",
        "requirements/server.txt",
        "requirements/build.txt",
        "bot/receiver/app.py",
        "deploy/space/entrypoint.sh",
        "config/bot.yaml",
        "evalbot_dev/emulator/samples/benchmarks/x/eval.yaml",
    ],
)
def test_the_project_context_keeps(path: str) -> None:
    assert not dockerignore.excluded(path, PROJECT)


def test_the_last_matching_pattern_decides() -> None:
    patterns = dockerignore.parse("*.md\n!README.md\n")
    assert dockerignore.excluded("CHANGELOG.md", patterns)
    assert not dockerignore.excluded("README.md", patterns)
    assert not dockerignore.excluded("docs/deploy.md", patterns)  # `*` does not cross `/`
    reversed_order = dockerignore.parse("!README.md\n*.md\n")
    assert dockerignore.excluded("README.md", reversed_order)


def test_double_star_spans_directories_including_none() -> None:
    patterns = dockerignore.parse("**/*.pyc\ndocs/**\n/build\n")
    assert dockerignore.excluded("a.pyc", patterns)
    assert dockerignore.excluded("a/b/c.pyc", patterns)
    assert dockerignore.excluded("docs/x/y.md", patterns)
    assert dockerignore.excluded("build/lib/x.py", patterns)  # a leading / is dropped
    assert not dockerignore.excluded("src/build.py", patterns)


def test_classes_and_question_marks() -> None:
    patterns = dockerignore.parse("log?.txt\n[!a]*.tmp\n")
    assert dockerignore.excluded("log1.txt", patterns)
    assert not dockerignore.excluded("log12.txt", patterns)
    assert dockerignore.excluded("b.tmp", patterns)
    assert not dockerignore.excluded("a.tmp", patterns)


segment = st.from_regex(r"[a-z0-9_.-]{1,6}", fullmatch=True).filter(lambda s: s not in (".", ".."))


@given(st.lists(segment, min_size=1, max_size=4), st.lists(segment, max_size=3), segment)
def test_a_literal_pattern_excludes_its_path_and_below_but_no_sibling(
    path: list[str], below: list[str], sibling: str
) -> None:
    literal = "/".join(path)
    patterns = dockerignore.parse(literal.replace("[", "\\[") + "\n")
    assert dockerignore.excluded("/".join(path + below), patterns)
    other = "/".join([*path[:-1], sibling])
    if sibling != path[-1]:
        assert not dockerignore.excluded(other, patterns)
