"""Every refusal of the issuer, over HTTP against the real process: the right status (never a
500), a generic answer with a request id that does not say which check failed, and an audit
line for that request id that does."""

from __future__ import annotations

import base64
import json
import socket
from concurrent.futures import ThreadPoolExecutor

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.issuer.audit import read_audit
from bot.issuer.integrations import EVENTS_NAMED_ONLY
from evalbot_dev.emulator.faults import RouteFault
from tests.integration.issuer.conftest import (
    CLIENT_ID,
    CLIENT_SECRET,
    GPQA,
    SIGNING_JOB,
    IssuerEnv,
    bearer,
    now,
    refused,
)
from tests.support.emulator import TOKENS

pytestmark = pytest.mark.integration


def test_a_valid_github_identity_gets_one_token_per_entry(env: IssuerEnv) -> None:
    response = env.post(bearer(env.id_token()), env.body(env.entry(), env.entry(notes="run 2")))
    assert response.status_code == 200, response.text
    tokens = response.json()["tokens"]
    assert [t["index"] for t in tokens] == [0, 1]
    claims = jwt.decode(tokens[0]["verify_token"], options={"verify_signature": False})
    assert claims["iss"] == env.issuer.url
    assert claims["sub"].startswith("github:repo:acme/evals:")
    assert claims["model_repo"] == "alice/model"
    assert claims["exp"] - claims["iat"] == 900
    audited = env.audited(response)
    assert audited["decision"] == "issued"
    assert audited["integration"] == "acme"
    assert "verify_token" not in json.dumps(audited)


def test_no_credentials(env: IssuerEnv) -> None:
    refused(env, env.post(None, env.body()), 401, "no-credentials")
    refused(env, env.post("Bearer", env.body()), 401, "no-credentials")
    refused(env, env.post("Token abc", env.body()), 401, "credentials-unrecognised")


def test_malformed_and_oversized_requests(env: IssuerEnv) -> None:
    token = bearer(env.id_token())
    refused(env, env.post(token, raw=b"{not json"), 400, "request-not-json")
    refused(env, env.post(bearer(env.id_token()), {"entries": []}), 400, "request-malformed")
    duplicate = b'{"model_repo": "alice/model", "model_repo": "x/y", "entries": []}'
    refused(env, env.post(bearer(env.id_token()), raw=duplicate), 400, "request-not-json")
    huge = b'{"pad": "' + b"x" * (300 * 1024) + b'"}'
    refused(env, env.post(bearer(env.id_token()), raw=huge), 413, "request-too-large")
    wrong_type = env.post(token, raw=b"a=b", headers={"Content-Type": "text/plain"})
    refused(env, wrong_type, 415, "unsupported-media-type")


def test_id_tokens_with_forbidden_algorithms(env: IssuerEnv) -> None:
    claims = jwt.decode(env.id_token(), options={"verify_signature": False})
    unsigned = jwt.encode(claims, "", algorithm="none", headers={"kid": env.oidc.kid})
    refused(env, env.post(bearer(unsigned), env.body()), 401, "alg-not-allowed")
    # HMAC: a shared secret is never a provider's key (nor is its public key, the classic
    # algorithm confusion, which PyJWT itself refuses to even sign with).
    secret = b"a-shared-secret-of-thirty-two-bytes"
    hmac_token = jwt.encode(claims, secret, algorithm="HS256", headers={"kid": env.oidc.kid})
    refused(env, env.post(bearer(hmac_token), env.body()), 401, "alg-not-allowed")


def test_unknown_kid_and_a_foreign_key(env: IssuerEnv) -> None:
    unknown = env.oidc.mint(env.issuer.audience, headers={"kid": "not-published"})
    refused(env, env.post(bearer(unknown), env.body()), 401, "kid-unknown")
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = env.oidc.mint(env.issuer.audience, key=other)
    refused(env, env.post(bearer(forged), env.body()), 401, "bad-signature")


