"""A task's Redis round trips, counted on a real redis-server against the Hub emulator.

Each round trip is a wait on another process; on a busy 2-core machine the worker spent more
of a PR's wall time waiting on Redis than on the Hub (bench/e2e.py, docs/reliability.md
"Load"). The budget below is what one run for a fresh PR with one signed entry needs: the
crash counter, the lease, the jti binding, the token's first-seen time, the fencing check
before the comment, the verdict, the lease release and the final bookkeeping.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, cast

import pytest
import redis
from celery import Task
from huggingface_hub import HfApi

from bot.hub.client import HfHubClient
from bot.hub.sources import BenchmarkCache
from bot.queue.events import PrEvent
from bot.tokens.issuers import IssuerRegistry, policies_from_mapping
from bot.validation.policy import DEFAULT_POLICY
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.signing import LocalIssuer
from evalbot_dev.devstack.workload import hle_entry, open_results_pr
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, TOKENS, running_emulator
from workers.pr_lease import as_text
from workers.runtime import RedisJtiBinder, RedisKeyCache, Runtime
from workers.tasks import handle

pytestmark = pytest.mark.integration

#: Round trips for one fresh PR with one signed entry (was 12 before they were folded).
BUDGET = 9


class CountingConnection(redis.Connection):
    """Counts every packed send: one per command, one per pipeline."""

    sends = 0

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        CountingConnection.sends += 1
        super().send_packed_command(command, check_health)  # type: ignore[no-untyped-call]


@dataclass
class FakeTask:
    """What `handle` reads of a Celery task: its request's id and retry count."""

    request: SimpleNamespace = field(
        default_factory=lambda: SimpleNamespace(id=str(uuid.uuid4()), retries=0)
    )

    def retry(self, **options: Any) -> Exception:
        raise AssertionError(f"unexpected retry: {options}")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[EmulatorServer]:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    with running_emulator() as emulator:
        yield emulator


def _runtime(hub: EmulatorServer, client: redis.Redis, issuer: LocalIssuer) -> Runtime:
    api = HfApi(endpoint=hub.url, token=TOKENS["evalbot"])
    return Runtime(
        bot_name="evalbot",
        hub_url=hub.url,
        hub=HfHubClient(api),
        redis=client,
        registry=IssuerRegistry(
            policies_from_mapping({"issuers": [issuer.config()]}),
            cache=RedisKeyCache(client),
            unavailable_keys_raise=True,
        ),
        binder=RedisJtiBinder(client),
        benchmark_cache=BenchmarkCache(),
        policy=DEFAULT_POLICY,
        maintainers=frozenset(),
        lease_ttl_s=60.0,
        clock=lambda: datetime.now(UTC),
    )


def _open_signed_pr(hub: EmulatorServer, issuer: LocalIssuer, value: str) -> int:
    from evalbot_dev.emulator.seed import SAMPLES

    entry = hle_entry(value)
    token = issuer.token_for(entry, 0, model_repo=MODEL, benchmarks=SAMPLES / "benchmarks")
    api = HfApi(endpoint=hub.url, token=TOKENS["alice"])
    return open_results_pr(api, value, entry + f"  verify_token: {token}\n")


def _event(num: int) -> dict[str, Any]:
    return PrEvent(
        kind="opened",
        repo_id=MODEL,
        pr_num=num,
        delivery_id=f"d-{num}",
        received_at=datetime.now(UTC).isoformat(),
    ).to_json()


def test_a_run_stays_within_its_redis_round_trip_budget_and_keeps_its_books(
    hub: EmulatorServer, redis_server: RedisServer
) -> None:
    client = redis.Redis.from_url(redis_server.url, connection_class=CountingConnection)
    issuer = LocalIssuer()
    runtime = _runtime(hub, client, issuer)
    warm = _open_signed_pr(hub, issuer, "20.1")  # caches the benchmark and the issuer keys
    assert handle(cast(Task[Any, Any], FakeTask()), _event(warm), runtime) == "posted"

    num = _open_signed_pr(hub, issuer, "20.2")
    task = FakeTask()
    CountingConnection.sends = 0
    outcome = handle(cast(Task[Any, Any], task), _event(num), runtime)
    sends = CountingConnection.sends

    assert outcome == "posted"
    assert sends <= BUDGET, f"{sends} Redis round trips for one run (budget {BUDGET})"
    # The books the folded round trips keep: crash counter gone, outcome counted, verdict and
    # the token's first-seen time recorded, lease released.
    assert client.exists(f"evalbot:unfinished:{task.request.id}") == 0
    assert int(client.hget("evalbot:stats", "outcome:posted") or 0) == 2
    verdict = client.get(f"evalbot:verdict:{MODEL}:{num}")
    assert verdict is not None
    assert len(as_text(verdict)) == 40
    assert len(client.keys(f"evalbot:token-time:{MODEL}:*")) == 2
    assert client.keys("evalbot:lease:*") == []
    client.close()


def test_the_crash_counter_still_parks_an_event_whose_runs_never_finish(
    hub: EmulatorServer, redis_server: RedisServer
) -> None:
    client = redis.Redis.from_url(redis_server.url)
    runtime = _runtime(hub, client, LocalIssuer())
    task = FakeTask()
    attempts = f"evalbot:attempts:{task.request.id}"
    client.hset(attempts, "unfinished", 3)  # three runs died mid-way
    assert handle(cast(Task[Any, Any], task), _event(1), runtime) == "parked"
    assert client.exists(attempts) == 0
    assert int(client.hget("evalbot:stats", "parked:worker-lost") or 0) == 1
    client.close()
