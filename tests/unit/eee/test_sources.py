"""Entries checked against the Every Eval Ever records their `source.url` links.

Real data (tests/samples/real-world/every_eval_ever/community_evals/PROVENANCE.md): EEE's own
converter fixture (`tests/data/community_evals_converter/` at evaleval/every_eval_ever 9bce4136)
and the entry the converter itself wrote from it (`converter_output.yaml`); two more real
records whose entries are the converter's mapping reproduced here, each step citing the
converter's code (`every_eval_ever/tools/hf_community_evals.py` @ 9bce4136).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.adapters.records_dir import DirectoryRecordReader
from bot.eee.links import RecordLink, record_link
from bot.eee.sourcecheck import RecordUnreadable, agrees, check_sources
from bot.validation.model import FileReport, SourceStatus
from bot.validation.validate import validate_results_files
from tests.conftest import REAL_WORLD

SAMPLES = REAL_WORLD / "every_eval_ever" / "community_evals"
DATASTORE = SAMPLES / "datastore"
HUB = "https://huggingface.co"
TRUSTED = ("evaleval/EEE_datastore",)
BLOB = f"{HUB}/datasets/evaleval/EEE_datastore/blob/main/"

YI = "flat/objects/67/6f/676f4465-ce78-411a-9f5a-c97b3d2eac4f.json"
LLAMA_PRO = "flat/objects/98/ea/98ea850e-7019-4728-a558-8b1819ec47c2.json"
MATH = (
    "data/math_rephrased_full/RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1/"
    "83f8f705-bcf1-473c-9fd2-77d00dd856f9.json"
)
MATH_MODEL = "RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1"

#: The entry EEE's converter wrote from its own fixture (converter_output.yaml, verbatim).
CONVERTER_OUTPUT = (SAMPLES / "converter_output.yaml").read_bytes()

#: 98ea850e (schema 0.2.0, TencentARC/LLaMA-Pro-8B-Instruct): the converter's mapping by hand
#: (its Pydantic models at HEAD refuse the 0.2.0 record, so it cannot run on it):
#: `_result_matches_dataset` picks the result whose `source_data.hf_repo` is `Idavidrein/gpqa`
#: (BENCHMARK_CONFIGS['gpqa'], no preferred metric); `_community_eval_task_id` gives `diamond`
#: (`_gpqa_variant_notes`: dataset_name `GPQA` is neither variant); `_community_eval_value`:
#: `max_score` 1, so 0.2743 * 100 rounded to 10 decimals = 27.43; `_date_from_result`: no
#: timestamp, no date; `_datastore_blob_url` for the link.
LLAMA_PRO_ENTRY = (
    "- dataset:\n    id: Idavidrein/gpqa\n    task_id: diamond\n  value: 27.43\n"
    f"  source:\n    url: {BLOB}{LLAMA_PRO}\n    name: EvalEval\n"
).encode()

#: 83f8f705 (schema 0.3.0, written by EEE's lm-eval converter from a real lm-eval run): a
#: benchmark outside the converter's table, mapped the same way (its `hf_repo`); `max_score` 1,
#: so 0.0004 * 100 = 0.04; `_date_from_result`: the result's `evaluation_timestamp`
#: 1768964383 is 2026-01-21 UTC.
MATH_ENTRY = (
    "- dataset:\n    id: stellaathena/math_rephrased_full\n    task_id: math_rephrased_full\n"
    f"  value: 0.04\n  date: '2026-01-21'\n  source:\n    url: {BLOB}{MATH}\n    name: EvalEval\n"
).encode()

MATH_EVAL_YAML = b"name: MATH rephrased\ndescription: math\ntasks:\n  - id: math_rephrased_full\n"


@pytest.fixture
def benchmarks(tmp_path: Path) -> DirectoryBenchmarkSource:
    real = REAL_WORLD / "hf-benchmark-eval-yaml"
    for repo, name in (
        ("TIGER-Lab/MMLU-Pro", "TIGER-Lab__MMLU-Pro.eval.yaml"),
        ("Idavidrein/gpqa", "Idavidrein__gpqa.eval.yaml"),
    ):
        (tmp_path / repo).mkdir(parents=True)
        (tmp_path / repo / "eval.yaml").write_bytes((real / name).read_bytes())
    (tmp_path / "stellaathena/math_rephrased_full").mkdir(parents=True)
    (tmp_path / "stellaathena/math_rephrased_full/eval.yaml").write_bytes(MATH_EVAL_YAML)
    return DirectoryBenchmarkSource(tmp_path)


def checked(
    content: bytes,
    benchmarks: DirectoryBenchmarkSource,
    model_repo: str | None,
    reader: object = None,
) -> FileReport:
    name = (
        "gpqa"
        if b"gpqa" in content
        else "mmlu_pro"
        if b"MMLU" in content
        else "math_rephrased_full"
    )
    (report,) = validate_results_files({f".eval_results/{name}.yaml": content}, benchmarks)
    check_sources(
        [report],
        DirectoryRecordReader(DATASTORE) if reader is None else reader,  # type: ignore[arg-type]
        model_repo=model_repo,
        hub_url=HUB,
        datastores=TRUSTED,
    )
    return report


HONEST = [
    (CONVERTER_OUTPUT, "01-ai/Yi-1.5-34B-Chat", YI, "mmlu-pro/01-ai_yi-1.5-34b-chat/tiger-lab/1777613486.918081"),  # noqa: E501
    (LLAMA_PRO_ENTRY, "TencentARC/LLaMA-Pro-8B-Instruct", LLAMA_PRO, None),
    (MATH_ENTRY, MATH_MODEL, MATH, "math_rephrased_full/RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1/1795674801.925606"),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize(("content", "model", "path", "record_id"), HONEST)
def test_every_honest_entry_is_checked(
    content: bytes,
    model: str,
    path: str,
    record_id: str | None,
    benchmarks: DirectoryBenchmarkSource,
) -> None:
    report = checked(content, benchmarks, model)
    (entry,) = report.entries
    assert entry.ok, entry.diagnostics
    assert entry.source is not None
    assert entry.source.status is SourceStatus.CHECKED
    assert (entry.source.datastore, entry.source.revision, entry.source.path) == (
        "evaleval/EEE_datastore",
        "main",
        path,
    )
    if record_id is not None:
        assert entry.source.record_id == record_id


def test_the_converter_fixture_entry_is_what_the_converter_wrote() -> None:
    """EEE's own test asserts 52.29 on TIGER-Lab/MMLU-Pro / mmlu_pro for this fixture."""
    assert b"value: 52.29" in CONVERTER_OUTPUT
    assert b"id: TIGER-Lab/MMLU-Pro\n    task_id: mmlu_pro" in CONVERTER_OUTPUT


