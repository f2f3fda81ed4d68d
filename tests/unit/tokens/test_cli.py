"""The framework author's flow, end to end through the real CLI: keys, claims, sign, verify."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.issuers_file import registry_for_cli
from bot.botconfig.document import ConfigError
from bot.botconfig.files import working_bot_config
from bot.cli import main
from bot.cli.validate import parse_at
from bot.tokens.claims import ClaimsUnavailable, claims_for_entry
from bot.tokens.issuers import IssuerRegistry
from bot.tokens.offline import verify_offline
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import Verification, VerificationStatus
from tests.support.tokens import (
    GPQA,
    LIVE_FILE,
    MODEL_REPO,
    NOW,
    TARGET_FILE,
    entries_from_yaml,
    entry_report,
    file_report,
)

ISSUER = "https://tokens.example.org"


def generate_key(tmp_path: Path, capsys: pytest.CaptureFixture[str], kid: str = "k1") -> Any:
    private = tmp_path / f"{kid}.pem"
    assert main(["keys", "generate", "--kid", kid, "--out-private", str(private)]) == 0
    jwk = json.loads(capsys.readouterr().out)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    return private, jwk


def sign_with_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], private: Path, claims: dict[str, Any]
) -> str:
    claims_file = tmp_path / "claims.json"
    claims_file.write_text(json.dumps(claims))
    status = main(
        [
            "token",
            "sign",
            "--key",
            str(private),
            "--issuer",
            ISSUER,
            "--kid",
            "k1",
            "--claims",
            str(claims_file),
            "--subject",
            "ci:acme/evals",
            "--issued-at",
            str(NOW - 60),
        ]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out.strip()


def test_generate_claims_sign_and_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private, jwk = generate_key(tmp_path, capsys)
    assert (jwk["kty"], jwk["crv"], jwk["kid"]) == ("OKP", "Ed25519", "k1")
    assert "d" not in jwk
    issuers = tmp_path / "issuers.yaml"
    issuers.write_text(
        json.dumps({"issuers": [{"issuer": ISSUER, "keys": [jwk], "frameworks": ["inspect-ai"]}]})
    )

    data = entries_from_yaml(TARGET_FILE)[0]
    validated = file_report(".eval_results/hle.yaml", entry_report(data))
    claims = claims_for_entry(validated, 0, model_repo=MODEL_REPO)
    token = sign_with_cli(tmp_path, capsys, private, claims)

    published = file_report(".eval_results/hle.yaml", entry_report(data, token=token))
    verify_offline(
        [published],
        model_repo=MODEL_REPO,
        registry=registry_for_cli(issuers, ()),
        at=parse_at(datetime.fromtimestamp(NOW, tz=UTC).isoformat()),
    )
    assert published.entries[0].verification == Verification(VerificationStatus.VERIFIED)

    verify_offline([published], model_repo=None, registry=registry_for_cli(issuers, ()))
    assert published.entries[0].verification.reason == "model-repo-unknown"


def test_keys_generate_refuses_to_overwrite_and_bad_kids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private, _ = generate_key(tmp_path, capsys)
    before = private.read_bytes()
    assert main(["keys", "generate", "--kid", "k1", "--out-private", str(private)]) == 2
    assert "exists" in capsys.readouterr().err
    assert private.read_bytes() == before
    assert main(["keys", "generate", "--kid", "../x", "--out-private", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()
    args = ["keys", "generate", "--kid", "k1", "--out-private", str(private), "--force"]
    assert main(args) == 0
    assert private.read_bytes() != before


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        ([1, 2], "JSON object"),
        ({"iss": "https://evil"}, "registered claims"),
        ({"model_repo": "a/b", "colour": "red"}, "unknown content claims"),
        ({"model_repo": "a/b"}, "missing content claims"),
    ],
)
def test_token_sign_refuses_claims_the_verifier_would_refuse(
    claims: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    private, _ = generate_key(tmp_path, capsys)
    claims_file = tmp_path / "claims.json"
    claims_file.write_text(json.dumps(claims))
    args = ["token", "sign", "--key", str(private), "--issuer", ISSUER, "--kid", "k1"]
    assert main([*args, "--claims", str(claims_file)]) == 2
    assert message in capsys.readouterr().err
    claims_file.write_text('{"model_repo": "a/b", "model_repo": "c/d"}')
    assert main([*args, "--claims", str(claims_file)]) == 2


def test_token_sign_refuses_claims_nested_past_what_python_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A claims file of 100,000 nested arrays: an error naming the claims, not a traceback."""
    private, _ = generate_key(tmp_path, capsys)
    claims_file = tmp_path / "claims.json"
    claims_file.write_text("[" * 100_000 + "]" * 100_000)
    args = ["token", "sign", "--key", str(private), "--issuer", ISSUER, "--kid", "k1"]
    assert main([*args, "--claims", str(claims_file)]) == 2
    assert "claims: values nested deeper than Python reads" in capsys.readouterr().err


def test_claims_for_live_entries_need_a_framework_name() -> None:
    live = entries_from_yaml(LIVE_FILE)[0]
    validated = file_report("x.yaml", entry_report(live, benchmark=GPQA))
    with pytest.raises(ClaimsUnavailable, match="states no framework"):
        claims_for_entry(validated, 0, model_repo=MODEL_REPO)
    claims = claims_for_entry(validated, 0, model_repo=MODEL_REPO, framework="lighteval")
    assert claims["framework"] == {"name": "lighteval"}
    assert list(claims) == [
        "model_repo",
        "benchmark_repo",
        "task_id",
        "metrics",
        "framework",
        "digest",
    ]
    with pytest.raises(IndexError):
        claims_for_entry(validated, 3, model_repo=MODEL_REPO)


def test_claims_refuse_entries_with_errors_or_another_framework() -> None:
    data = entries_from_yaml(TARGET_FILE)[0]
    report = entry_report(data)
    validated = file_report("x.yaml", report)
    with pytest.raises(ClaimsUnavailable, match="states framework"):
        claims_for_entry(validated, 0, model_repo=MODEL_REPO, framework="lighteval")
    report.diagnostics.append(Diagnostic("metric-unknown", Severity.ERROR, "no such metric"))
    with pytest.raises(ClaimsUnavailable, match="metric-unknown"):
        claims_for_entry(validated, 0, model_repo=MODEL_REPO)


def test_registry_for_cli_falls_back_to_the_working_directory_then_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert (
        registry_for_cli(None, working_bot_config().issuers).issuers == ()
    )  # the packaged default trusts no one
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "bot.yaml").write_text(
        "maintainers: []\n"
        "issuers:\n  - issuer: https://wd.example\n    jwks_url: https://wd.example/jwks\n"
        "    frameworks: [inspect-ai]\n"
    )
    assert registry_for_cli(None, working_bot_config().issuers).issuers == ("https://wd.example",)
    with pytest.raises(FileNotFoundError):
        registry_for_cli(tmp_path / "missing.yaml", ())
    (tmp_path / "issuers.yaml").write_text("issuers: []\n")
    assert isinstance(registry_for_cli(tmp_path / "issuers.yaml", ()), IssuerRegistry)
    (tmp_path / "config" / "issuers.yaml").write_text("issuers: []\n")
    with pytest.raises(ConfigError, match=r"under `issuers:` in bot\.yaml"):
        # left in the working directory's config/, not ignored
        registry_for_cli(None, working_bot_config().issuers)
