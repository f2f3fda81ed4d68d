"""`evalbot validate` through `bot.cli.main`, and once as a real subprocess."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.sources import UsageError
from bot.cli.validate import ansi, parse_at
from bot.report.validation_formats import render_text
from bot.validation.validate import validate_benchmark_file
from evalbot_dev.devstack.waiting import free_port
from tests.conftest import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
BENCHMARKS = str(EXAMPLES / "benchmarks")
GOOD = str(EXAMPLES / "model-good")
BROKEN = str(EXAMPLES / "model-broken")
GPQA = b"- dataset:\n    id: Idavidrein/gpqa\n    task_id: diamond\n  value: 78.8\n"


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    status = main(["validate", *args, "--benchmarks", BENCHMARKS, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def write_repo(root: Path, files: dict[str, bytes]) -> Path:
    for name, content in files.items():
        path = root / ".eval_results" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return root


def test_good_example_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", GOOD, "--benchmarks", BENCHMARKS]) == 0
    out = capsys.readouterr().out
    assert "4 files, 5 entries: 0 errors, 0 warnings" in out
    assert "\033[" not in out  # not a terminal: no colours


def test_broken_example_fails_with_instructive_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", BROKEN, "--benchmarks", BENCHMARKS]) == 1
    out = capsys.readouterr().out
    for code in (
        "ENTRY-TASK-UNKNOWN",
        "ENTRY-VALUE-NOT-NUMBER",
        "ENTRY-METRIC-UNKNOWN",
        "YAML-DUPLICATE-KEY",
        "ENTRY-BENCHMARK-UNKNOWN",
    ):
        assert code in out
    assert "hint: did you mean `diamond`? Write `task_id: diamond`" in out


def test_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    status, document = run_json(capsys, BROKEN)
    assert status == 1
    assert set(document) == {"ok", "files"}
    assert document["ok"] is False
    files = document["files"]
    assert isinstance(files, list)
    for file in files:
        assert set(file) == {"path", "kind", "ok", "diagnostics", "entries"}
        assert file["kind"] == "results"
        for entry in file["entries"]:
            assert set(entry) == {
                "index", "line", "dataset_id", "task_id", "ok", "badges", "verification",
                "source", "diagnostics",
            }  # fmt: skip
            assert set(entry["verification"]) == {"status", "reason"}
            if entry["source"] is not None:
                assert set(entry["source"]) == {
                    "status", "url", "datastore", "revision", "path", "record_id", "reason",
                }  # fmt: skip
            for diagnostic in entry["diagnostics"]:
                assert set(diagnostic) == {
                    "code", "severity", "message", "line", "column", "field", "hub_path", "hint",
                    "fix",
                }  # fmt: skip
                # the Hub's notation: the entry's 0-based index, then the field
                field = diagnostic["field"]
                expected = f"[{entry['index']}]" + (f".{field}" if field else "")
                assert diagnostic["hub_path"] == expected
    gpqa = next(f for f in files if f["path"].endswith("gpqa.yaml"))
    first, second = gpqa["entries"]
    assert (first["index"], first["line"], first["ok"], first["badges"]) == (0, 2, False, [])
    assert first["verification"] == {"status": "absent", "reason": None}
    assert second["badges"] == ["community", "leaderboard"]
    hle = next(f for f in files if f["path"].endswith("hle.yaml"))
    assert hle["entries"] == []
    assert hle["diagnostics"][0]["code"] == "YAML-DUPLICATE-KEY"


def test_text_counts_entries_from_1_and_names_each_field_as_the_hub_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Entry numbers match the PR comment's (entry 1 is the first); every finding on a field
    names it, in the notation of the Hub's push-time errors (`[0].dataset.task_id`)."""
    assert main(["validate", BROKEN, "--benchmarks", BENCHMARKS]) == 1
    out = capsys.readouterr().out
    assert "  entry 1 (line 2) Idavidrein/gpqa / gpqa_diamond: invalid" in out
    assert "  entry 0 " not in out
    assert "ENTRY-TASK-UNKNOWN error [0].dataset.task_id: task `gpqa_diamond`" in out