def test_expired_not_yet_valid_wrong_audience_unknown_issuer(env: IssuerEnv) -> None:
    expired = env.oidc.mint(env.issuer.audience, now=now() - 3600)
    refused(env, env.post(bearer(expired), env.body()), 401, "id-token-expired")
    early = env.oidc.mint(env.issuer.audience, overrides={"nbf": now() + 600})
    refused(env, env.post(bearer(early), env.body()), 401, "id-token-not-yet-valid")
    other_audience = env.oidc.mint("https://another-issuer.example")
    refused(env, env.post(bearer(other_audience), env.body()), 401, "audience-mismatch")
    foreign = env.oidc.mint(env.issuer.audience, overrides={"iss": "https://evil.example"})
    refused(env, env.post(bearer(foreign), env.body()), 401, "issuer-unknown")
    missing = env.oidc.mint(env.issuer.audience, drop=("jti",))
    refused(env, env.post(bearer(missing), env.body()), 401, "claim-missing:jti")


def test_an_id_token_is_usable_once(env: IssuerEnv) -> None:
    token = bearer(env.id_token())
    assert env.post(token, env.body()).status_code == 200
    refused(env, env.post(token, env.body()), 401, "id-token-reused")


def test_requests_refused_with_an_id_token_leave_it_to_its_job(env: IssuerEnv) -> None:
    """Whoever holds a job's ID token (read from a log, a proxy) sends it with requests the
    issuer refuses: a body that is not a request, a model the rule does not allow, an entry
    that does not validate. The jti used to be claimed at authentication, so the first of them
    spent it and the job's own request was then refused `id-token-reused`."""
    token = bearer(env.id_token())
    refused(env, env.post(token, {"entries": []}), 400, "request-malformed")
    other_model = env.body(env.entry(), model_repo="evals-org/team-model")
    refused(env, env.post(token, other_model), 403, "model-not-allowed")
    bad = env.entry(
        dataset={"id": "emulator-samples/hle-mini", "task_id": "HLE", "revision": env.hle_sha}
    )
    refused(env, env.post(token, env.body(bad)), 422, "entry-invalid")
    granted = env.post(token, env.body())
    assert granted.status_code == 200, granted.text
    # granted once: spent, whatever comes after, valid or not
    refused(env, env.post(token, env.body()), 401, "id-token-reused")
    refused(env, env.post(token, other_model), 401, "id-token-reused")


def test_one_id_token_sent_at_once_by_several_gets_tokens_once(env: IssuerEnv) -> None:
    """The claim is the last step and one atomic `SET NX`: requests racing with the same ID
    token, each valid, get tokens once between them."""
    token = bearer(env.id_token())
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda _: env.post(token, env.body()), range(4)))
    assert sorted(answer.status_code for answer in answers) == [200, 401, 401, 401]
    for answer in answers:
        if answer.status_code == 401:
            refused(env, answer, 401, "id-token-reused")


@pytest.mark.parametrize(
    "claims",
    [
        {"repository": "acme/evals-fork"},
        {"workflow_ref": "acme/evals/.github/workflows/other.yml@refs/heads/main"},
        {"environment": "staging"},
    ],
    ids=["repository", "workflow", "environment"],
)
def test_claims_of_another_repository_workflow_or_environment(
    env: IssuerEnv, claims: dict[str, str]
) -> None:
    token = env.oidc.mint(env.issuer.audience, overrides=claims)
    line = refused(env, env.post(bearer(token), env.body()), 403, "no-integration")
    assert "integration" not in line


def test_framework_benchmark_and_model_outside_the_policy(env: IssuerEnv) -> None:
    other_framework = env.entry(framework={"name": "inspect-ai"})
    response = env.post(bearer(env.id_token()), env.body(other_framework))
    refused(env, response, 403, "framework-not-allowed")
    gpqa = {
        "dataset": {"id": GPQA, "task_id": "diamond", "revision": env.gpqa_sha},
        "model_revision": env.model_sha,
        "evaluation_framework": "lighteval",
        "value": 43.1,
    }
    line = refused(
        env, env.post(bearer(env.id_token()), env.body(gpqa)), 403, "benchmark-not-allowed"
    )
    assert line["benchmark"] == GPQA
    other_model = env.body(env.entry(), model_repo="evals-org/team-model")
    refused(env, env.post(bearer(env.id_token()), other_model), 403, "model-not-allowed")


