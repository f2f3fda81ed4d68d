"""`evalbot submit` with a framework's output: told from a results YAML, and refused before
any issuer or Hub call wherever `evalbot convert` would write nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.submit import is_results_yaml
from tests.conftest import REPO_ROOT

EXAMPLES = str(REPO_ROOT / "examples" / "benchmarks")
REAL_LM_EVAL = (
    REPO_ROOT / "tests/samples/real-world/lm-eval/results_2026-01-21T03-44-18.458309.json"
)
PARTIAL = REPO_ROOT / "tests/samples/convert/evalscope/gsm8k_partial.json"
#: Nothing listens on the discard port: a test that reached the issuer would fail loudly.
NOWHERE = "http://127.0.0.1:9"


@pytest.mark.parametrize(
    ("name", "source_format", "expected"),
    [
        ("results.yaml", None, True),
        ("results.YML", None, True),
        ("results_2026.json", None, False),
        ("log.eval", None, False),
        ("results.json", "results", True),
        ("results.yaml", "lm-eval", False),
    ],
)
def test_a_results_yaml_is_told_by_suffix_or_by_from(
    name: str, source_format: str | None, expected: bool
) -> None:
    assert is_results_yaml(Path(name), source_format) is expected


def submit(*argv: str) -> int:
    return main(["submit", *argv, "--model-repo", "alice/model", "--issuer", NOWHERE])


def test_unmapped_tasks_are_refused_with_the_row_to_add(capsys: pytest.CaptureFixture[str]) -> None:
    assert submit(str(REAL_LM_EVAL), "--benchmarks", EXAMPLES) == 1
    err = capsys.readouterr().err
    assert (
        '  - {framework: "lm-eval", task: "math_perturbed_full", metric: "exact_match,none", '
        "benchmark: <org/name>, task_id: <task id from its eval.yaml>, "
        "scale: <fraction|percent>}" in err
    )
    assert err.rstrip().endswith(
        f"evalbot submit: {REAL_LM_EVAL}: no score is mapped: nothing to submit"
    )


def test_a_partial_run_submits_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert submit(str(PARTIAL), "--benchmarks", EXAMPLES) == 1
    err = capsys.readouterr().err
    assert f"error: {PARTIAL}: not every sample was scored" in err
    assert err.rstrip().endswith(f"evalbot submit: {PARTIAL}: nothing submitted")


def test_a_mapping_file_that_does_not_parse_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "rows.yaml"
    rows.write_text("mappings:\n  - {framework: lm-eval}\n")
    assert submit(str(REAL_LM_EVAL), "--benchmarks", EXAMPLES, "--mappings", str(rows)) == 2
    assert "rows.yaml" in capsys.readouterr().err


def test_an_unknown_converter_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert submit(str(REAL_LM_EVAL), "--benchmarks", EXAMPLES, "--from", "nosuch") == 2
    assert "nosuch" in capsys.readouterr().err


def test_a_missing_output_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert submit(str(tmp_path / "results.json"), "--benchmarks", EXAMPLES) == 2
    assert "results.json" in capsys.readouterr().err


def test_a_results_yaml_is_read_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "results.yaml"
    broken.write_text("{not: a list}\n")
    assert submit(str(broken)) == 2
    assert "expected a list of result entries" in capsys.readouterr().err


@pytest.mark.parametrize(
    "issuer",
    [
        "http://tokens.example.org",
        "http://10.1.2.3:8100",
        "HTTP://tokens.example.org",
        "http://[::1]@tokens.example.org",
        "http://127.0.0.1.tokens.example.org",
        "http://localhost.tokens.example.org",
    ],
)
def test_an_issuer_over_plain_http_is_refused_before_anything_is_sent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], issuer: str
) -> None:
    """The job's identity would travel in clear (plain http was accepted)."""
    results = tmp_path / "results.yaml"
    results.write_text("- {dataset: {id: a/b, task_id: t}, value: 1}\n")
    status = main(["submit", str(results), "--model-repo", "alice/model", "--issuer", issuer])
    assert status == 2
    assert "is not https" in capsys.readouterr().err


