"""The `EVALBOT_*` variables the product reads are the ones docs/operating.md's settings table
documents, and few enough for an operator to hold in their head.

"Read" means named by a string literal of its own in the product's code (`bot/`, `workers/`)
or by the image's entry point (`deploy/space/entrypoint.sh`): every reader goes through such a
literal (`EnvReader`, `environ.get`, `${NAME}`). A variable mentioned only in prose (a
docstring, an error message) is not one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
PRODUCT_DIRS = (REPO_ROOT / "bot", REPO_ROOT / "workers")
ENTRY_POINT = REPO_ROOT / "deploy" / "space" / "entrypoint.sh"
OPERATING_DOC = REPO_ROOT / "docs" / "operating.md"
NAME = re.compile(r"EVALBOT_[A-Z0-9_]+")
#: The most settings an operator is asked to know.
MOST_SETTINGS = 25


def literals_by_file() -> dict[Path, set[str]]:
    found: dict[Path, set[str]] = {}
    for directory in PRODUCT_DIRS:
        for path in sorted(directory.rglob("*.py")):
            names = {
                node.value
                for node in ast.walk(ast.parse(path.read_text(), str(path)))
                if isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and NAME.fullmatch(node.value)
            }
            if names:
                found[path] = names
    found[ENTRY_POINT] = set(re.findall(r"\$\{(EVALBOT_[A-Z0-9_]+)", ENTRY_POINT.read_text()))
    return found


def read_by_the_product() -> set[str]:
    """Every name a literal spells."""
    return set().union(*literals_by_file().values())


def table_rows() -> set[str]:
    """The names in the first cells of the settings table."""
    section = OPERATING_DOC.read_text().partition("\n## Settings\n")[2].partition("\n## ")[0]
    first_cells = re.compile(r"^\| ([^|]+) \|", re.MULTILINE)
    return {name for cell in first_cells.findall(section) for name in NAME.findall(cell)}


def test_the_table_documents_exactly_the_variables_the_product_reads() -> None:
    documented = table_rows()
    read = read_by_the_product()
    assert sorted(read - documented) == [], "read but not in docs/operating.md's table"
    assert sorted(documented - read) == [], "in docs/operating.md's table but never read"


def test_an_operator_has_at_most_25_settings_to_know() -> None:
    assert len(read_by_the_product()) <= MOST_SETTINGS, sorted(read_by_the_product())
