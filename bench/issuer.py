"""The token issuer's speed, over HTTP against the real `evalbot issuer` (uvicorn, its own
process), with the provider's keys and the benchmark's eval.yaml cached after a warm-up.

Prints, from one run:
- raw Ed25519 signatures per second (`cryptography`, in this process, over a token's signing
  input): the floor cost of a token;
- tokens issued per second, sequential requests of 50 entries each (every entry validated
  against its benchmark, claims and digest computed, signed; one audit line each; one OIDC
  verification, replay claim and rate-limit check per request), and their ratio to the raw
  signatures;
- p50 / p99 wall time per request of one entry (what a CI job waits), and requests per second;
- Hub benchmark lookups (`dataset_info` at the entry's revision) per one-entry request: each
  (benchmark, revision) is kept across requests for `bot.issuer.lookups.BENCHMARK_CACHE_S`;
- for a caller authenticated with a Hub token: `whoami-v2` calls per issuance and the p50 of a
  one-entry request, with the whoami cache (the default) and without it
  (`whoami_cache_s: 0` in the issuer's integrations.yaml, the issuer before the cache), two
  processes in one run.

The Hub emulator, redis-server and a local OIDC provider run on 127.0.0.1; ID tokens are
minted before the timed loops (a CI provider's cost, not the issuer's).
Run: `.venv/bin/python bench/issuer.py`.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import jwt

from bench.timing import median_seconds, percentile, report
from bot.tokens.signer import generate_private_key
from evalbot_dev.devstack.issuer import IssuerProcess
from evalbot_dev.devstack.oidc import LocalOidcProvider
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.workload import MODEL, OWNER_TOKEN, seeded_state
from evalbot_dev.emulator.server import EmulatorServer

BENCHMARK = "emulator-samples/hle-mini"
#: The emulator's route for `dataset_info` at a revision: one per benchmark lookup on a miss.
REVISION_LOOKUP = "repos.info_at_revision"
BATCH = 50
BATCH_ROUNDS = 20
SINGLE_REQUESTS = 300
SIGNATURES = 5000
HUB_TOKEN_REQUESTS = 50


def integration(oidc: LocalOidcProvider) -> dict[str, Any]:
    return {
        "name": "bench",
        "frameworks": ["lighteval"],
        "identities": [
            {"provider": "github", "claims": oidc.pinned_claims("repository")},
            {"hub_user": "alice"},
        ],
        "benchmarks": ["*"],
        "models": ["*"],
        "limits": {"per_minute": 10**6, "per_hour": 10**7, "max_models": 10**6},
    }


def entries(hub_url: str, count: int) -> list[dict[str, Any]]:
    model_sha = httpx.get(f"{hub_url}/api/models/{MODEL}", timeout=10).json()["sha"]
    bench_sha = httpx.get(f"{hub_url}/api/datasets/{BENCHMARK}", timeout=10).json()["sha"]
    return [
        {
            "dataset": {"id": BENCHMARK, "task_id": "hle", "revision": bench_sha},
            "model_revision": model_sha,
            "framework": {"name": "lighteval", "version": "0.9.2"},
            "metrics": [
                {"metric_id": "accuracy", "value": 20 + index / 100},
                {"metric_id": "calibration_error", "value": 12.5},
            ],
            "notes": f"run {index}",
        }
        for index in range(count)
    ]


def raw_signatures_per_s(token: str) -> float:
    """Ed25519 signatures per second over the signing input of a real issued token."""
    header, payload, _ = token.split(".")
    signing_input = f"{header}.{payload}".encode()
    key = generate_private_key()
    seconds = median_seconds(lambda: [key.sign(signing_input) for _ in range(SIGNATURES)], repeat=5)
    return SIGNATURES / seconds


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="evalbot-bench-issuer-") as work:
        redis_server = RedisServer(Path(work) / "redis").start()
        try:
            with EmulatorServer(seeded_state()) as hub, LocalOidcProvider() as oidc:
                issuer = IssuerProcess(
                    Path(work) / "issuer",
                    hub_url=hub.url,
                    redis_url=redis_server.url,
                    providers=[oidc.provider_config()],
                    integrations=[integration(oidc)],
                )
                with issuer, httpx.Client(timeout=60) as client:
                    run(client, issuer, oidc, hub)
                    print(f"{HUB_TOKEN_REQUESTS} one-entry requests with one Hub token each:")
                    for label, cache_s in (("whoami cache off (before)", 0), ("cached", 60)):
                        issuer = IssuerProcess(
                            Path(work) / f"issuer-whoami-{cache_s}",
                            hub_url=hub.url,
                            redis_url=redis_server.url,
                            providers=[oidc.provider_config()],
                            integrations=[integration(oidc)],
                            options={"whoami_cache_s": cache_s},
                        )
                        with issuer:
                            hub_token_requests(client, issuer, hub, label)
        finally:
            redis_server.stop(kill=True)


def run(
    client: httpx.Client, issuer: IssuerProcess, oidc: LocalOidcProvider, hub: EmulatorServer
) -> None:
    url = f"{issuer.url}/v1/tokens"
    batch = entries(hub.url, BATCH)
    ids = [oidc.mint(issuer.audience) for _ in range(BATCH_ROUNDS + SINGLE_REQUESTS + 2)]

    def post(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        response = client.post(
            url,
            json={"model_repo": MODEL, "entries": items},
            headers={"Authorization": f"Bearer {ids.pop()}"},
        )
        response.raise_for_status()
        tokens: list[dict[str, Any]] = response.json()["tokens"]
        return tokens

    warm = post(batch[:1])  # provider discovery + JWKS, the benchmark's eval.yaml: now cached
    post(batch)
    assert jwt.get_unverified_header(warm[0]["verify_token"])["alg"] == "EdDSA"

    batch_seconds = []
    for _ in range(BATCH_ROUNDS):
        started = time.perf_counter()
        post(batch)
        batch_seconds.append(time.perf_counter() - started)
    tokens_per_s = BATCH / statistics.median(batch_seconds)

    singles = []
    lookups_before = hub.counters().get(REVISION_LOOKUP, 0)
    for _ in range(SINGLE_REQUESTS):
        started = time.perf_counter()
        post(batch[:1])
        singles.append(time.perf_counter() - started)
    lookups = hub.counters().get(REVISION_LOOKUP, 0) - lookups_before

    signatures_per_s = raw_signatures_per_s(warm[0]["verify_token"])
    print(
        f"issuer over HTTP on 127.0.0.1, {BATCH_ROUNDS} requests of {BATCH} entries, "
        f"{SINGLE_REQUESTS} requests of 1 entry (medians; keys and eval.yaml cached)"
    )
    report("raw Ed25519 signatures (cryptography, in process)", signatures_per_s, "sig/s")
    report(f"tokens issued, {BATCH} entries per request", tokens_per_s, "tokens/s")
    report("ratio tokens issued / raw signatures", tokens_per_s / signatures_per_s, "x")
    report("one-entry request p50", percentile(singles, 0.50) * 1000, "ms")
    report("one-entry request p99", percentile(singles, 0.99) * 1000, "ms")
    report("one-entry requests, sequential", 1 / statistics.median(singles), "req/s")
    report("Hub benchmark lookups per one-entry request", lookups / SINGLE_REQUESTS, "calls")


def hub_token_requests(
    client: httpx.Client, issuer: IssuerProcess, hub: EmulatorServer, label: str
) -> None:
    """`whoami-v2` calls per issuance and p50 latency for requests made with a Hub token."""
    body = {"model_repo": MODEL, "entries": entries(hub.url, 1)}
    headers = {"Authorization": f"Bearer {OWNER_TOKEN}"}
    before = hub.counters().get("identity.whoami", 0)
    seconds = []
    for _ in range(HUB_TOKEN_REQUESTS):
        started = time.perf_counter()
        client.post(f"{issuer.url}/v1/tokens", json=body, headers=headers).raise_for_status()
        seconds.append(time.perf_counter() - started)
    calls = hub.counters().get("identity.whoami", 0) - before
    report(f"{label}: whoami-v2 calls per issuance", calls / HUB_TOKEN_REQUESTS, "calls")
    report(f"{label}: one-entry request p50", percentile(seconds, 0.50) * 1000, "ms")


if __name__ == "__main__":
    main()