def test_a_refused_issuer_url_is_shown_without_its_credentials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.yaml"
    results.write_text("- {dataset: {id: a/b, task_id: t}, value: 1}\n")
    issuer = "http://ci:s3cret@tokens.example.org"
    status = main(["submit", str(results), "--model-repo", "alice/model", "--issuer", issuer])
    assert status == 2
    err = capsys.readouterr().err
    assert "is not https" in err
    assert "s3cret" not in err


def test_several_outputs_are_one_submission_and_each_refusal_names_its_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A shell glob over two outputs (`out/*/results_*.json`) is no usage error: every file
    is converted, and every refused one is named before anything reaches the issuer."""
    assert submit(str(REAL_LM_EVAL), str(PARTIAL), "--benchmarks", EXAMPLES) == 1
    err = capsys.readouterr().err
    assert f"evalbot submit: {REAL_LM_EVAL}: no score is mapped: nothing to submit" in err
    assert f"evalbot submit: {PARTIAL}: nothing submitted" in err
    assert err.rstrip().endswith(f"evalbot submit: refused: {REAL_LM_EVAL}, {PARTIAL}")
    assert err.count("mapping table: ") == 1  # one table for all the files


@pytest.mark.parametrize(
    ("environ", "resource"),
    [
        (
            {"GITHUB_ACTIONS": "true", "ACTIONS_ID_TOKEN_REQUEST_URL": "http://127.0.0.1:9/t"},
            "alice/model",
        ),
        ({"HF_OIDC_ID_TOKEN": "eyJ..."}, "alice/model"),  # another provider's ID token
        ({"GITHUB_ACTIONS": "true", "ACTIONS_ID_TOKEN_REQUEST_URL": "u", "HF_TOKEN": "hf_x"}, None),
        ({"HF_OIDC_RESOURCE": "alice/other", "HF_OIDC_ID_TOKEN": "eyJ..."}, "alice/other"),
        ({}, None),  # not in CI: nothing to exchange
    ],
)
def test_a_job_without_hf_token_uses_trusted_publishers(
    environ: dict[str, str], resource: str | None
) -> None:
    from bot.cli.submit import trusted_publishing

    trusted_publishing(environ, "alice/model")
    assert environ.get("HF_OIDC_RESOURCE") == resource


def test_hf_token_wins_and_a_resource_for_another_repo_is_refused() -> None:
    from bot.submit import SubmitError
    from bot.submit.api import hub_token

    assert hub_token(None, {"HF_TOKEN": "hf_x", "HF_OIDC_RESOURCE": "a/b"}, "a/b") == "hf_x"
    assert hub_token(None, {}, "a/b") is False
    with pytest.raises(SubmitError, match="HF_OIDC_RESOURCE is 'a/c' but the model repo is 'a/b'"):
        hub_token(None, {"HF_OIDC_RESOURCE": "a/c"}, "a/b")


# --- `--dry-run` with what a framework author has: no issuer, maybe no Hub -----------------

LM_EVAL_ROWS = REPO_ROOT / "tests/samples/convert/mappings/lm-eval-math-to-hle-mini.yaml"
EMULATOR_BENCHMARKS = str(REPO_ROOT / "evalbot_dev/emulator/samples/benchmarks")
HLE_FILE = ".eval_results/hle_mini.yaml"
ENTRY = (
    "- dataset: {id: emulator-samples/hle-mini, task_id: hle, revision: " + "b" * 40 + "}\n"
    "  model_revision: " + "a" * 40 + "\n"
    "  metrics: [{metric_id: accuracy, value: 41.5}]\n"
    "  notes: {notes}\n"
)


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """`HF_HUB_OFFLINE=1` as huggingface_hub reads it: any Hub request raises, none is sent."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.delenv("EVALBOT_ISSUER_URL", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)


def results_file(folder: Path, notes: str = "this run") -> Path:
    path = folder / "results.yaml"
    path.write_text(ENTRY.replace("{notes}", notes))
    return path


