"""The Dockerfile interpreter's parser, on the project's real Dockerfile and on edge cases."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deploy.imagecheck import dockerfile
from deploy.imagecheck.dockerfile import Instruction, UnsupportedDockerfile

ROOT = Path(__file__).resolve().parents[2]


def test_the_project_dockerfile_parses_into_its_instructions() -> None:
    instructions = dockerfile.parse((ROOT / "Dockerfile").read_text())
    keywords = [instruction.keyword for instruction in instructions]
    assert keywords[0] == "FROM"
    assert keywords[-2:] == ["ENTRYPOINT", "CMD"]
    assert set(keywords) <= dockerfile.SUPPORTED
    runs = [i for i in instructions if i.keyword == "RUN"]
    assert any("apt-get install" in dockerfile.run_command(run) for run in runs)
    first_env = next(i for i in instructions if i.keyword == "ENV")
    assert dict(dockerfile.env_pairs(first_env))["PIP_NO_CACHE_DIR"] == "1"
    check = dockerfile.healthcheck(next(i for i in instructions if i.keyword == "HEALTHCHECK"))
    assert check is not None
    assert check.test == ("CMD", "python", "-m", "bot.supervise.healthcheck")
    assert (check.interval_s, check.timeout_s, check.start_period_s, check.retries) == (
        30.0,
        5.0,
        30.0,
        3,
    )


def test_continuations_join_and_comment_lines_inside_them_are_dropped() -> None:
    text = "FROM python:3.11-slim\nRUN echo a \\\n# a comment\n    && echo b\nUSER x\n"
    instructions = dockerfile.parse(text)
    assert [str(i) for i in instructions] == [
        "FROM python:3.11-slim",
        "RUN echo a && echo b",
        "USER x",
    ]
    assert instructions[1].line == 2


def test_env_forms() -> None:
    assert dockerfile.env_pairs(Instruction("ENV", 'A=1 B="two words" C=', 1)) == [
        ("A", "1"),
        ("B", "two words"),
        ("C", ""),
    ]
    assert dockerfile.env_pairs(Instruction("ENV", "LEGACY the rest  verbatim", 1)) == [
        ("LEGACY", "the rest  verbatim")
    ]


@given(
    st.dictionaries(
        st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True),
        st.text(st.characters(codec="utf-8", exclude_characters="$\\\x00"), max_size=12),
        min_size=1,
        max_size=5,
    )
)
def test_env_pairs_round_trip_quoted_values(values: dict[str, str]) -> None:
    arguments = " ".join(f"{name}={shlex.quote(value)}" for name, value in values.items())
    assert dict(dockerfile.env_pairs(Instruction("ENV", arguments, 1))) == values


@pytest.mark.parametrize(
    "text",
    [
        "FROM a\nARG X=1\n",
        "FROM a\nADD x /x\n",
        "FROM a AS build\n",
        "FROM a\nFROM b\n",
        "# escape=`\nFROM a\n",
        "FROM a\nRUN echo \\\n",
    ],
)
def test_what_it_cannot_execute_faithfully_is_refused(text: str) -> None:
    with pytest.raises(UnsupportedDockerfile):
        dockerfile.from_image(dockerfile.parse(text)[0])


@pytest.mark.parametrize(
    ("keyword", "arguments", "reader"),
    [
        ("COPY", "--chown=1000 a /b", dockerfile.copy_arguments),
        ("COPY", "src/*.py /b/", dockerfile.copy_arguments),
        ("COPY", '["a", "/b"]', dockerfile.copy_arguments),
        ("RUN", '["echo", "x"]', dockerfile.run_command),
        ("RUN", "--mount=type=cache,target=/x echo", dockerfile.run_command),
        ("CMD", "evalbot serve", dockerfile.exec_form),
        ("ENV", "PATH=$PATH:/x", dockerfile.env_pairs),
        ("WORKDIR", "$HOME", dockerfile.single_word),
        ("HEALTHCHECK", "--start-interval=1s CMD true", dockerfile.healthcheck),
        ("EXPOSE", "7860-7870", dockerfile.expose_ports),
    ],
)
def test_unsupported_forms_fail_loudly(keyword: str, arguments: str, reader: object) -> None:
    with pytest.raises(UnsupportedDockerfile):
        reader(Instruction(keyword, arguments, 3))  # type: ignore[operator]


def test_healthcheck_shell_form_and_none() -> None:
    check = dockerfile.healthcheck(Instruction("HEALTHCHECK", "CMD curl -f localhost", 1))
    assert check is not None
    assert check.test == ("CMD-SHELL", "curl -f localhost")
    assert (check.interval_s, check.timeout_s, check.retries) == (30.0, 30.0, 3)
    assert dockerfile.healthcheck(Instruction("HEALTHCHECK", "NONE", 1)) is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30.0), ("5m", 300.0), ("1m30s", 90.0), ("500ms", 0.5), ("1h", 3600.0)],
)
def test_durations(text: str, seconds: float) -> None:
    assert dockerfile.duration(text) == seconds


@pytest.mark.parametrize("text", ["", "5", "s", "5x", "1m 30s"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        dockerfile.duration(text)
