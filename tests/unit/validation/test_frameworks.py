"""The framework list as data: parsed from huggingface.js's eval.ts, shipped, matched with care."""

from __future__ import annotations

import pytest

from bot.validation.frameworks import (
    KNOWN,
    FrameworkList,
    FrameworkListError,
    close_match,
    parse_eval_ts,
)
from tests.support.processes import REPO_ROOT

SAMPLE = REPO_ROOT / "tests" / "samples" / "frameworks" / "eval.ts"


def test_the_packaged_list_is_the_published_one() -> None:
    """bot/data/evaluation_frameworks.json holds exactly the ids of the eval.ts it came from."""
    assert KNOWN.names == parse_eval_ts(SAMPLE.read_text())
    assert len(KNOWN.names) == 30
    assert {"extractbench", "mmmu", "inspect-ai"} <= set(KNOWN.names)
    assert KNOWN.refreshed


def test_parsing_reads_names_of_the_declaration_only() -> None:
    text = (
        'const OTHER = { x: { name: "not-this" } };\n'
        "export const EVALUATION_FRAMEWORKS = {\n"
        '\t"inspect-ai": {\n\t\tname: "inspect-ai",\n\t\turl: "https://x/name: \\"no\\"",\n\t},\n'
        "\tmteb: {\n\t\tname: 'mteb',\n\t},\n"
        "} as const;\n"
        'const AFTER = { name: "nor-this" };\n'
    )
    assert parse_eval_ts(text) == ("inspect-ai", "mteb")


@pytest.mark.parametrize(
    "text",
    [
        "<html>404: Not Found</html>",
        "export const EVALUATION_FRAMEWORKS = {\n} as const;\n",
        'export const EVALUATION_FRAMEWORKS = {\n\ta: { name: "Has Spaces" },\n};\n',
        'export const EVALUATION_FRAMEWORKS = {\n\ta: { name: "a" },\n\tb: { name: "a" },\n};\n',
    ],
    ids=["not-eval-ts", "empty", "malformed-id", "duplicate"],
)
def test_a_source_without_a_trustworthy_list_is_refused(text: str) -> None:
    with pytest.raises(FrameworkListError):
        parse_eval_ts(text)


def test_json_round_trip() -> None:
    listed = FrameworkList(("a", "b-c"), "https://example.test/eval.ts", "2026-11-24")
    assert FrameworkList.from_json(listed.to_json()) == listed


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("INSPECT-AI", "inspect-ai"),
        ("inspect_ai", "inspect-ai"),
        ("mathArena", "math-arena"),
        ("math_arena", "math-arena"),
        ("swe-bench-p", None),  # as close to swe-bench as to swe-bench-pro: ambiguous
        ("mmmu-pro", None),
        ("extract-bench", "extractbench"),
        ("lm-eval", None),
    ],
)
def test_a_correction_is_offered_only_when_close_and_unambiguous(
    value: str, expected: str | None
) -> None:
    assert close_match(value, KNOWN.names) == expected