def test_every_finding_line_starts_with_path_line_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`path:line:col: CODE ...` at the start of the line, as ruff and compilers print it, so
    terminals and editors open the file there; the hint on the line below."""
    import re

    assert main(["validate", BROKEN, "--benchmarks", BENCHMARKS]) == 1
    lines = capsys.readouterr().out.splitlines()
    findings = [line for line in lines if re.search(r" [A-Z]+(-[A-Z0-9]+)+ (error|warning) ", line)]
    assert len(findings) == 16  # 9 errors, 7 warnings
    gpqa = f"{BROKEN}/.eval_results/gpqa.yaml"
    for line in findings:
        assert re.match(r"\S+\.yaml:\d+:\d+: [A-Z0-9-]+ (error|warning) ", line), line
    task = f"{gpqa}:4:5: ENTRY-TASK-UNKNOWN error [0].dataset.task_id: task `gpqa_diamond`"
    assert any(line.startswith(task) for line in findings)
    after = lines[next(i for i, line in enumerate(lines) if line.startswith(task)) + 1]
    assert after == "  hint: did you mean `diamond`? Write `task_id: diamond`"


def test_json_for_a_benchmark_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "benchmarks" / "Idavidrein" / "gpqa" / "eval.yaml")
    status, document = run_json(capsys, path)
    assert status == 0
    assert document == {
        "ok": True,
        "files": [
            {"path": path, "kind": "benchmark", "ok": True, "diagnostics": [], "entries": []}
        ],
    }


def test_token_without_model_repo_stays_unverified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_repo(tmp_path, {"gpqa.yaml": GPQA + b"  verifyToken: a.b.c\n"})
    status, document = run_json(capsys, str(repo))
    assert status == 0
    entry = document["files"][0]["entries"][0]  # type: ignore[index]
    assert entry["verification"] == {"status": "unverified", "reason": "model-repo-unknown"}
    assert entry["badges"] == ["community", "leaderboard"]


def test_github_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = write_repo(tmp_path / "a,b:c", {"gpqa.yaml": GPQA.replace(b"diamond", b"Diamond")})
    status = main(["validate", str(repo), "--benchmarks", BENCHMARKS, "--format", "github"])
    assert status == 1
    (line,) = capsys.readouterr().out.splitlines()
    path = os.path.join(str(repo), ".eval_results", "gpqa.yaml")
    escaped = path.replace(":", "%3A").replace(",", "%2C")
    assert line.startswith(f"::error file={escaped},line=3,col=5,title=ENTRY-TASK-UNKNOWN::")
    assert "(hint: did you mean `diamond`? Write `task_id: diamond`)" in line


def test_strict_fails_on_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = write_repo(tmp_path, {"results.yaml": GPQA})  # FILE-NAME: a warning
    assert main(["validate", str(repo), "--benchmarks", BENCHMARKS]) == 0
    assert main(["validate", str(repo), "--benchmarks", BENCHMARKS, "--strict"]) == 1
    capsys.readouterr()
    status, document = run_json(capsys, str(repo), "--strict")
    assert status == 1
    assert document["ok"] is False


def test_files_named_one_by_one_are_grouped_by_repo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write_repo(tmp_path, {"gpqa.yaml": GPQA, "gpqa_copy.yaml": GPQA})
    files = [str(repo / ".eval_results" / name) for name in ("gpqa_copy.yaml", "gpqa.yaml")]
    status, document = run_json(capsys, *files)
    assert status == 1
    codes = [
        d["code"]
        for f in document["files"]  # type: ignore[attr-defined]
        for e in f["entries"]
        for d in e["diagnostics"]
    ]
    assert codes == ["ENTRY-DUPLICATE"]


def test_folder_with_an_eval_yaml_checks_the_benchmark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "eval.yaml").write_bytes(b"name: X\ndescription: Y\ntasks: []\n")
    assert main(["validate", str(tmp_path)]) == 1
    assert "BENCH-TASKS-EMPTY" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "/nonexistent/path"],
        ["validate", GOOD, "--benchmarks", "/nonexistent/dir"],
        ["validate", GOOD, "--benchmarks", BENCHMARKS, "--at", "yesterday"],
        ["validate", GOOD, "--benchmarks", BENCHMARKS, "--at", "2026-02-30"],
        ["validate", GOOD, "--benchmarks", BENCHMARKS, "--model-repo", "no-slash"],
        ["validate", GOOD, "--benchmarks", BENCHMARKS, "--issuers", "/nonexistent.yaml"],
        ["validate", str(REPO_ROOT / "bench")],
    ],
)
def test_usage_and_io_errors_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("evalbot validate: ")
    assert captured.out == ""


def test_bad_format_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", GOOD, "--format", "xml"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_valid_options_are_accepted(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["--model-repo", "google/gemma-4-12B-it", "--at", "2026-05-23T10:00:00+02:00"]
    (tmp_path / "issuers.yaml").write_text("issuers: []\n")
    issuers = ["--issuers", str(tmp_path / "issuers.yaml")]
    assert main(["validate", GOOD, "--benchmarks", BENCHMARKS, *args, *issuers]) == 0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-05-23", datetime.datetime(2026, 5, 23, tzinfo=datetime.UTC)),
        ("2026-05-23T10:30:00", datetime.datetime(2026, 5, 23, 10, 30, tzinfo=datetime.UTC)),
        ("2026-05-23T10:30:00Z", datetime.datetime(2026, 5, 23, 10, 30, tzinfo=datetime.UTC)),
        (
            "2026-05-23T10:30:00+02:00",
            datetime.datetime(2026, 5, 23, 8, 30, tzinfo=datetime.UTC),
        ),
    ],
)
def test_parse_at(value: str, expected: datetime.datetime) -> None:
    parsed = parse_at(value)
    assert parsed == expected
    assert parsed.tzinfo is not None


def test_parse_at_refuses_garbage() -> None:
    with pytest.raises(UsageError):
        parse_at("23/05/2026")


def test_colours_only_when_asked() -> None:
    report = validate_benchmark_file("eval.yaml", b"name: X\n")
    assert "\033[31m" in render_text([report], strict=False, paint=ansi)
    assert "\033[" not in render_text([report], strict=False)


@pytest.mark.parametrize(
    ("flag", "env", "coloured"),
    [
        ([], {}, False),  # not a terminal
        ([], {"FORCE_COLOR": "1"}, True),  # https://force-color.org
        ([], {"FORCE_COLOR": ""}, False),  # set but empty: not set
        ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # https://no-color.org wins
        (["--color", "always"], {"NO_COLOR": "1"}, True),  # the flag decides
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ],
)
def test_color_option_and_environment(
    flag: list[str], env: dict[str, str], coloured: bool, tmp_path: Path
) -> None:
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "validate", BROKEN, "--benchmarks", BENCHMARKS, *flag],
        capture_output=True,
        text=True,
        env=environ | env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert ("\033[31m" in done.stdout) is coloured


def test_validate_with_no_path_checks_the_current_folder(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(BROKEN)
    assert main(["validate", "--benchmarks", BENCHMARKS]) == 1
    out = capsys.readouterr().out
    assert "\n.eval_results/gpqa.yaml:4:5: ENTRY-TASK-UNKNOWN error" in out


def test_subprocess_against_an_unreachable_hub_exits_2(tmp_path: Path) -> None:
    """No --benchmarks: benchmarks come from HF_ENDPOINT; nothing listens there."""
    repo = write_repo(tmp_path / "repo", {"gpqa.yaml": GPQA})
    env = {
        **os.environ,
        "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}",
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
    }
    completed = subprocess.run(
        [sys.executable, "-m", "bot", "validate", str(repo)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert "could not read benchmarks from the Hub" in completed.stderr


def test_subprocess_good_example() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "bot", "validate", GOOD, "--benchmarks", BENCHMARKS],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.endswith("0 errors, 0 warnings\n")


def test_policy_in_the_working_directory_applies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_repo(tmp_path / "repo", {"results.yaml": GPQA})  # FILE-NAME: a warning
    (tmp_path / "config").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config" / "bot.yaml").write_bytes(b"policy:\n  errors: [FILE-NAME]\n")
    assert main(["validate", "repo", "--benchmarks", BENCHMARKS]) == 1
    (tmp_path / "config" / "bot.yaml").write_bytes(b"policy:\n  errors: [NO-SUCH-CODE]\n")
    assert main(["validate", "repo", "--benchmarks", BENCHMARKS]) == 2
    assert "config/bot.yaml:2: `policy.errors`: unknown diagnostic code" in capsys.readouterr().err


def test_every_problem_of_the_working_directory_s_bot_yaml_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_repo(tmp_path / "repo", {"results.yaml": GPQA})
    (tmp_path / "config").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config" / "bot.yaml").write_bytes(
        b"policy:\n  errors: [NO-SUCH-CODE]\nsource_datastores: evaleval\n"
    )
    assert main(["validate", "repo", "--benchmarks", BENCHMARKS]) == 2
    err = capsys.readouterr().err
    assert "config/bot.yaml:2: `policy.errors`: unknown diagnostic code" in err
    assert "config/bot.yaml:3: `source_datastores` must be a list" in err


def test_a_policy_file_left_in_the_working_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`config/policy.yaml` is no longer read: ignored, it would change the verdict."""
    write_repo(tmp_path / "repo", {"results.yaml": GPQA})
    (tmp_path / "config").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config" / "policy.yaml").write_bytes(b"errors: [FILE-NAME]\n")
    assert main(["validate", "repo", "--benchmarks", BENCHMARKS]) == 2
    err = capsys.readouterr().err
    assert "config/policy.yaml: policy.yaml is no longer read" in err
    assert "under `policy:` in bot.yaml" in err


def test_the_summary_counts_what_was_checked_by_kind(capsys: pytest.CaptureFixture[str]) -> None:
    """An eval.yaml and an Every Eval Ever record are not "0 entries"."""
    record = REPO_ROOT / "tests/samples/real-world/every_eval_ever"
    record /= "demo_f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
    bench = str(EXAMPLES / "benchmarks" / "Idavidrein" / "gpqa" / "eval.yaml")
    assert main(["validate", str(record), bench]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == "2 files, 1 benchmark, 1 EEE record: 0 errors, 0 warnings"
    assert main(["validate", BROKEN, "--benchmarks", BENCHMARKS]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("4 files, 5 entries: 9 errors")