def test_an_entry_outside_the_gate_gets_the_generic_refusal_not_its_benchmarks_hints(
    env: IssuerEnv,
) -> None:
    """An invalid entry for a benchmark outside the gate was validated first: its 422 listed
    that benchmark's tasks to a caller with no business reading them."""
    wrong_task = {"id": GPQA, "task_id": "no-such-task", "revision": env.gpqa_sha}
    response = env.post(
        bearer(env.id_token()), env.body(env.entry(), env.entry(dataset=wrong_task))
    )
    refused(env, response, 403, "benchmark-not-allowed")
    assert "problems" not in response.json()
    assert "diamond" not in response.text


@pytest.mark.parametrize("event", sorted(EVENTS_NAMED_ONLY))
def test_a_run_of_an_event_outsiders_steer_is_refused_unless_a_rule_names_it(
    env: IssuerEnv, event: str
) -> None:
    """`pull_request_target`, `workflow_run`, `issue_comment`... run in the base repository's
    context on what a fork or any commenter controls: a rule that does not pin the event
    never vouches for them, whatever else it pins (the generic refusal; the event audited)."""
    token = env.id_token(event_name=event)
    line = refused(env, env.post(bearer(token), env.body()), 403, f"event-not-named:{event}")
    assert line["integration"] == "acme"
    assert event not in env.post(bearer(env.id_token(event_name=event)), env.body()).text


def test_a_rule_that_pins_the_event_and_the_job_workflow_vouches_for_that_run(
    env: IssuerEnv,
) -> None:
    named = env.id_token(event_name="workflow_run", job_workflow_ref=SIGNING_JOB)
    response = env.post(bearer(named), env.body())
    assert response.status_code == 200, response.text
    # the same event from another job of the workflow: only the rule without the event
    # matches, and it does not name workflow_run
    other_job = env.id_token(
        event_name="workflow_run",
        job_workflow_ref="acme/evals/.github/workflows/eval.yml@refs/heads/main",
    )
    refused(env, env.post(bearer(other_job), env.body()), 403, "event-not-named:workflow_run")
    # a run of another event from the named job: that rule does not match it at all
    comment = env.id_token(event_name="issue_comment", job_workflow_ref=SIGNING_JOB)
    refused(env, env.post(bearer(comment), env.body()), 403, "event-not-named:issue_comment")
    assert env.post(bearer(env.id_token(event_name="push")), env.body()).status_code == 200


def test_an_entry_invalid_against_its_benchmark_is_shown_in_full(env: IssuerEnv) -> None:
    bad = env.entry(
        dataset={"id": "emulator-samples/hle-mini", "task_id": "HLE", "revision": env.hle_sha}
    )
    response = env.post(bearer(env.id_token()), env.body(bad))
    refused(env, response, 422, "entry-invalid")
    problems = response.json()["problems"]
    assert problems[0]["code"] == "ENTRY-TASK-UNKNOWN"
    assert problems[0]["field"] == "dataset.task_id"
    assert "hle" in (problems[0]["hint"] or problems[0]["message"])


def test_revisions_that_are_not_full_shas(env: IssuerEnv) -> None:
    short = env.entry(model_revision=env.model_sha[:12])
    branch = env.entry(
        dataset={"id": "emulator-samples/hle-mini", "task_id": "hle", "revision": "main"}
    )
    unpinned = {k: v for k, v in env.entry().items() if k != "model_revision"}
    for entry, field in (
        (short, "model_revision"),
        (branch, "dataset.revision"),
        (unpinned, "model_revision"),
    ):
        response = env.post(bearer(env.id_token()), env.body(entry))
        refused(env, response, 422, "entry-invalid")
        codes = {(p["code"], p["field"]) for p in response.json()["problems"]}
        assert ("REVISION-NOT-PINNED", field) in codes