def dry_run(*argv: str) -> int:
    return main(["submit", *argv, "--model-repo", "alice/model", "--dry-run"])


@pytest.mark.usefixtures("offline")
def test_an_offline_dry_run_asks_no_issuer_and_says_mains_file_was_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dry_run(str(results_file(tmp_path))) == 0
    out, err = capsys.readouterr()
    header, *body = out.splitlines()
    assert (
        header == f"# {HLE_FILE}: only the entries this submission adds; main's file was not read"
    )
    assert '  notes: "this run"' in body
    assert '  verify_token: "<issued by the issuer when submitted>"' in body
    assert err.strip() == (
        f"evalbot submit: HF_HUB_OFFLINE is set: main's {HLE_FILE} was not read, so it is "
        "shown as the new entries only, not as the PR would hold it; --base FILE merges them "
        "into a copy of it"
    )


@pytest.mark.usefixtures("offline")
def test_an_offline_dry_run_of_a_framework_output_with_benchmarks_from_a_folder(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = dry_run(
        str(REAL_LM_EVAL), "--benchmarks", EMULATOR_BENCHMARKS, "--mappings", str(LM_EVAL_ROWS)
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out.startswith(f"# {HLE_FILE}: only the entries this submission adds")
    assert out.count('revision: "<the benchmark\'s commit on main when submitted>"') == 2
    assert "Traceback" not in err


@pytest.mark.usefixtures("offline")
def test_a_framework_output_offline_without_benchmarks_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert dry_run(str(REAL_LM_EVAL), "--mappings", str(LM_EVAL_ROWS)) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"evalbot submit: {REAL_LM_EVAL}: cannot read its benchmarks")
    assert "HF_HUB_OFFLINE is set" in last
    assert last.endswith("or pass --benchmarks DIR to read them from a folder")


@pytest.mark.usefixtures("offline")
def test_a_base_is_merged_into_as_main_would_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "hle_mini.yaml").write_text("# main's comment\n" + ENTRY.replace("{notes}", "main"))
    argv = [str(results_file(tmp_path)), "--base", str(copy / "hle_mini.yaml")]
    assert dry_run(*argv) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"# {HLE_FILE}\n# main's comment\n- dataset:")
    assert out.index("notes: main") < out.index('notes: "this run"')
    assert err == ""
    # The same results as main's: refused as they would be against main, naming the base.
    (copy / "hle_mini.yaml").write_text(ENTRY.replace("{notes}", "this run"))
    assert dry_run(*argv) == 1
    assert f"{HLE_FILE} (its base) on main already has results" in capsys.readouterr().err


@pytest.mark.usefixtures("offline")
def test_a_base_named_after_no_proposed_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "main.yaml"
    other.write_text("[]\n")
    assert dry_run(str(results_file(tmp_path)), "--base", str(other)) == 2
    err = capsys.readouterr().err
    assert "--base: the base given for .eval_results/main.yaml stands for no file" in err
    assert HLE_FILE in err


def test_a_base_is_for_a_dry_run_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "hle_mini.yaml"
    base.write_text("[]\n")
    assert submit(str(results_file(tmp_path)), "--base", str(base)) == 2
    assert "--base is for --dry-run only" in capsys.readouterr().err


@pytest.mark.usefixtures("offline")
def test_a_submission_needs_an_issuer_a_dry_run_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(results_file(tmp_path))
    assert main(["submit", path, "--model-repo", "alice/model"]) == 2
    assert "pass --issuer URL or set EVALBOT_ISSUER_URL (a --dry-run needs no issuer)" in (
        capsys.readouterr().err
    )
    assert dry_run(path) == 0


@pytest.mark.usefixtures("offline")
def test_an_offline_submission_stops_before_the_issuer_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert submit(str(results_file(tmp_path))) == 2
    assert capsys.readouterr().err == (
        "evalbot submit: HF_HUB_OFFLINE is set, so the Hub is not asked and no PR can be "
        "opened; unset HF_HUB_OFFLINE (a dry run works offline)\n"
    )
