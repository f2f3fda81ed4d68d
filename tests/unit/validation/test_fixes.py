"""The fixes findings carry (`Diagnostic.fix`), and the edits that make them
(`bot.validation.fixing`, `bot.validation.yamledit`): one right answer only, every other byte
kept."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.validation.diagnostics import Diagnostic, Fix, unique_match
from bot.validation.fixing import SIGNED, fix_file
from bot.validation.model import FileReport
from bot.validation.validate import validate_results_files
from bot.validation.yamledit import Document, EditError, apply_edits, set_value
from bot.validation.yamlload import load_yaml
from bot.validation.yamlwrite import replace_and_append
from tests.conftest import REPO_ROOT

BENCHMARKS = DirectoryBenchmarkSource(REPO_ROOT / "examples" / "benchmarks")
BROKEN = REPO_ROOT / "examples" / "model-broken" / ".eval_results"

#: every real results file the repository holds: the Hub's (tests/samples/real-world, with
#: provenance in its README), the examples', the emulator's sample repo's
REAL_RESULTS = sorted(
    [
        *(REPO_ROOT / "tests/samples/real-world/hf-model-repos").glob("*.yaml"),
        *(REPO_ROOT / "tests/samples/real-world/hub-docs").glob("*.yaml"),
        *(REPO_ROOT / "examples").glob("*/.eval_results/*.yaml"),
        *(REPO_ROOT / "evalbot_dev/emulator/samples/repos").glob("*/*/.eval_results/*.yaml"),
    ]
)


def check(files: dict[str, bytes]) -> list[FileReport]:
    return validate_results_files(files, BENCHMARKS)


def fixes(report: FileReport) -> dict[str, Fix | None]:
    found: dict[str, Fix | None] = {}
    for diagnostic in all_diagnostics(report):
        found[f"{diagnostic.code} {diagnostic.field}"] = diagnostic.fix
    return found


def all_diagnostics(report: FileReport) -> list[Diagnostic]:
    return [*report.diagnostics, *(d for entry in report.entries for d in entry.diagnostics)]


# --- which findings carry a fix --------------------------------------------------------------


def test_unique_match_is_one_answer_or_none() -> None:
    assert unique_match("Accuracy", ["accuracy", "attempts"]) == "accuracy"
    assert unique_match("gpqa_diamond", ["diamond", "main", "extended"]) == "diamond"
    assert unique_match("x", ["a", "b"]) is None
    # two spellings equal but for case: no single answer
    assert unique_match("ACC", ["acc", "Acc"]) is None
    # two close candidates: no single answer
    assert unique_match("main1", ["main2", "main3"]) is None


def test_the_broken_example_carries_fixes_where_one_answer_is_right() -> None:
    files = {f".eval_results/{path.name}": path.read_bytes() for path in BROKEN.iterdir()}
    by_path = {report.path: fixes(report) for report in check(files)}
    gpqa = by_path[".eval_results/gpqa.yaml"]
    assert gpqa["ENTRY-TASK-UNKNOWN dataset.task_id"] == Fix(
        "replace", "diamond", ("dataset", "task_id")
    )
    assert gpqa["ENTRY-VALUE-NOT-NUMBER value"] == Fix("replace", 78.8, ("value",), text="78.8")
    assert gpqa["ENTRY-YAML11-AMBIGUOUS date"] == Fix(
        "rewrite", "2026-05-23", ("date",), text='"2026-05-23"'
    )
    assert gpqa["ENTRY-YAML11-AMBIGUOUS notes"] == Fix("rewrite", "on", ("notes",), text='"on"')
    # a person decides: a source's URL, a fraction or a percentage
    assert gpqa["ENTRY-SOURCE-URL-MISSING source"] is None
    assert gpqa["ENTRY-VALUE-SCALE value"] is None
    aime = by_path[".eval_results/aime_2026.yaml"]
    assert aime["ENTRY-METRIC-UNKNOWN metrics[0].metric_id"] == Fix(
        "replace", "accuracy", ("metrics", 0, "metric_id")
    )
    # `valeu` -> `value` would give an entry with `metrics` both dialects: not a fix
    assert aime["ENTRY-FIELD-UNKNOWN valeu"] is None
    assert aime["ENTRY-REVISION dataset.revision"] is None
    # an unknown benchmark is never replaced by a near spelling (it may exist on the Hub)
    assert by_path[".eval_results/mmlu-pro.yaml"]["ENTRY-BENCHMARK-UNKNOWN dataset.id"] is None


ENTRY = "- dataset:\n    id: {id}\n    task_id: diamond\n  value: 78.8\n{more}"


def one_entry(
    more: str = "", dataset_id: str = "Idavidrein/gpqa", name: str = "gpqa"
) -> dict[str, Fix | None]:
    content = ENTRY.format(id=dataset_id, more=more).encode()
    [report] = check({f".eval_results/{name}.yaml": content})
    return fixes(report)


def test_a_benchmark_ids_case_is_fixed_to_the_canonical_spelling() -> None:
    found = one_entry(dataset_id="idavidrein/GPQA")
    assert found["ENTRY-BENCHMARK-CASE dataset.id"] == Fix(
        "replace", "Idavidrein/gpqa", ("dataset", "id")
    )


@pytest.mark.parametrize(
    ("more", "key", "fix"),
    [
        ("  notse: x\n", "notse", Fix("rename-key", "notes", ("notse",))),
        # the dialect decides between the two spellings of the token key
        (
            "  verify-token: x\n",
            "verify-token",
            Fix("rename-key", "verifyToken", ("verify-token",)),
        ),
        ("  verifytoken: x\n", "verifytoken", Fix("rename-key", "verifyToken", ("verifytoken",))),
        # the key it would become is there already
        ("  notes: a\n  Notes: b\n", "Notes", None),
        ("  sorce: {url: 'https://x.org'}\n", "sorce", Fix("rename-key", "source", ("sorce",))),
        ("  zzz: 1\n", "zzz", None),
    ],
)
def test_an_unknown_key_is_renamed_only_to_the_one_key_it_stands_for(
    more: str, key: str, fix: Fix | None
) -> None:
    assert one_entry(more)[f"ENTRY-FIELD-UNKNOWN {key}"] == fix


def test_a_target_entrys_misspelt_token_takes_the_target_spelling() -> None:
    content = (
        b"- dataset: {id: Idavidrein/gpqa, task_id: diamond}\n"
        b"  metrics: [{metric_id: accuracy, value: 1}]\n"
        b"  verify-token: x\n"
    )
    [report] = check({".eval_results/gpqa.yaml": content})
    assert fixes(report)["ENTRY-FIELD-UNKNOWN verify-token"] == Fix(
        "rename-key", "verify_token", ("verify-token",)
    )


def test_numbers_in_another_notation_are_rewritten_as_the_same_number() -> None:
    found = one_entry("  run: {seed: 0x1F, num_samples: 012}\n")
    assert found["ENTRY-NUMBER-NOTATION run.seed"] == Fix("rewrite", 31, ("run", "seed"), text="31")
    assert found["ENTRY-YAML11-AMBIGUOUS run.num_samples"] == Fix(
        "rewrite", 12, ("run", "num_samples"), text="12"
    )


def test_an_ambiguous_key_is_not_quoted_as_if_it_were_the_value() -> None:
    found = one_entry("  on: x\n")
    assert found["ENTRY-YAML11-AMBIGUOUS on"] is None


def test_the_file_name_is_fixed_only_when_it_holds_one_benchmark() -> None:
    [report] = check(
        {".eval_results/GPQA-diamond.yaml": ENTRY.format(id="Idavidrein/gpqa", more="").encode()}
    )
    # the variant suffix is kept, lower-cased with `-` as `_`
    assert fixes(report)["FILE-NAME dataset.id"] == Fix(
        "rename-file", ".eval_results/gpqa_diamond.yaml"
    )
    two = ENTRY.format(id="Idavidrein/gpqa", more="") + (
        "- dataset: {id: cais/hle, task_id: hle}\n  value: 5.2\n"
    )
    [report] = check({".eval_results/results.yaml": two.encode()})
    assert {fix for key, fix in fixes(report).items() if key.startswith("FILE-NAME")} == {None}


def test_the_extension_is_fixed_within_eval_results_only() -> None:
    content = ENTRY.format(id="Idavidrein/gpqa", more="").encode()
    [report] = check({".eval_results/gpqa.yml": content})
    assert fixes(report)["FILE-PATH None"] == Fix("rename-file", ".eval_results/gpqa.yaml")
    [report] = check({"gpqa.yml": content})
    assert fixes(report)["FILE-PATH None"] is None


# --- the edits: every byte not fixed is kept -------------------------------------------------


def fixed(content: bytes, name: str = "gpqa.yaml") -> bytes:
    [report] = check({f".eval_results/{name}": content})
    result = fix_file(report, content)
    assert result.content is not None, result.not_made
    return result.content


def test_comments_quotes_indentation_and_blank_lines_are_kept() -> None:
    content = (
        b"# head comment\n"
        b"\n"
        b"-   dataset:\n"
        b"        id: 'Idavidrein/gpqa'   # single quotes, odd indentation\n"
        b"        task_id: gpqa_diamond      # fixed\n"
        b"    value: 78.8   \n"  # trailing spaces
        b"    notes: ~\n"
        b"    # a comment between keys\n"
        b'    date: "2026-01-01"\n'
        b"# tail\n"
    )
    assert fixed(content) == content.replace(
        b"task_id: gpqa_diamond      # fixed", b"task_id: diamond           # fixed"
    )


def test_crlf_line_ends_and_a_byte_order_mark_are_kept() -> None:
    content = (
        b"\xef\xbb\xbf- dataset:\r\n    id: Idavidrein/gpqa\r\n    task_id: Diamond\r\n"
        b"  value: 78.8\r\n  date: 2026-05-23\r\n"
    )
    assert fixed(content) == content.replace(b"Diamond", b"diamond").replace(
        b"2026-05-23", b'"2026-05-23"'
    )


def test_a_quoted_value_keeps_its_quotes() -> None:
    content = b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: 'Main'\n  value: 78.8\n"
    assert fixed(content) == content.replace(b"'Main'", b"'main'")


def test_an_edit_that_would_change_another_value_is_refused() -> None:
    """An anchored value is shared by its aliases: editing it would change them too."""
    content = (
        b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: &t Main\n  value: 78.8\n  notes: *t\n"
    )
    document = Document.parse(content)
    with pytest.raises(EditError, match=r"`0\.dataset\.task_id` is anchored \(`&t`\)"):
        set_value(document, (0, "dataset", "task_id"), "main")
    with pytest.raises(EditError, match=r"`0\.notes` is an alias \(`\*t`\)"):
        set_value(document, (0, "notes"), "main")


def test_a_signed_entrys_value_is_not_changed_but_its_notation_is() -> None:
    content = (
        b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: Diamond\n  value: 78.8\n"
        b"  date: 2026-05-23\n  verifyToken: eyJ0.x.y\n"
    )
    [report] = check({".eval_results/gpqa.yaml": content})
    result = fix_file(report, content)
    assert [item.diagnostic.code for item in result.not_made] == ["ENTRY-TASK-UNKNOWN"]
    assert result.not_made[0].reason == SIGNED
    assert result.content == content.replace(b"2026-05-23", b'"2026-05-23"')


def test_a_misspelt_token_key_fixed_makes_the_entry_signed_for_the_other_fixes() -> None:
    """`verifiedToken` renamed to `verifyToken` reveals a token: `Diamond` (and `valeu`) are
    then values that token covers, refused as for an entry signed from the start."""
    content = (
        b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: Diamond\n  valeu: 78.8\n"
        b"  verifiedToken: x\n"
    )
    [report] = check({".eval_results/gpqa.yaml": content})
    result = fix_file(report, content)
    assert [change.new for change in result.changes] == ["verifyToken"]
    assert result.content == content.replace(b"verifiedToken", b"verifyToken")
    refused = {item.diagnostic.field: item.reason for item in result.not_made}
    assert refused == {"dataset.task_id": SIGNED, "valeu": SIGNED}


@pytest.mark.parametrize(
    ("shape", "key", "expected"),
    [
        (b"  value: 78.8\n", "verify_token", "verifyToken"),
        (b"  metrics: [{metric_id: accuracy, value: 1}]\n", "verifyToken", "verify_token"),
    ],
)
def test_the_other_dialects_token_key_is_flagged_and_respelt_on_a_signed_entry(
    shape: bytes, key: str, expected: str
) -> None:
    content = (
        b"- dataset: {id: Idavidrein/gpqa, task_id: Diamond}\n"
        + shape
        + f"  {key}: eyJ0.x.y\n".encode()
    )
    [report] = check({".eval_results/gpqa.yaml": content})
    [found] = [d for d in all_diagnostics(report) if d.code == "ENTRY-TOKEN-KEY"]
    assert found.severity == "warning"
    assert (found.line, found.field) == (3, key)
    assert f"reads the token as `{expected}` there, and drops `{key}`" in found.message
    assert found.fix == Fix("rename-key", expected, (key,))
    result = fix_file(report, content)
    assert result.content == content.replace(key.encode(), expected.encode())
    assert [item.diagnostic.code for item in result.not_made] == ["ENTRY-TASK-UNKNOWN"]


def test_the_dialects_own_token_key_is_not_flagged() -> None:
    for content in (
        b"- dataset: {id: Idavidrein/gpqa, task_id: diamond}\n  value: 78.8\n"
        b"  verifyToken: eyJ0.x.y\n",
        b"- dataset: {id: Idavidrein/gpqa, task_id: diamond}\n"
        b"  metrics: [{metric_id: accuracy, value: 1}]\n  verify_token: eyJ0.x.y\n",
    ):
        [report] = check({".eval_results/gpqa.yaml": content})
        assert "ENTRY-TOKEN-KEY" not in {d.code for d in all_diagnostics(report)}


def test_the_broken_example_keeps_every_line_it_does_not_fix(tmp_path: Path) -> None:
    shutil.copytree(BROKEN, tmp_path / ".eval_results")
    content = (tmp_path / ".eval_results" / "gpqa.yaml").read_bytes()
    new = fixed(content)
    changed = [
        line
        for line in difflib.ndiff(content.decode().splitlines(), new.decode().splitlines())
        if line.startswith("+ ")
    ]
    assert changed == [
        "+     task_id: diamond             # GPQA's tasks are diamond, main and extended",
        "+   value: 78.8                    # a score is a number, not a string",
        '+   date: "2026-05-23"             # unquoted: a date object for YAML 1.1 readers',
        '+   notes: "on"                    # `on` is the boolean true for YAML 1.1 readers',
    ]


@pytest.mark.parametrize("path", REAL_RESULTS, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_every_real_results_file_round_trips_byte_for_byte(path: Path) -> None:
    """Nothing to fix writes nothing; the writer with no edit, or no item to add, gives the
    very bytes back; a file with fixes changes on the fixed lines only."""
    content = path.read_bytes()
    [report] = check({".eval_results/" + path.name.split("__")[-1]: content})
    if not load_yaml(content).ok:  # a file the strict loader refuses is never written to
        assert fix_file(report, content).content is None
        with pytest.raises(EditError, match="does not load"):
            apply_edits(content, [])
        return
    assert apply_edits(content, []) == content
    assert replace_and_append(content, (), {}, []) == content
    result = fix_file(report, content)
    edits = [
        change
        for change in result.changes
        if change.diagnostic.fix is not None and change.diagnostic.fix.action != "rename-file"
    ]
    if not edits:
        assert result.content is None
        return
    assert result.content is not None
    fixed_lines = {change.diagnostic.line for change in edits}
    old, new = content.splitlines(), result.content.splitlines()
    assert len(old) == len(new)
    assert {number for number, (a, b) in enumerate(zip(old, new, strict=True), 1) if a != b} <= (
        fixed_lines
    )


@pytest.mark.parametrize(
    "path",
    [
        REPO_ROOT / "bot/data/convert/mappings.yaml",
        REPO_ROOT / "tests/samples/convert/mappings/lm-eval-math-to-hle-mini.yaml",
    ],
    ids=lambda path: path.name,
)
def test_every_mappings_file_round_trips_byte_for_byte(path: Path) -> None:
    """What `convert --write-mappings` merges into is kept as it is."""
    content = path.read_bytes()
    assert replace_and_append(content, ("mappings",), {}, []) == content
