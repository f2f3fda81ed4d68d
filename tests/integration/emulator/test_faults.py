"""Fault injection, quotas and the request counter, through the real client and the admin API."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from huggingface_hub.errors import HfHubHTTPError

from evalbot_dev.devstack.waiting import wait_until
from evalbot_dev.emulator.faults import Quota, RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import MODEL, RecordingReceiver, client

pytestmark = pytest.mark.integration


def test_counter_by_route(emulated_hub: EmulatorServer) -> None:
    emulated_hub.faults.reset_counters()
    api = client(emulated_hub, "alice")
    api.model_info(MODEL)
    api.model_info(MODEL, revision="main")
    list(api.list_repo_tree(MODEL))
    api.whoami()
    assert emulated_hub.faults.count_snapshot() == {
        "repos.info": 1,
        "repos.info_at_revision": 1,
        "repos.tree": 1,
        "identity.whoami": 1,
    }


def test_latency_is_served(emulated_hub: EmulatorServer) -> None:
    emulated_hub.faults.add_rule(RouteFault(pattern="repos.info*", latency_s=0.2, jitter_s=0.1))
    api = client(emulated_hub, "alice")
    started = time.monotonic()
    api.model_info(MODEL)
    assert time.monotonic() - started >= 0.2


def test_429_carries_ratelimit_headers_and_paginated_calls_retry(
    emulated_hub: EmulatorServer,
) -> None:
    api = client(emulated_hub, "alice")
    num = client(emulated_hub, "bob").create_discussion(MODEL, title="t", description="d").num
    emulated_hub.faults.add_rule(
        RouteFault(pattern="discussions.details", status=429, times=1, reset_s=7)
    )
    with pytest.raises(HfHubHTTPError) as caught:
        api.get_discussion_details(MODEL, num)  # single-shot: not retried by the client
    response = caught.value.response
    assert response.status_code == 429
    assert response.headers["RateLimit"] == '"api";r=0;t=7'
    assert response.headers["RateLimit-Policy"] == '"fixed window";"api";q=1000;w=300'
    assert api.get_discussion_details(MODEL, num).num == num  # the burst is over

    # list_repo_tree goes through http_backoff, which sleeps t+1 s and retries.
    emulated_hub.faults.add_rule(RouteFault(pattern="repos.tree", status=429, times=1, reset_s=0))
    emulated_hub.faults.reset_counters()
    assert [e.path for e in api.list_repo_tree(MODEL, path_in_repo=".eval_results")]
    assert emulated_hub.faults.count_snapshot()["repos.tree"] == 2


def test_5xx_burst(emulated_hub: EmulatorServer) -> None:
    emulated_hub.faults.add_rule(RouteFault(pattern="discussions.comment", status=503, times=2))
    api = client(emulated_hub, "alice")
    num = api.create_discussion(MODEL, title="t", description="d").num
    for _ in range(2):
        with pytest.raises(HfHubHTTPError) as caught:
            api.comment_discussion(MODEL, num, "hello")
        assert caught.value.response.status_code == 503
    api.comment_discussion(MODEL, num, "hello")
    comments = [e for e in api.get_discussion_details(MODEL, num).events if e.type == "comment"]
    assert len(comments) == 2  # the description and the one comment that got through


def test_timeout_after_write_applies_the_write(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    emulated_hub.faults.add_rule(
        RouteFault(
            pattern="discussions.comment", status=504, after_write=True, times=1, latency_s=0.3
        )
    )
    api = client(emulated_hub, "alice")
    num = api.create_discussion(MODEL, title="t", description="d").num
    started = time.monotonic()
    with pytest.raises(HfHubHTTPError) as caught:
        api.comment_discussion(MODEL, num, "did it land?")
    assert caught.value.response.status_code == 504
    assert time.monotonic() - started >= 0.3
    assert emulated_hub.comments(MODEL, num)[-1].content == "did it land?"
    contents = [
        e.content for e in api.get_discussion_details(MODEL, num).events if e.type == "comment"
    ]
    assert contents == ["d", "did it land?"]


def test_truncated_body_is_a_200_with_half_the_json(emulated_hub: EmulatorServer) -> None:
    api = client(emulated_hub, "alice")
    num = api.create_discussion(MODEL, title="t", description="d").num
    emulated_hub.faults.add_rule(RouteFault(pattern="discussions.details", truncate=True, times=1))
    url = f"{emulated_hub.url}/api/models/{MODEL}/discussions/{num}"
    truncated = httpx.get(url, timeout=5)
    whole = httpx.get(url, timeout=5)
    assert truncated.status_code == whole.status_code == 200
    assert truncated.content == whole.content[: len(whole.content) // 2]
    with pytest.raises(json.JSONDecodeError):
        truncated.json()


def test_quota_per_caller(emulated_hub: EmulatorServer) -> None:
    emulated_hub.faults.set_quota(Quota(api=3, window_s=300))
    alice, bob = client(emulated_hub, "alice"), client(emulated_hub, "bob")
    for _ in range(3):
        alice.model_info(MODEL)
    with pytest.raises(HfHubHTTPError) as caught:
        alice.model_info(MODEL)
    assert caught.value.response.status_code == 429
    ratelimit = caught.value.response.headers["RateLimit"]
    assert ratelimit.startswith('"api";r=0;t=')
    assert caught.value.response.headers["RateLimit-Policy"] == '"fixed window";"api";q=3;w=300'
    assert bob.model_info(MODEL).id == MODEL  # bob has his own window


def test_admin_api_from_another_process(
    emulated_hub: EmulatorServer, webhook_receiver: RecordingReceiver
) -> None:
    admin = httpx.Client(base_url=f"{emulated_hub.url}/_emulator", trust_env=False)
    assert admin.get("/health").json()["ok"] is True
    put = admin.put(
        "/faults",
        json={
            "routes": [{"pattern": "repos.info", "status": 500, "times": 1}],
            "quota": {"api": 1000, "window_s": 60, "callers": ["evalbot"]},
            "webhooks": {"duplicate_next": 1},
        },
    )
    assert put.status_code == 200
    assert put.json()["quota"] == {
        "api": 1000,
        "resolvers": None,
        "window_s": 60,
        "callers": ["evalbot"],
    }
    assert put.json()["webhooks"]["duplicate_next"] == 1
    assert admin.put("/faults", json={"routes": [{"bogus": 1}]}).status_code == 400
    admin.put(
        "/faults",
        json={
            "routes": [{"pattern": "repos.info", "status": 500, "times": 1}],
            "webhooks": {"duplicate_next": 1},
        },
    )
    hook = admin.post(
        "/webhooks",
        json={
            "owner": "evalbot",
            "url": webhook_receiver.url,
            "watched": [{"type": "user", "name": "alice"}],
            "secret": "x",
        },
    ).json()["webhook"]
    assert hook["domains"] == ["repo", "discussion"]
    assert admin.post("/webhooks", json={"owner": "ghost", "url": "http://x"}).status_code == 400
    with pytest.raises(HfHubHTTPError):
        client(emulated_hub, "alice").model_info(MODEL)
    client(emulated_hub, "bob").create_discussion(MODEL, title="t", description="d")
    deliveries = admin.get("/deliveries")
    assert deliveries.status_code == 200
    wait_until(lambda: len(webhook_receiver.received) == 2, what="duplicated delivery")
    assert admin.get("/counters").json()["repos.info"] == 1
    assert admin.delete("/counters").json() == {}
    assert admin.delete("/faults").json()["routes"] == []
    log = wait_until(
        lambda: (body := admin.get("/deliveries").json())["idle"] and body["deliveries"], what="log"
    )
    assert [entry["outcome"] for entry in log] == ["delivered", "delivered"]
    admin.close()
