"""Broken configuration stops `evalbot serve`, `evalbot worker` and `evalbot beat` at start,
with one line naming the file, the line and the problem; a worker whose
token the Hub refuses, or belongs to another account than `EVALBOT_BOT_NAME`, does not start
either (defects 4 and 5). Real processes, started as a deployment starts them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import wait_until
from tests.support.processes import (
    BOT_NAME,
    ChildProcess,
    bot_account_hub,
    bot_environment,
)

pytestmark = pytest.mark.integration

COMMANDS = {
    "serve": ["serve", "--host", "127.0.0.1", "--port", "9"],
    "worker": ["worker", "--pool", "solo"],
    "beat": ["beat"],
}

BROKEN_FILES = {
    # name: (file, content, line the message must name, words it must say)
    "issuers-unknown-key": (
        "bot.yaml",
        "issuers:\n  - issuer: https://issuer.example\n    audience: evalbot\n    keyz: []\n",
        2,
        "unknown keys ['keyz']",
    ),
    "issuers-not-yaml": (
        "bot.yaml",
        "issuers:\n  - issuer: [https://issuer.example\n",
        3,
        "",
    ),
    "bot-maintainers-not-a-list": (
        "bot.yaml",
        "# who may command the bot\nmaintainers: alice\n",
        2,
        "`maintainers` must be a list of Hub user names",
    ),
    "bot-unknown-key": ("bot.yaml", "watched_repos: []\nmaintainer: [alice]\n", 2, "unknown key"),
    "policy-unknown-code": (
        "bot.yaml",
        "maintainers: []\npolicy:\n  errors: []\n  benchmarks:\n    org/bench: [NOT-A-CODE]\n",
        5,
        "`policy.benchmarks.org/bench`: unknown diagnostic code 'NOT-A-CODE'",
    ),
}


def run_until_exit(
    arguments: list[str], env: dict[str, str], log: Path, timeout: float = 60
) -> tuple[int, str]:
    """Start `evalbot <arguments>` and wait for it to exit; a process still running at the
    deadline fails the test (it started although it must not)."""
    child = ChildProcess([sys.executable, "-m", "bot", *arguments], env, log)
    child.spawn()
    try:
        assert child.process is not None
        process = child.process
        wait_until(
            lambda: process.poll() is not None,
            timeout=timeout,
            what=f"`evalbot {arguments[0]}` to refuse to start (log: {log})",
        )
        return int(process.returncode), child.output()
    finally:
        child.stop()


def config_dir(tmp_path: Path, file: str, content: str) -> Path:
    directory = tmp_path / "config"
    directory.mkdir(exist_ok=True)
    (directory / file).write_text(content)
    return directory


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", list(BROKEN_FILES))
def test_a_broken_file_stops_the_process_with_one_line(
    command: str, case: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    file, content, line, words = BROKEN_FILES[case]
    directory = config_dir(tmp_path, file, content)
    env = bot_environment(redis_server.url, EVALBOT_CONFIG_DIR=str(directory))
    status, output = run_until_exit(COMMANDS[command], env, tmp_path / f"{command}.log")
    assert status == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith(f"evalbot {command}: {directory / file}:{line}: "), output
    assert words in lines[0]
    assert "(fix: " in lines[0]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_problem_of_the_file_is_named_in_the_one_line(
    command: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Fixing one problem, restarting, and meeting the next is a deploy per problem."""
    directory = config_dir(
        tmp_path, "bot.yaml", "maintainers: alice\npolicy:\n  errors: [NOT-A-CODE]\n"
    )
    env = bot_environment(redis_server.url, EVALBOT_CONFIG_DIR=str(directory))
    status, output = run_until_exit(COMMANDS[command], env, tmp_path / f"{command}.log")
    assert status == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    path = directory / "bot.yaml"
    assert lines[0].startswith(f"evalbot {command}: {path}:1: `maintainers` must be a list")
    assert f"; {path}:3: `policy.errors`: unknown diagnostic code 'NOT-A-CODE'" in lines[0]


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize(
    ("moved", "section"), [("policy.yaml", "policy"), ("issuers.yaml", "issuers")]
)
def test_a_file_folded_into_bot_yaml_stops_the_process(
    command: str, moved: str, section: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    """Left in the configuration folder, a policy or an issuer list would be ignored in
    silence, and verdicts would change: the process names it and where its content goes."""
    directory = config_dir(tmp_path, moved, "errors: [FILE-NAME]\n")
    env = bot_environment(redis_server.url, EVALBOT_CONFIG_DIR=str(directory))
    status, output = run_until_exit(COMMANDS[command], env, tmp_path / f"{command}.log")
    assert status == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith(f"evalbot {command}: invalid settings: {directory / moved}: ")
    assert f"now goes under `{section}:` in bot.yaml" in lines[0]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_configured_file_that_does_not_exist_stops_the_process(
    command: str, redis_server: RedisServer, tmp_path: Path
) -> None:
    missing = tmp_path / "etc" / "bot.yaml"
    env = bot_environment(redis_server.url, EVALBOT_BOT_CONFIG=str(missing))
    status, output = run_until_exit(COMMANDS[command], env, tmp_path / f"{command}.log")
    assert status == 2, output
    assert output.strip() == (
        f"evalbot {command}: invalid settings: EVALBOT_BOT_CONFIG names {missing}, "
        "which does not exist"
    )


def test_a_worker_with_a_token_the_hub_refuses_does_not_start(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    with bot_account_hub() as hub:
        env = bot_environment(redis_server.url, HF_ENDPOINT=hub.url, HF_TOKEN="hf_revoked")
        status, output = run_until_exit(COMMANDS["worker"], env, tmp_path / "worker.log")
    assert status == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith(f"evalbot worker: HF_TOKEN: the Hub at {hub.url} refuses the token")
    assert "HTTP 401" in lines[0]
    assert "hf_revoked" not in output  # a secret is never printed


def test_a_worker_whose_token_belongs_to_another_account_does_not_start(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """The README's example name with the token of another account: today's workers would
    never find their own comment and post a new report on every push."""
    with bot_account_hub() as hub:
        env = bot_environment(redis_server.url, HF_ENDPOINT=hub.url, EVALBOT_BOT_NAME="evalbot")
        status, output = run_until_exit(COMMANDS["worker"], env, tmp_path / "worker.log")
    assert status == 2, output
    assert output.strip() == (
        f"evalbot worker: EVALBOT_BOT_NAME is 'evalbot' but HF_TOKEN belongs to the Hub account "
        f"'{BOT_NAME}' (fix: set EVALBOT_BOT_NAME={BOT_NAME}, or HF_TOKEN to a token of the "
        "bot's account)"
    )


def test_a_worker_with_a_hub_that_cannot_answer_does_not_start(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    env = bot_environment(redis_server.url, EVALBOT_HUB_TIMEOUT="2")  # HF_ENDPOINT: port 9
    status, output = run_until_exit(COMMANDS["worker"], env, tmp_path / "worker.log")
    assert status == 2, output
    assert output.strip().startswith("evalbot worker: HF_TOKEN: could not ask the Hub at")