def tampered(content: bytes, old: str, new: str) -> bytes:
    assert old.encode() in content, old
    return content.replace(old.encode(), new.encode(), 1)


TAMPERINGS = [
    # (entry, model repo, what is changed, the field named, the record's value named)
    (CONVERTER_OUTPUT, "01-ai/yi-1.5-34b-chat", ("value: 52.29", "value: 96.8"), "value", "52.29"),
    (CONVERTER_OUTPUT, "someone/else", None, "source.url", "01-ai/yi-1.5-34b-chat"),
    (CONVERTER_OUTPUT, "01-ai/yi-1.5-34b-chat", ("id: TIGER-Lab/MMLU-Pro", "id: Idavidrein/gpqa"), "dataset.id", "TIGER-Lab/mmlu_pro_leaderboard_submission"),  # noqa: E501
    (LLAMA_PRO_ENTRY, "TencentARC/LLaMA-Pro-8B-Instruct", ("task_id: diamond", "task_id: extended"), "dataset.task_id", "diamond or main"),  # noqa: E501
    (MATH_ENTRY, MATH_MODEL, ("date: '2026-01-21'", "date: '2025-01-21'"), "date", "2026-01-21"),
    (LLAMA_PRO_ENTRY, "TencentARC/LLaMA-Pro-8B-Instruct", ("value: 27.43", "value: 27.5"), "value", "27.43"),  # noqa: E501
    # a link to another record: the yi record for the LLaMA-Pro entry
    (LLAMA_PRO_ENTRY, "TencentARC/LLaMA-Pro-8B-Instruct", (LLAMA_PRO, YI), "source.url", "01-ai/yi-1.5-34b-chat"),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize(("content", "model", "change", "field", "theirs"), TAMPERINGS)
def test_each_one_field_tampering_is_a_finding_naming_the_field(
    content: bytes,
    model: str,
    change: tuple[str, str] | None,
    field: str,
    theirs: str,
    benchmarks: DirectoryBenchmarkSource,
) -> None:
    if change is not None:
        content = tampered(content, *change)
    report = checked(content, benchmarks, model)
    (entry,) = report.entries
    assert entry.source is not None
    assert entry.source.status is SourceStatus.MISMATCH
    findings = [d for d in entry.diagnostics if d.code == "ENTRY-SOURCE-MISMATCH"]
    assert findings, entry.diagnostics
    first = findings[0]
    assert first.field == field
    assert theirs in first.message
    assert entry.source.url in first.message  # the record's URL
    assert first.hint
    assert first.line is not None
    assert not entry.ok


def test_a_record_another_model_and_benchmark_names_every_field(
    benchmarks: DirectoryBenchmarkSource,
) -> None:
    """The issue's case: a claim whose link is a record for another model on another benchmark."""
    content = tampered(CONVERTER_OUTPUT, YI, LLAMA_PRO)
    report = checked(content, benchmarks, "01-ai/yi-1.5-34b-chat")
    fields = [d.field for d in report.entries[0].diagnostics if d.code == "ENTRY-SOURCE-MISMATCH"]
    # the model, and the benchmark: that record's MMLU-Pro result has no metric id the converter
    # prefers for MMLU-Pro (`preferred_metric_ids`), so it stands for no MMLU-Pro entry
    assert fields == ["source.url", "dataset.id"]


def test_an_unreadable_record_is_not_checked_and_no_finding(
    benchmarks: DirectoryBenchmarkSource,
) -> None:
    class Offline:
        def read(self, link: RecordLink) -> bytes:
            raise RecordUnreadable("the Hub did not answer within 10 s")

    report = checked(CONVERTER_OUTPUT, benchmarks, "01-ai/yi-1.5-34b-chat", Offline())
    (entry,) = report.entries
    assert entry.ok
    assert entry.diagnostics == []
    assert entry.source is not None
    assert entry.source.status is SourceStatus.UNREADABLE
    assert entry.source.reason == "the Hub did not answer within 10 s"


def test_a_record_the_datastore_does_not_have_is_a_finding(
    benchmarks: DirectoryBenchmarkSource,
) -> None:
    content = tampered(CONVERTER_OUTPUT, "676f4465-ce78", "676f4465-ce79")
    (entry,) = checked(content, benchmarks, "01-ai/yi-1.5-34b-chat").entries
    assert [d.code for d in entry.diagnostics] == ["ENTRY-SOURCE-NOT-FOUND"]
    assert entry.source is not None
    assert entry.source.status is SourceStatus.MISMATCH


def test_an_invalid_record_is_a_finding(benchmarks: DirectoryBenchmarkSource) -> None:
    class Broken:
        def read(self, link: RecordLink) -> bytes:
            return (DATASTORE / YI).read_bytes().replace(b'"0.2.2"', b'"0.2.1"')

    (entry,) = checked(CONVERTER_OUTPUT, benchmarks, "01-ai/yi-1.5-34b-chat", Broken()).entries
    assert [d.code for d in entry.diagnostics] == ["ENTRY-SOURCE-INVALID"]
    assert "EEE-VERSION" in entry.diagnostics[0].message


def test_a_record_is_read_once_per_run(benchmarks: DirectoryBenchmarkSource) -> None:
    reads: list[str] = []

    class Counting(DirectoryRecordReader):
        def read(self, link: RecordLink) -> bytes:
            reads.append(link.path)
            return super().read(link)

    twice = CONVERTER_OUTPUT + CONVERTER_OUTPUT.replace(b"52.29", b"52.3")
    report = checked(twice, benchmarks, "01-ai/yi-1.5-34b-chat", Counting(DATASTORE))
    assert reads == [YI]
    assert [e.source.status for e in report.entries if e.source] == [SourceStatus.CHECKED] * 2


def test_other_links_stay_plain(benchmarks: DirectoryBenchmarkSource) -> None:
    for url in (
        "https://arxiv.org/abs/2406.01574",
        f"{HUB}/datasets/someone/EEE_datastore/blob/main/{YI}",  # an untrusted repo
        f"https://evil.example/datasets/evaleval/EEE_datastore/blob/main/{YI}",
        f"{BLOB}README.md",
        f"{BLOB}data/x/y/z/u_samples.jsonl",
        f"{BLOB}data/../flat/x.json",
    ):
        content = CONVERTER_OUTPUT.replace(f"{BLOB}{YI}".encode(), url.encode())
        (entry,) = checked(content, benchmarks, "01-ai/yi-1.5-34b-chat").entries
        assert entry.source is not None, url
        assert entry.source.status is SourceStatus.LINKED, url
        assert entry.ok


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (f"{BLOB}{YI}", ("evaleval/EEE_datastore", "main", YI)),
        (f"{HUB}/datasets/EvalEval/eee_datastore/resolve/abc123/{YI}?download=true", ("EvalEval/eee_datastore", "abc123", YI)),  # noqa: E501
        (f"{HUB}/datasets/evaleval/EEE_datastore/blob/refs%2Fpr%2F7/{MATH}", ("evaleval/EEE_datastore", "refs/pr/7", MATH)),  # noqa: E501
        (f"http://127.0.0.1:8080/datasets/evaleval/EEE_datastore/blob/main/{YI}", None),
        (f"{HUB}/evaleval/EEE_datastore/blob/main/{YI}", None),  # a model repo's URL
        (f"{HUB}/datasets/evaleval/EEE_datastore/tree/main/{YI}", None),
    ],
)  # fmt: skip
def test_record_links_in_the_hubs_url_forms(
    url: str, expected: tuple[str, str, str] | None
) -> None:
    link = record_link(url, HUB, TRUSTED)
    assert (None if link is None else (link.repo_id, link.revision, link.path)) == expected


