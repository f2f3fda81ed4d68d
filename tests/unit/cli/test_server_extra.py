"""The two installs: the user commands need only `pip install evalbot`; a server command without
`evalbot[server]` stops with one line naming it (exit 2) before importing anything of it.

`tests/installed` runs the same commands from the built wheel in a virtualenv that really lacks
the extra; here the extra's modules are hidden from `bot.server_extra` only.
"""

from __future__ import annotations

import argparse
import tomllib
from importlib import metadata
from importlib.machinery import ModuleSpec
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot import server_extra
from bot.cli import COMMAND_MODULES, build_parser, main
from tests.conftest import REPO_ROOT

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: What needs the server (`needs_server=True`); `issuer` checks for itself (serving only).
SERVER_COMMANDS = ["serve", "web", "playground", "worker", "beat", "status", "parked", "replay"]
USER_CONTRACT = "The user commands"


def user_contract() -> dict[str, list[str]]:
    found: dict[str, list[str]]
    (found,) = [
        contract
        for contract in PYPROJECT["tool"]["importlinter"]["contracts"]
        if contract["name"].startswith(USER_CONTRACT)
    ]
    return found


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def needs_server(parser: argparse.ArgumentParser) -> bool:
    """Whether the command, or any of its actions, sets `needs_server`."""
    if parser.get_default("needs_server"):
        return True
    return any(
        needs_server(sub)
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for sub in action.choices.values()
    )


def test_every_command_is_a_user_command_or_needs_the_server() -> None:
    """A new command lands on one side: in the contract `make lint` checks (it imports nothing
    of the extra) or marked `needs_server` (it names the extra when it is missing)."""
    user_modules = {name.rsplit(".", 1)[1] for name in user_contract()["source_modules"]}
    user_modules.discard("__main__")
    found = commands()
    assert {name.rsplit(".", 1)[1] for name in COMMAND_MODULES} == set(found)
    for name, parser in found.items():
        if name == "issuer":
            assert not needs_server(parser)  # its serving path checks (test below)
        elif name in SERVER_COMMANDS:
            assert needs_server(parser), name
        else:
            assert name in user_modules, f"`evalbot {name}`: a user command or needs_server?"
            assert not needs_server(parser), name


def server_distributions() -> set[str]:
    texts = PYPROJECT["project"]["optional-dependencies"]["server"]
    return {canonicalize_name(Requirement(text).name) for text in texts}


def test_the_modules_checked_are_the_server_extras() -> None:
    """`SERVER_MODULES` names a module of every distribution the extra adds (uvloop is
    optional), each one the extra's, and the user commands' contract forbids them all."""
    owners = {
        module: {canonicalize_name(name) for name in names}
        for module, names in metadata.packages_distributions().items()
    }
    extra = server_distributions()
    checked = {dist for module in server_extra.SERVER_MODULES for dist in owners[module]}
    assert checked <= extra
    assert extra - checked == {"uvloop"}
    assert set(server_extra.SERVER_MODULES) <= set(user_contract()["forbidden_modules"])


def test_the_base_dependencies_hold_none_of_the_extra() -> None:
    base = {canonicalize_name(Requirement(t).name) for t in PYPROJECT["project"]["dependencies"]}
    assert base.isdisjoint(server_distributions())
    dev = PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert "evalbot[server]" in dev  # the tests run the server


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Hide modules from the extra's check, as an install without them would (the others are
    all installed here: the dev lock holds the extra)."""
    hidden: set[str] = set()

    def find_spec(name: str) -> ModuleSpec | None:
        return None if name in hidden else ModuleSpec(name, None)

    monkeypatch.setattr(server_extra, "find_spec", find_spec)
    monkeypatch.setattr(server_extra, "sys", SimpleNamespace(modules={}))
    return hidden


@pytest.mark.parametrize(
    "argv",
    [
        *([name] for name in SERVER_COMMANDS if name != "replay"),
        ["replay", "--all"],
        ["issuer"],
        ["issuer", "serve"],
    ],
    ids=" ".join,
)
def test_a_server_command_without_the_extra_names_it(
    argv: list[str], without: set[str], capsys: pytest.CaptureFixture[str]
) -> None:
    without.update({"celery", "starlette"})
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"evalbot {argv[0]}: this command needs the server extra (starlette, celery not"
        " installed): pip install 'evalbot[server]'\n"
    )


def test_the_space_supervisor_without_the_extra_names_it(
    without: set[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.supervise.__main__ import main as supervise

    without.add("uvicorn")
    assert supervise() == 2
    assert capsys.readouterr().err == (
        "evalbot-supervise: this command needs the server extra (uvicorn not installed):"
        " pip install 'evalbot[server]'\n"
    )


def test_the_issuers_helpers_run_without_the_extra(
    without: set[str], capsys: pytest.CaptureFixture[str]
) -> None:
    without.update(server_extra.SERVER_MODULES)
    assert main(["issuer", "client-secret"]) == 0
    assert "client_secret_sha256: " in capsys.readouterr().out


def test_with_the_extra_nothing_is_refused() -> None:
    assert server_extra.missing_server_modules() == []
    assert server_extra.server_refusal("evalbot serve") is None
