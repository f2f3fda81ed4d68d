"""The web app's guards and answers over HTTP, against a real Redis and the Hub emulator:
bounds (413, 411), cross-site posts refused, a Hub outage as a 503 page, bad repo ids, the
operator cookie (forged, expired, right), replaying a parked event, Redis down, and the
receiver's forwarding (502 when the pages are down, its own routes kept)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from huggingface_hub import HfApi
from starlette.testclient import TestClient

from bot.hub.client import HfHubClient
from bot.queue.events import PrEvent
from bot.settings import Secret
from bot.store import keys
from bot.store.deadletters import park
from bot.tokens.issuers import IssuerRegistry
from bot.validation.limits import DEFAULT_LIMITS
from bot.web.app import create_web_app
from bot.web.benchmarks import CachedHubBenchmarks
from bot.web.forward import PageForwarder
from bot.web.guards import ADMIN_COOKIE, OperatorGate, session_key
from bot.web.page_context import WebContext
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.waiting import free_port
from evalbot_dev.emulator.faults import RouteFault
from evalbot_dev.emulator.server import EmulatorServer
from tests.support.emulator import TOKENS, standard_state
from tests.support.queued import ledger_in_order

pytestmark = pytest.mark.integration

TOKEN = "operator-token-0123456789-0123456789-0123"
SAME_ORIGIN = {"origin": "http://testserver"}
GOOD = "- dataset:\n    id: emulator-samples/gpqa-mini\n    task_id: diamond\n  value: 43.1\n"


@pytest.fixture
def hub() -> Iterator[EmulatorServer]:
    server = EmulatorServer(standard_state())
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def store(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server.url, socket_timeout=5)
    yield client
    client.close()


def context_for(hub: EmulatorServer, client: redis.Redis, **changes: object) -> WebContext:
    api = HfApi(endpoint=hub.url, token=TOKENS["evalbot"])
    values: dict[str, object] = {
        "redis": client,
        "queue": "evalbot",
        "hub_url": hub.url,
        "bot_name": "evalbot",
        "operators": OperatorGate(session_key(Secret(TOKEN)), Secret(TOKEN)),
        "benchmarks": CachedHubBenchmarks(HfHubClient(api)),
        "registry": IssuerRegistry([]),
        "sample_interval_s": 3600.0,
        **changes,
    }
    return WebContext(**values)  # type: ignore[arg-type]


@pytest.fixture
def web(hub: EmulatorServer, store: redis.Redis) -> Iterator[TestClient]:
    with TestClient(create_web_app(context_for(hub, store))) as client:
        yield client


def check(web: TestClient, text: str, **headers: str) -> Any:
    files = {"content": (None, text), "kind": (None, "results")}
    return web.post("/playground", files=files, headers={**SAME_ORIGIN, **headers})


def test_pages_carry_a_script_free_content_security_policy(web: TestClient) -> None:
    response = web.get("/")
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "script-src" not in policy  # falls back to 'none'
    assert response.headers["x-content-type-options"] == "nosniff"


def test_a_valid_paste_passes(web: TestClient) -> None:
    response = check(web, GOOD)
    assert response.status_code == 200
    assert "No errors" in response.text


def test_cross_site_posts_are_refused(web: TestClient) -> None:
    assert check(web, GOOD, origin="https://evil.example").status_code == 403
    assert check(web, GOOD, **{"sec-fetch-site": "cross-site"}).status_code == 403
    assert check(web, GOOD, **{"sec-fetch-site": "same-origin"}).status_code == 200


def test_an_oversized_post_is_refused_before_parsing(web: TestClient) -> None:
    huge = "#" * (DEFAULT_LIMITS.max_file_bytes + 128 * 1024)
    response = check(web, huge)
    assert response.status_code == 413
    assert "1,048,576 bytes" in response.text


def test_a_file_over_the_size_cap_gets_the_validators_error(web: TestClient) -> None:
    response = check(web, "#" * (DEFAULT_LIMITS.max_file_bytes + 1))
    assert response.status_code == 200
    assert "YAML-TOO-LARGE" in response.text


def test_an_unreadable_form_is_a_400_not_a_crash(web: TestClient) -> None:
    response = web.post(
        "/playground",
        content=b"--x\r\nbroken",
        headers={**SAME_ORIGIN, "content-type": "multipart/form-data; boundary=x"},
    )
    assert response.status_code in (200, 400)  # never a 500


def test_a_hub_outage_is_a_503_page(hub: EmulatorServer, web: TestClient) -> None:
    hub.faults.add_rule(RouteFault("repos.info", status=503))
    response = check(web, GOOD)
    assert response.status_code == 503
    assert "The Hub did not answer" in response.text


def test_bad_repo_ids_are_refused(web: TestClient) -> None:
    assert web.get("/history", params={"repo": "not a repo"}).status_code == 400
    redirect = web.get("/history", params={"repo": "alice/model"}, follow_redirects=False)
    assert redirect.status_code == 303
    assert redirect.headers["location"] == "/history/alice/model"
    assert web.get("/history/..%2F/x").status_code in (400, 404)


def test_the_operator_cookie_cannot_be_forged_and_replay_needs_it(
    web: TestClient, store: redis.Redis
) -> None:
    event = PrEvent(
        kind="opened", repo_id="alice/model", pr_num=3, delivery_id="d-1", received_at="x"
    )
    park(store, event.to_json(), "hub-unavailable", "<script>detail</script>")
    assert "Replay" not in web.get("/status").text
    web.cookies.set(ADMIN_COOKIE, "99999999999.deadbeef")
    assert "Replay" not in web.get("/status").text
    web.cookies.clear()
    assert web.post("/status/replay", data={"digest": "x"}, headers=SAME_ORIGIN).status_code == 403
    assert (
        web.post("/status/login", data={"token": "wrong"}, headers=SAME_ORIGIN).status_code == 403
    )
    signed_in = web.post("/status/login", data={"token": TOKEN}, headers=SAME_ORIGIN)
    assert signed_in.status_code == 200  # followed the redirect to /status
    page = signed_in.text
    assert "&lt;script&gt;detail&lt;/script&gt;" in page
    digest = page.split('name="digest" value="', 1)[1].split('"', 1)[0]
    replayed = web.post("/status/replay", data={"digest": digest}, headers=SAME_ORIGIN)
    assert "Queued again" in replayed.text
    assert store.llen(keys.DEAD_LETTERS) == 0
    assert [queued["pr_num"] for queued in ledger_in_order(store)] == [event.pr_num]
    again = web.post("/status/replay", data={"digest": digest}, headers=SAME_ORIGIN)
    assert "Already gone" in again.text


def test_redis_down_leaves_the_pages_up(hub: EmulatorServer, tmp_path: Path) -> None:
    dead = redis.Redis(host="127.0.0.1", port=free_port(), socket_timeout=0.2)
    with TestClient(create_web_app(context_for(hub, dead))) as web:
        landing = web.get("/")
        assert landing.status_code == 200
        assert "Live state unavailable" in landing.text
        assert web.get("/status").status_code == 200
        assert web.get("/history").status_code == 503


def test_the_receiver_forwards_pages_and_keeps_its_routes() -> None:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    forwarder = PageForwarder(f"http://127.0.0.1:{free_port()}", timeout_s=2)
    app = Starlette(
        routes=[
            Route("/healthz", lambda request: PlainTextResponse("ok")),
            Mount("/", app=forwarder),
        ]
    )
    with TestClient(app) as client:
        assert client.get("/healthz").text == "ok"
        down = client.get("/playground")
        assert down.status_code == 502
        too_big = client.post(
            "/playground", content=b"x", headers={"content-length": str(10 * 1024 * 1024)}
        )
        assert too_big.status_code == 413


def test_the_status_page_is_never_stored_by_a_cache(web: TestClient) -> None:
    # its content depends on the operator cookie: a shared cache (a proxy in front of a
    # Space, a CDN) must not hand an operator's view to the next visitor
    assert web.get("/status").headers.get("cache-control") == "no-store"
    signed_in = web.post("/status/login", data={"token": TOKEN}, headers=SAME_ORIGIN)
    assert signed_in.status_code == 200  # followed the redirect to the operator's view
    assert signed_in.headers.get("cache-control") == "no-store"
