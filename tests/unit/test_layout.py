"""The documented layout and the layering contracts cover the tree as it is.

A package added under `bot/` must be placed in the README's layout table, in
docs/architecture.md and in the import-linter contracts of `pyproject.toml` (core or not,
production or dev tool); a package removed must leave them. `make lint` then checks the
imports themselves.
"""

from __future__ import annotations

import ast
import re
import tomllib
from typing import Any

from tests.conftest import REPO_ROOT

BOT = REPO_ROOT / "bot"
#: The pure core: no I/O layer, no client library (docs/architecture.md#the-layers).
CORE = {
    "bot.validation",
    "bot.tokens",
    "bot.report",
    "bot.collections",
    "bot.convert",
    "bot.eee",
    "bot.strictjson",
}
#: Dev tools (the Hub emulator, the local stack, the demo) live in `evalbot_dev/`, outside
#: `bot/`: the wheel does not carry them and production never imports them.
DEV = "evalbot_dev"


def top_level() -> set[str]:
    """`bot.<name>` for every package and module directly under bot/ (not `__init__`)."""
    names = {f"bot.{path.name}" for path in BOT.iterdir() if (path / "__init__.py").is_file()}
    names |= {
        f"bot.{path.stem}" for path in BOT.glob("*.py") if path.stem not in ("__init__", "__main__")
    }
    return names


def documented_paths(text: str) -> set[str]:
    """Every `bot/...` or `workers/` path written in backquotes."""
    return set(re.findall(r"`((?:bot|workers)/[\w./]*)`", text))


def as_module(path: str) -> str:
    return path.rstrip("/").removesuffix(".py").replace("/", ".")


def contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = config["tool"]["importlinter"]["contracts"]
    return {contract["name"]: contract for contract in found}


def contract(starting: str) -> dict[str, Any]:
    (found,) = [body for name, body in contracts().items() if name.startswith(starting)]
    return found


def test_the_readme_layout_table_lists_every_package_and_nothing_gone() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("| `")]
    paths = documented_paths("\n".join(table))
    assert {as_module(path) for path in paths if path.startswith("bot/")} >= top_level()
    assert "workers/" in paths
    for path in paths:
        assert (REPO_ROOT / path).exists(), f"README layout lists {path}, which is gone"


def test_the_architecture_note_places_every_package_and_names_nothing_gone() -> None:
    note = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    layers = note.split("## The layers", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"\b(bot/\w+(?:\.py)?|workers)\b", layers))
    assert {as_module(path) for path in named if path.startswith("bot/")} >= top_level()
    assert "workers" in named
    for path in documented_paths(note) | named:
        assert (REPO_ROOT / path).exists(), f"docs/architecture.md names {path}, which is gone"


def test_every_package_is_placed_in_the_layering_contracts() -> None:
    core = contract("The pure core")
    assert set(core["source_modules"]) == CORE
    # every other package is an edge the core may not import
    assert set(core["forbidden_modules"]) >= top_level() - CORE
    production = contract("Production never imports")
    assert production["forbidden_modules"] == [DEV]
    assert set(production["source_modules"]) >= top_level()
    assert "workers" in production["source_modules"]


def test_no_contract_has_an_exception() -> None:
    ignored = {
        name: body["ignore_imports"]
        for name, body in contracts().items()
        if body.get("ignore_imports")
    }
    assert ignored == {}


def test_no_development_tool_lives_in_the_shipped_packages() -> None:
    for name in ("emulator", "devstack", "demo.py"):
        assert not (BOT / name).exists(), f"bot/{name} is a development tool: evalbot_dev/"
    assert (REPO_ROOT / DEV / "__init__.py").is_file()


def test_no_product_function_is_over_100_lines() -> None:
    """A function a newcomer cannot read in one screenful or two is split into named steps."""
    long_ones = []
    for package in ("bot", "workers"):
        for path in (REPO_ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > 100:
                        where = path.relative_to(REPO_ROOT)
                        long_ones.append(f"{where}:{node.lineno} {node.name} ({length} lines)")
    assert long_ones == []
