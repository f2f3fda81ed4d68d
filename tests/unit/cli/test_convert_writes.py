"""What `evalbot convert` writes into files people edit: `--out` keeps what they wrote and
says what it added or replaced, its entries pass `validate --strict`, and `--write-mappings`
adds the suggested rows, marked where a person must complete them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.cli import main
from bot.convert.mapping import MappingError, parse_mappings
from bot.validation.yamlload import load_yaml
from tests.conftest import REPO_ROOT

BENCHMARKS = str(REPO_ROOT / "examples" / "benchmarks")
SAMPLES = REPO_ROOT / "tests" / "samples"
#: a real EvalScope report of `gpqa_diamond` (tests/samples/convert/README.md)
EVALSCOPE_GPQA = SAMPLES / "convert" / "evalscope" / "qwen3-max" / "gpqa_diamond.json"
#: a real lm-eval 0.4.9.2 file of two tasks no row maps, on a dataset with no benchmark
LM_EVAL = SAMPLES / "real-world" / "lm-eval" / "results_2026-01-21T03-44-18.458309.json"
#: a real lm-eval 0.4 run of `gsm8k_cot_llama` (openai/gsm8k, mapped) and its other metric
LLAMA = (
    SAMPLES
    / "convert"
    / "lm-eval"
    / "Meta-Llama-3-8B-Instruct_results_2024-08-25T21-59-12.123082.json"
)

HAND_WRITTEN = (
    b"# my results, edited by hand\r\n"
    b"- dataset:\r\n"
    b"    id: Idavidrein/gpqa   # GPQA\r\n"
    b"    task_id: main\r\n"
    b"  value: 5.2\r\n"
    b'  notes: "on"   # quoted on purpose\r\n'
    b"- dataset:\r\n"
    b"    id: Idavidrein/gpqa\r\n"
    b"    task_id: diamond\r\n"
    b"  value: 1.0\r\n"
    b"  notes: EvalScope gpqa_diamond\r\n"
    b"# the end\r\n"
)


def test_out_keeps_what_people_wrote_and_says_what_it_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: the file rewritten whole, its comments dropped, `"on"` re-quoted as `'on'`, LF
    line ends, and nothing said about the entry replaced."""
    results = tmp_path / "model" / ".eval_results"
    results.mkdir(parents=True)
    (results / "gpqa.yaml").write_bytes(HAND_WRITTEN)
    args = ["convert", str(EVALSCOPE_GPQA), "--benchmarks", BENCHMARKS]
    assert main([*args, "--out", str(tmp_path / "model")]) == 0
    err = capsys.readouterr().err
    written = (results / "gpqa.yaml").read_bytes()
    # the first entry and every comment kept byte for byte, CRLF included
    head = HAND_WRITTEN.split(b"- dataset:\r\n    id: Idavidrein/gpqa\r\n    task_id: diamond")[0]
    assert written.startswith(head)
    assert written.endswith(b"# the end\r\n")
    assert b"\n" not in written.replace(b"\r\n", b"")
    assert [entry["value"] for entry in load_yaml(written).data] == [5.2, 90.0]
    assert (
        f"wrote {results / 'gpqa.yaml'}: replaced entry 2 (Idavidrein/gpqa diamond, notes"
        " 'EvalScope gpqa_diamond')" in err
    )


def test_out_adds_after_the_last_entry_in_the_files_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    shutil.copytree(REPO_ROOT / "examples" / "model-good", model)
    before = model / ".eval_results" / "gsm8k.yaml"
    assert not before.exists()
    gpqa = model / ".eval_results" / "gpqa.yaml"
    original = gpqa.read_bytes()
    assert (
        main(["convert", str(EVALSCOPE_GPQA), "--benchmarks", BENCHMARKS, "--out", str(model)]) == 0
    )
    assert "added 1 entry (Idavidrein/gpqa diamond, notes 'EvalScope gpqa_diamond')" in (
        capsys.readouterr().err
    )
    written = gpqa.read_bytes()
    assert written.startswith(original)
    assert written[len(original) :].startswith(b"- dataset:\n    id: Idavidrein/gpqa\n")


