"""A framework author's whole flow through the real command line, ending in `evalbot validate`.

keys generate -> token claims -> token sign -> the token in the results file -> validate with
--issuers, --model-repo and --at: verified; the same token judged after it expired, on another
repo, or after the value changed: unverified with the documented reason.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.conftest import REPO_ROOT

BENCHMARKS = str(REPO_ROOT / "examples" / "benchmarks")
ISSUER = "https://tokens.example.org"
MODEL_REPO = "google/gemma-4-12B-it"
ISSUED_AT = 1_790_000_000  # 2026-09-21T14:13:20Z
RESULT = """\
- dataset:
    id: MathArena/aime_2026
    task_id: aime_2026
  framework:
    name: math-arena
    version: "0.3.1"
  metrics:
    - metric_id: accuracy
      value: 61.70
"""


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out


@pytest.fixture
def signed_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A model repo folder whose only entry carries a freshly signed token, and the issuers."""
    private = tmp_path / "k1.pem"
    status, out = run_cli(capsys, "keys", "generate", "--kid", "k1", "--out-private", str(private))
    assert status == 0
    issuers = tmp_path / "issuers.yaml"
    entry = {"issuer": ISSUER, "keys": [json.loads(out)], "frameworks": ["math-arena"]}
    issuers.write_text(json.dumps({"issuers": [entry]}))

    results = tmp_path / "repo" / ".eval_results" / "aime_2026.yaml"
    results.parent.mkdir(parents=True)
    results.write_text(RESULT)
    claims_args = ["--model-repo", MODEL_REPO, "--benchmarks", BENCHMARKS]
    status, claims = run_cli(capsys, "token", "claims", str(results), *claims_args)
    assert status == 0
    claims_file = tmp_path / "claims.json"
    claims_file.write_text(claims)
    status, token = run_cli(
        capsys,
        "token", "sign", "--key", str(private), "--issuer", ISSUER, "--kid", "k1",
        "--claims", str(claims_file), "--issued-at", str(ISSUED_AT), "--lifetime", "900",
    )  # fmt: skip
    assert status == 0
    results.write_text(RESULT + f"  verify_token: {token.strip()}\n")
    return results.parent.parent, issuers


def verification(
    capsys: pytest.CaptureFixture[str], repo: Path, issuers: Path, *extra: str
) -> dict[str, Any]:
    status, out = run_cli(
        capsys, "validate", str(repo), "--benchmarks", BENCHMARKS, "--issuers", str(issuers),
        "--format", "json", *extra,
    )  # fmt: skip
    assert status == 0, out  # an unverified token never makes the file fail
    entry: dict[str, Any] = json.loads(out)["files"][0]["entries"][0]
    return entry


def test_signed_entry_is_verified(
    signed_repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, issuers = signed_repo
    entry = verification(
        capsys, repo, issuers, "--model-repo", MODEL_REPO, "--at", "2026-09-21T14:20:00Z"
    )
    assert entry["verification"] == {"status": "verified", "reason": None}
    assert entry["badges"][0] == "verified"


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (("--model-repo", MODEL_REPO, "--at", "2026-09-22"), "expired"),
        (("--model-repo", "someone/else", "--at", "2026-09-21T14:20:00Z"), "claim-mismatch"),
        (("--at", "2026-09-21T14:20:00Z"), "model-repo-unknown"),
    ],
)
def test_token_judged_elsewhere_is_unverified(
    signed_repo: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    extra: tuple[str, ...],
    reason: str,
) -> None:
    repo, issuers = signed_repo
    entry = verification(capsys, repo, issuers, *extra)
    assert entry["verification"]["status"] == "unverified"
    assert entry["verification"]["reason"].startswith(reason)
    assert "community" in entry["badges"]


def test_changed_value_breaks_the_token(
    signed_repo: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo, issuers = signed_repo
    copy = tmp_path / "edited"
    shutil.copytree(repo, copy)
    results = copy / ".eval_results" / "aime_2026.yaml"
    results.write_text(results.read_text().replace("61.70", "71.70"))
    entry = verification(
        capsys, copy, issuers, "--model-repo", MODEL_REPO, "--at", "2026-09-21T14:20:00Z"
    )
    assert entry["verification"]["status"] == "unverified"
    assert entry["verification"]["reason"].startswith("claim-mismatch")


def test_unreadable_issuers_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    issuers = tmp_path / "issuers.yaml"
    issuers.write_text("issuers: [{issuer: 12}]\n")
    status = main(
        ["validate", str(REPO_ROOT / "examples" / "model-good"), "--issuers", str(issuers)]
    )
    assert status == 2
    assert "issuers.yaml" in capsys.readouterr().err