def test_rate_limit_answers_429_with_retry_after(env: IssuerEnv) -> None:
    answers = [env.post(bearer(env.id_token("acme/limited")), env.body()) for _ in range(3)]
    assert [a.status_code for a in answers[:2]] == [200, 200]
    refused(env, answers[2], 429, "rate-limited")
    assert 1 <= int(answers[2].headers["Retry-After"]) <= 60


def test_repeated_refusals_start_a_cooldown(env: IssuerEnv) -> None:
    outside = env.body(env.entry(framework={"name": "inspect-ai"}))
    for _ in range(2):
        refused(
            env,
            env.post(bearer(env.id_token("acme/cooling")), outside),
            403,
            "framework-not-allowed",
        )
    cooled = env.post(bearer(env.id_token("acme/cooling")), env.body())
    refused(env, cooled, 429, "cooldown")
    assert 500 <= int(cooled.headers["Retry-After"]) <= 600


def test_an_unusual_spread_of_model_repos_starts_a_cooldown(env: IssuerEnv) -> None:
    assert env.post(bearer(env.id_token("acme/spread")), env.body()).status_code == 200
    second_model = env.body(env.entry(), model_repo="alice/another-model")
    refused(env, env.post(bearer(env.id_token("acme/spread")), second_model), 429, "unusual-spread")
    refused(env, env.post(bearer(env.id_token("acme/spread")), env.body()), 429, "cooldown")


def test_provider_keys_unreachable_is_503_not_500(env: IssuerEnv) -> None:
    token = env.oidc_down.mint(env.issuer.audience)
    response = env.post(bearer(token), env.body())
    refused(env, response, 503, "provider-keys-unavailable")
    assert response.headers["Retry-After"]


def test_hub_tokens_checked_with_whoami(env: IssuerEnv) -> None:
    assert env.post(bearer(TOKENS["alice"]), env.body()).status_code == 200
    refused(env, env.post(bearer("hf_not_a_token"), env.body()), 401, "hub-token-rejected")
    # A read token identifies its account: the issuer needs only whoami, so a job never has
    # to send the write token that opens its PR (it was refused: hub-token-scope-missing).
    read = env.post(bearer(TOKENS["alice-read"]), env.body())
    assert read.status_code == 200, read.text
    assert env.audited(read)["identity"] == "hub:alice"
    env.hub.faults.add_rule(RouteFault("identity.whoami", status=500, times=20))
    try:
        # carol's token: alice's answer is cached now (docs/issuer.md, "The Hub-token cache").
        refused(env, env.post(bearer(TOKENS["carol"]), env.body()), 503, "hub-whoami-failed")
    finally:
        env.hub.faults.clear()


def test_client_credentials(env: IssuerEnv) -> None:
    good = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    response = env.post(f"Basic {good}", env.body())
    assert response.status_code == 200, response.text
    assert env.audited(response)["identity"] == f"client:{CLIENT_ID}"
    wrong = base64.b64encode(f"{CLIENT_ID}:evs_wrong".encode()).decode()
    refused(env, env.post(f"Basic {wrong}", env.body()), 401, "client-credentials-rejected")
    unknown = base64.b64encode(b"nobody:whatever").decode()
    refused(env, env.post(f"Basic {unknown}", env.body()), 401, "client-credentials-rejected")
    refused(env, env.post("Basic !!!", env.body()), 401, "client-credentials-malformed")


def test_a_body_that_never_arrives_is_408_not_a_hang(env: IssuerEnv) -> None:
    with socket.create_connection(("127.0.0.1", env.issuer.port), timeout=30) as connection:
        connection.sendall(
            b"POST /v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        answer = connection.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 408"), answer
    request_id = answer.split("x-request-id: ", 1)[1].split("\r\n", 1)[0]
    lines = [line for line in read_audit(env.issuer.audit_log) if line["request_id"] == request_id]
    assert lines[-1]["reason"] == "request-timeout"
