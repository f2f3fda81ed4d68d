"""Every reason code the verifier can give is documented, with its cause and its fix."""

from __future__ import annotations

import re

from bot.tokens import reasons
from tests.conftest import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "verification.md").read_text(encoding="utf-8")


def test_every_reason_constant_has_texts() -> None:
    constants = {
        value for name, value in vars(reasons).items() if name.isupper() and isinstance(value, str)
    }
    assert constants == set(reasons.REASONS)
    for text in reasons.REASONS.values():
        assert text.cause.strip()
        assert text.fix.strip()


def test_every_reason_is_in_the_table_of_docs_verification() -> None:
    section = DOC.split("## Reason codes", 1)[1].split("\n## ", 1)[0]
    pattern = r"^\| `([a-z-]+)(?::<claim>)?` \|"
    documented = set(re.findall(pattern, section, flags=re.MULTILINE))
    assert documented == set(reasons.REASONS)


def test_reason_codes_are_kebab_case_and_per_claim_codes_keep_their_family() -> None:
    for code in reasons.REASONS:
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", code)
    code = reasons.for_claim(reasons.CLAIM_MISMATCH, "task_id")
    assert code == "claim-mismatch:task_id"
    assert reasons.family_of(code) == reasons.CLAIM_MISMATCH
