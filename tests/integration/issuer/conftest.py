"""A real `evalbot issuer` (uvicorn, its own process) against the Hub emulator, a real
redis-server and two local OIDC providers (one whose JWKS is down), shared by a module.

Integrations are set up so each test can pick an identity whose counters no other test
touches: limits, cooldowns and spreads are per identity.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.issuer.audit import read_audit
from bot.issuer.clientauth import secret_digest
from bot.issuer.refusals import GENERIC
from evalbot_dev.devstack.issuer import IssuerProcess
from evalbot_dev.devstack.oidc import LocalOidcProvider
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, running_emulator

HLE = "emulator-samples/hle-mini"
GPQA = "emulator-samples/gpqa-mini"
#: A benchmark with two tasks (one PR per task: test_submit_pulls), seeded by `issuer_env`.
TWO_TASKS = "emulator-samples/two-tasks"
TWO_TASKS_EVAL_YAML = b"""\
name: Two tasks
description: A benchmark with two tasks, for one PR per task.
metrics:
  - id: accuracy
    display_name: Accuracy
    higher_is_better: true
    primary: true
tasks:
  - id: alpha
    config: default
    split: test
  - id: beta
    config: default
    split: test
"""
CLIENT_ID = "acme-offline"
CLIENT_SECRET = "evs_test-client-secret-0123456789abcdef"


#: The GitHub ids of the owner and repository every local ID token names (`Workflow`).
OWNER_ID = "1001"
REPOSITORY_ID = "2002"


def github(repository: str, **claims: str) -> dict[str, Any]:
    ids = {"repository_owner_id": OWNER_ID, "repository_id": REPOSITORY_ID}
    return {"provider": "github", "claims": {**ids, "repository": repository, **claims}}


#: The reusable workflow whose job a rule of `acme` vouches for on `workflow_run` runs.
SIGNING_JOB = "acme/ci-templates/.github/workflows/sign.yml@refs/heads/main"

#: The gates of an integration that may sign for anything.
ANY = {"benchmarks": ["*"], "models": ["*"]}


def integrations(oidc: LocalOidcProvider) -> list[dict[str, Any]]:
    workflow_ref = oidc.workflow.claims()["workflow_ref"]
    strict = {"per_minute": 1000, "per_hour": 10000, "refusals_before_cooldown": 1000}
    return [
        {
            "name": "acme",
            "frameworks": ["lighteval", "lm-eval"],
            "identities": [
                github("acme/evals", workflow_ref=workflow_ref, environment="release"),
                # a run after another workflow, vouched for in so many words: only this event,
                # and only the signing job of the reusable workflow it calls
                github(
                    "acme/evals",
                    workflow_ref=workflow_ref,
                    event_name="workflow_run",
                    job_workflow_ref=SIGNING_JOB,
                ),
                {"hub_user": "alice"},
                {"hub_user": "evalbot"},
                {"client_id": CLIENT_ID, "client_secret_sha256": secret_digest(CLIENT_SECRET)},
            ],
            "benchmarks": [HLE, TWO_TASKS],
            "models": ["alice/*"],
            "limits": strict,
        },
        {
            "name": "limited",
            "frameworks": ["lighteval"],
            "identities": [github("acme/limited")],
            **ANY,
            "limits": {"per_minute": 2, "refusals_before_cooldown": 1000},
        },
        {
            "name": "cooling",
            "frameworks": ["lighteval"],
            "identities": [github("acme/cooling")],
            **ANY,
            "limits": {"refusals_before_cooldown": 2, "cooldown_s": 600},
        },
        {
            "name": "spread",
            "frameworks": ["lighteval"],
            "identities": [github("acme/spread")],
            **ANY,
            "limits": {"max_models": 1, "cooldown_s": 600},
        },
        {
            "name": "elsewhere",
            "frameworks": ["lighteval"],
            "identities": [
                {
                    "provider": "gitlab",
                    "claims": {"namespace_id": "72", "project_id": "20"},
                }
            ],
            **ANY,
        },
    ]


@dataclass
class IssuerEnv:
    hub: EmulatorServer
    oidc: LocalOidcProvider
    oidc_down: LocalOidcProvider
    issuer: IssuerProcess
    model_sha: str
    hle_sha: str
    gpqa_sha: str

    def entry(self, **changes: Any) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "dataset": {"id": HLE, "task_id": "hle", "revision": self.hle_sha},
            "model_revision": self.model_sha,
            "framework": {"name": "lighteval", "version": "0.9.2"},
            "metrics": [{"metric_id": "accuracy", "value": 41.5}],
        }
        entry.update(changes)
        return entry

    def body(self, *entries: dict[str, Any], model_repo: str = MODEL) -> dict[str, Any]:
        return {"model_repo": model_repo, "entries": list(entries) or [self.entry()]}

    def id_token(self, repository: str = "acme/evals", **overrides: Any) -> str:
        # GitHub's `sub` names the repository too: it is the identity limits are counted by.
        claims = {"repository": repository, "sub": f"repo:{repository}:environment:release"}
        claims.update(overrides)
        return self.oidc.mint(self.issuer.audience, overrides=claims)

    def post(
        self,
        authorization: str | None,
        body: Any = None,
        *,
        raw: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if authorization is not None:
            sent["Authorization"] = authorization
        content = raw if raw is not None else httpx.Request("POST", "/", json=body).content
        return httpx.post(f"{self.issuer.url}/v1/tokens", content=content, headers=sent, timeout=30)

    def audited(self, response: httpx.Response) -> dict[str, Any]:
        """The audit line of the request `response` answered (it is written before the answer)."""
        request_id = response.headers["X-Request-Id"]
        lines = [
            line for line in read_audit(self.issuer.audit_log) if line["request_id"] == request_id
        ]
        assert lines, f"request {request_id} is not in the audit log"
        return lines[-1]


@contextmanager
def issuer_env(
    work: Path,
    settings: Mapping[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Iterator[IssuerEnv]:
    """The emulator, Redis, two OIDC providers and an issuer started with `settings` (extra
    environment variables) and `options` (more of its `issuer:` section) over `integrations`,
    all stopped on exit."""
    redis_server = RedisServer(work / "redis").start()
    try:
        with (
            running_emulator() as hub,
            LocalOidcProvider() as oidc,
            LocalOidcProvider(jwks_available=False) as oidc_down,
        ):
            hub.state.seed_repo(
                "dataset",
                TWO_TASKS,
                {"eval.yaml": TWO_TASKS_EVAL_YAML},
                tags=[hub.state.benchmark_tag],
            )
            issuer = IssuerProcess(
                work / "issuer",
                hub_url=hub.url,
                redis_url=redis_server.url,
                providers=[oidc.provider_config(), oidc_down.provider_config("gitlab", "gitlab")],
                integrations=integrations(oidc),
                env=dict(settings or {}),
                options=dict(options or {}),
            )
            with issuer:
                api = httpx.get(f"{hub.url}/api/models/{MODEL}", timeout=10).json()
                shas = {
                    name: httpx.get(f"{hub.url}/api/datasets/{name}", timeout=10).json()["sha"]
                    for name in (HLE, GPQA)
                }
                yield IssuerEnv(hub, oidc, oidc_down, issuer, api["sha"], shas[HLE], shas[GPQA])
    finally:
        redis_server.stop(kill=True)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IssuerEnv]:
    # Every request here comes from 127.0.0.1, and test_refusals fails to authenticate on
    # purpose more often than the default limit allows (test_auth_failures tests the limit).
    with issuer_env(tmp_path_factory.mktemp("issuer"), options={"auth_failures": 1000}) as started:
        yield started


def refused(env: IssuerEnv, response: httpx.Response, status: int, reason: str) -> dict[str, Any]:
    """Assert a generic refusal with `status`, audited with `reason`; returns the audit line."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == GENERIC[status]
    assert body["request_id"] == response.headers["X-Request-Id"]
    assert reason not in response.text or status == 422
    line = env.audited(response)
    assert line["decision"] == "refused"
    assert line["reason"] == reason
    assert line["status"] == status
    return line


def bearer(token: str) -> str:
    return f"Bearer {token}"


def now() -> int:
    return int(time.time())