def test_the_emulators_host_as_hf_endpoint_names_it() -> None:
    url = f"http://127.0.0.1:8080/datasets/evaleval/EEE_datastore/blob/main/{YI}"
    assert record_link(url, "http://127.0.0.1:8080", TRUSTED) is not None
    assert record_link(url, "http://127.0.0.1:8081", TRUSTED) is None


@pytest.mark.parametrize(
    ("value", "score", "expected"),
    [
        (52.29, 52.29, True),
        (52.3, 52.29, True),  # written to one decimal
        (52, 52.29, True),
        (52.2, 52.29, False),
        (96.8, 48.8, False),
        (27.43, 27.430000000000003, True),  # the float the converter's * 100 gives
        (0.5, 0.25, False),
        (12.5, 12.45, True),  # half up
        (12.4, 12.45, True),  # half even
    ],
)
def test_a_value_agrees_to_the_digits_written(value: float, score: float, expected: bool) -> None:
    assert agrees(value, score) is expected


def test_a_proportion_is_accepted_on_either_scale_when_the_benchmark_states_none(
    benchmarks: DirectoryBenchmarkSource,
) -> None:
    content = tampered(CONVERTER_OUTPUT, "value: 52.29", "value: 0.5229")
    (entry,) = checked(content, benchmarks, "01-ai/yi-1.5-34b-chat").entries
    assert entry.ok
    assert entry.source is not None
    assert entry.source.status is SourceStatus.CHECKED
