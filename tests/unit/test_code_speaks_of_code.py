"""Comments, docstrings and docs speak of the code: no issue numbers, no citation of the
instructions a change was made under, no document outside the repository.

A reader of a clone has only the repository: an issue's number, or a file beside the checkout,
names nothing they can open. The reasons belong in the text itself, or in a document of `docs/`.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO_ROOT

#: Where the project's own text lives (the changelog records history and may name it).
SCANNED = ("bot", "workers", "evalbot_dev", "tests", "bench", "deploy", "docs", "config")
TOP_FILES = ("README.md", "Makefile", "Dockerfile", "pyproject.toml", "action.yml")
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".html", ".css", ".sh", ".txt", ".in"}
#: Built from parts, so this file does not match itself.
CITATIONS = re.compile(
    "|".join(
        (
            r"\b[Ii]ssue\s+#?\d+",
            r"\bdefect\s+\d+",
            r"\bthe\s+" + "brief" + r"\b",
            "STYLE" + r"\.md",
            "DESIGN" + r"\.md",
            r"\.\./" + "shared/",
        )
    )
)


def project_files() -> list[Path]:
    files = [REPO_ROOT / name for name in TOP_FILES if (REPO_ROOT / name).is_file()]
    for folder in SCANNED:
        files += [
            path
            for path in sorted((REPO_ROOT / folder).rglob("*"))
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts
        ]
    return files


def citations(text: str) -> list[str]:
    return [match.group(0) for match in CITATIONS.finditer(text)]


def test_no_text_cites_an_issue_the_instructions_or_a_document_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}"
        for path in project_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if citations(line)
    ]
    assert found == []


def test_the_check_finds_each_kind_of_citation() -> None:
    samples = [
        "(" + "issue" + " 11, " + "defect" + " 4)",
        "as the " + "brief asks",
        "STYLE" + ".md §6",
        "(" + "DESIGN" + ".md)",
        "`../" + "shared/reference/hub-api.md`",
    ]
    assert all(citations(sample) for sample in samples)
    assert citations("an issuer, 11 issues of the Hub, a brief pause") == []