def test_what_convert_writes_passes_validate_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: the EvalScope entry on GPQA carried `framework: {name: evalscope}`, which GPQA's
    binding to inspect-ai flags (ENTRY-FRAMEWORK-MISMATCH), so `validate --strict` failed on
    a file evalbot wrote."""
    model = tmp_path / "model"
    assert (
        main(["convert", str(EVALSCOPE_GPQA), "--benchmarks", BENCHMARKS, "--out", str(model)]) == 0
    )
    err = capsys.readouterr().err
    assert "Idavidrein/gpqa's leaderboard is bound to `inspect-ai`" in err
    assert "written without `framework`" in err
    status = main(["validate", str(model), "--benchmarks", BENCHMARKS, "--strict"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 errors, 0 warnings" in out
    [entry] = load_yaml((model / ".eval_results" / "gpqa.yaml").read_bytes()).data
    assert "framework" not in entry
    assert entry["notes"] == "EvalScope gpqa_diamond"


def test_the_framework_is_kept_where_the_benchmark_is_not_bound_to_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "model"
    assert main(["convert", str(LLAMA), "--benchmarks", BENCHMARKS, "--out", str(model)]) == 0
    assert "written without" not in capsys.readouterr().err
    [entry] = load_yaml((model / ".eval_results" / "gsm8k.yaml").read_bytes()).data
    assert entry["framework"] == {"name": "lm-eval"}


def test_write_mappings_creates_the_file_with_rows_to_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "config" / "rows.yaml"
    args = ["convert", str(LM_EVAL), "--benchmarks", BENCHMARKS, "--write-mappings", str(rows)]
    assert main(args) == 1  # nothing mapped yet: nothing converted
    err = capsys.readouterr().err
    assert f"{rows}: added 2 row(s), 2 to complete where marked TODO(evalbot)" in err
    text = rows.read_text()
    assert text.count("# TODO(evalbot): set the benchmark, task_id, scale") == 2
    assert (
        '  - {framework: lm-eval, task: math_perturbed_full, metric: "exact_match,none",'
        ' benchmark: "<org/name>"' in text
    )
    # never used as it is: the reader refuses the placeholders, naming each line
    with pytest.raises(MappingError, match=r"rows.yaml:\d+: `benchmark` is still the placeholder"):
        parse_mappings("rows.yaml", rows.read_bytes())
    # a second run adds nothing
    assert main(args) == 1
    assert f"{rows}: no row added (2 already there)" in capsys.readouterr().err


def test_write_mappings_merges_into_a_file_keeping_its_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "rows.yaml"
    mine = (
        b"# my own rows\n"
        b"mappings:\n"
        b"  - framework: lm-eval   # block style, as I like it\n"
        b"    task: my_task\n"
        b"    metric: 'acc,none'\n"
        b"    benchmark: openai/gsm8k\n"
        b"    task_id: gsm8k\n"
        b"    scale: percent\n"
        b"# more to come\n"
    )
    rows.write_bytes(mine)
    args = ["convert", str(LLAMA), "--benchmarks", BENCHMARKS, "--all-suggestions"]
    assert main([*args, "--write-mappings", str(rows)]) == 0
    capsys.readouterr()
    text = rows.read_bytes()
    assert text.startswith(mine[: mine.index(b"# more to come")])
    assert text.endswith(b"# more to come\n")
    # the other metric of the converted task, in the file's own block layout; its benchmark
    # is for a person to set (the output records `dataset_path: gsm8k`, not a Hub id)
    assert text[len(mine) - len(b"# more to come\n") :] == (
        b"  # TODO(evalbot): set the benchmark, task_id, scale (see its eval.yaml)\n"
        b"  - framework: lm-eval\n"
        b"    task: gsm8k_cot_llama\n"
        b'    metric: "exact_match,flexible-extract"\n'
        b'    benchmark: "<org/name>"\n'
        b'    task_id: "<task id from its eval.yaml>"\n'
        b'    scale: "<fraction|percent>"\n'
        b"# more to come\n"
    )
    with pytest.raises(MappingError, match=r"rows.yaml:13: `benchmark` is still the placeholder"):
        parse_mappings("rows.yaml", text)
