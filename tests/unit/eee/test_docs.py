"""docs/eee.md says what the code does: each datastore code with its severity, and what EEE's
own validator does with folders."""

from __future__ import annotations

import re

from bot.eee import datastore_diagnostics
from tests.conftest import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "eee.md").read_text(encoding="utf-8")


def test_every_datastore_code_is_listed_with_its_severity() -> None:
    table = dict(re.findall(r"^\| `(EEE-[A-Z-]+)` \| ([^|]+) \|", DOC, re.MULTILINE))
    for code, message in datastore_diagnostics.CATALOGUE.items():
        assert code in table, code
        said = table[code].strip()
        assert said.startswith(message.severity.value), (code, said)
        assert ("blocks the merge" in said) == (code in datastore_diagnostics.BLOCKING_WARNINGS), (
            code,
            said,
        )


def test_the_comparison_cites_eees_own_folder_check_at_its_commit() -> None:
    """EEE's validator compares developer and model folders with `model_info`
    (`check_model_identity_path`): the comparison must not say it does not."""
    (row,) = [
        line for line in DOC.splitlines() if line.startswith("| developer and model folders |")
    ]
    eee_column = row.split("|")[2]
    assert "check_model_identity_path" in eee_column
    assert re.search(r"`[0-9a-f]{8,40}`", eee_column)
    assert "not compared" not in eee_column
