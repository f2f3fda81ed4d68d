"""`evalbot completion SHELL`: the scripts load in their shells and complete from the parser.
bash, zsh and fish are Debian's (`.ci/run` installs zsh and fish)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

BIN = str(Path(sys.executable).parent)  # where the `evalbot` entry point is installed

BASH_COMPLETE = """
source <(evalbot completion bash)
fn=$(complete -p evalbot | sed -E 's/.*-F ([^ ]+).*/\\1/')
ask() { COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$1";
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=();
        "$fn" evalbot "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; echo "${COMPREPLY[*]}"; }
ask "evalbot val"
ask "evalbot validate --for"
ask "evalbot collections im"
"""


def shell(*args: str, script: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
    return subprocess.run(
        [*args], input=script, capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_bash_loads_the_script_and_completes_commands_and_options() -> None:
    done = shell("bash", script=BASH_COMPLETE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["validate ", "--format ", "import "]


COLLECTION_COMPLETE = """
source <(evalbot completion bash)
fn=$(complete -p evalbot | sed -E 's/.*-F ([^ ]+).*/\\1/')
ask() { COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$1";
        [ "${1: -1}" != " " ] || COMP_WORDS+=("");
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=();
        "$fn" evalbot "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; echo "${COMPREPLY[*]}"; }
ask "evalbot gate --collection "
ask "evalbot gate --collection lea"
ask "evalbot gate --collection gates/"
ask "evalbot collections show fr"
"""


def test_a_collection_completes_to_the_shipped_ids_and_collection_files(tmp_path: Path) -> None:
    (tmp_path / "gates").mkdir()
    for name in ("gates/lb.yaml", "mine.yaml", "notes.txt"):
        (tmp_path / name).write_text("")
    env = os.environ | {"PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(
        ["bash"],
        input=COLLECTION_COMPLETE,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [line.split() for line in done.stdout.splitlines()] == [
        ["frontier-reasoning-v1", "leaderboard-v2", "gates/", "mine.yaml"],
        ["leaderboard-v2"],
        ["gates/lb.yaml"],
        ["frontier-reasoning-v1"],
    ]


def test_zsh_loads_the_script() -> None:
    script = 'autoload -Uz compinit && compinit -u\neval "$(evalbot completion zsh)"\n'
    script += "print -r -- ${_comps[evalbot]}\n"
    done = shell("zsh", "-f", script=script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_fish_loads_the_script() -> None:
    script = "evalbot completion fish | source\ncomplete -C 'evalbot val'\n"
    done = shell("fish", "--no-config", script=script)
    assert done.returncode == 0, done.stderr
    assert "validate" in done.stdout


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["completion", "powershell"])
    assert stopped.value.code == 2
    assert "invalid choice: 'powershell'" in capsys.readouterr().err
