"""`evalbot issuer identity`: the rule printed from a job's ID token pins its ids, loads as an
integration rule, matches that job, and never echoes the token."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.issuer.identity import Identity
from bot.issuer.integrations import load_integrations
from bot.issuer.rules import ClaimsUnreadable, identity_rule, read_claims
from evalbot_dev.devstack.oidc import LocalOidcProvider, Workflow

GITLAB = {
    "iss": "https://gitlab.com",
    "namespace_id": "72",
    "namespace_path": "acme",
    "project_id": "20",
    "project_path": "acme/evals",
    "ci_config_ref_uri": "gitlab.com/acme/evals//.gitlab-ci.yml@refs/heads/main",
    "pipeline_source": "push",
    "sub": "project_path:acme/evals:ref_type:branch:ref:main",
}


def test_a_github_token_gives_a_rule_with_both_ids_that_matches_its_job(tmp_path: Path) -> None:
    workflow = Workflow(repository_owner_id="583231", repository_id="1296269")
    with LocalOidcProvider(workflow=workflow) as provider:
        token = provider.mint("evalbot-identity")
    rule = identity_rule(read_claims(token))
    assert '    repository_owner_id: "583231"  # acme\n' in rule
    assert '    repository_id: "1296269"  # acme/evals\n' in rule
    assert token not in rule
    config = tmp_path / "integrations.yaml"
    config.write_text(
        "providers:\n  - name: github\n    issuer: https://token.actions.githubusercontent.com\n"
        "integrations:\n  - name: x\n    frameworks: [a]\n"
        '    benchmarks: ["*"]\n    models: ["*"]\n    identities:\n'
        + "".join(f"      {line}\n" for line in rule.splitlines())
    )
    loaded = load_integrations(config)
    claims = read_claims(token)
    job = Identity(kind="oidc", name=claims["sub"], provider="github", claims=claims)
    assert loaded.match(job) is not None


def test_a_run_of_an_event_only_named_rules_vouch_for_gets_a_rule_naming_it() -> None:
    workflow = Workflow(repository_owner_id="583231", repository_id="1296269")
    with LocalOidcProvider(workflow=workflow) as provider:
        claims = read_claims(
            provider.mint("evalbot-identity", overrides={"event_name": "workflow_run"})
        )
        push = read_claims(provider.mint("evalbot-identity"))
    (rule,) = yaml.safe_load(identity_rule(claims))
    assert rule["claims"]["event_name"] == "workflow_run"
    assert rule["claims"]["job_workflow_ref"] == claims["job_workflow_ref"]
    (plain,) = yaml.safe_load(identity_rule(push))
    assert "event_name" not in plain["claims"]  # any other event: the rule need not name it


def test_a_gitlab_claims_object_gives_namespace_and_project_ids() -> None:
    rule = yaml.safe_load(identity_rule(read_claims(json.dumps(GITLAB)), "gitlab-com"))
    assert rule == [
        {
            "provider": "gitlab-com",
            "claims": {
                "namespace_id": "72",
                "project_id": "20",
                "project_path": "acme/evals",
                "ci_config_ref_uri": GITLAB["ci_config_ref_uri"],
            },
        }
    ]


@pytest.mark.parametrize("text", ["not a token", "[1, 2]", '{"sub": "x"}'])
def test_unreadable_input_is_refused(text: str) -> None:
    with pytest.raises(ClaimsUnreadable):
        identity_rule(read_claims(text))


def test_the_command_reads_stdin_or_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(GITLAB)))
    assert main(["issuer", "identity"]) == 0
    assert 'namespace_id: "72"  # acme' in capsys.readouterr().out
    garbage = tmp_path / "token"
    garbage.write_text("garbage")
    assert main(["issuer", "identity", str(garbage)]) == 2
    assert f"evalbot issuer identity: {garbage}: not an ID token" in capsys.readouterr().err
    assert main(["issuer", "identity", str(tmp_path / "missing")]) == 2


def test_a_claim_with_a_line_break_cannot_add_a_line_to_the_rule() -> None:
    claims = {**GITLAB, "namespace_path": "acme\n    project_id: '1'"}
    rule = identity_rule(claims)
    assert len(rule.splitlines()) == 7
    ((item,),) = [yaml.safe_load(rule)]
    assert item["claims"]["project_id"] == "20"


def test_a_file_given_to_serve_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["issuer", "serve", "token-file"]) == 2
    assert "for `identity` only" in capsys.readouterr().err
