"""The receiver's HTTP contract (docs/decisions.md#receiver) and docs/security.md#adversarial-inputs
items 1-6.

The app runs in-process (Starlette's TestClient) with a small recording enqueuer; the same
contract against real Redis under uvicorn is in tests/integration/receiver/.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from bot.queue.enqueuer import EnqueueOutcome, QueueUnavailable
from bot.queue.events import DedupeKey, PrEvent
from bot.receiver.app import MAX_BODY_BYTES, WEBHOOK_PATH, _parse_json, _Rejected, create_app
from bot.settings import Settings
from tests.support.samples import webhook, webhook_bytes

SECRET = "s3cret-webhook-value"
PREVIOUS = "previous-webhook-value"
SETTINGS = Settings.from_env(
    {
        "HF_TOKEN": "hf_x",
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "EVALBOT_WEBHOOK_SECRET": SECRET,
        "EVALBOT_WEBHOOK_SECRET_PREVIOUS": PREVIOUS,
        "EVALBOT_BOT_NAME": "evalbot-ci",
        "EVALBOT_BOT_USER_ID": "6640ffee00112233445566bb",
    }
)
JSON = {"Content-Type": "application/json", "X-Webhook-Secret": SECRET}


@dataclass
class RecordingEnqueuer:
    """Keeps claimed keys and queued events in memory; can be told to fail."""

    events: list[PrEvent] = field(default_factory=list)
    claimed: set[str] = field(default_factory=set)
    failure: Exception | None = None
    is_ready: bool = True
    closed: bool = False

    async def enqueue(self, event: PrEvent, dedupe: DedupeKey) -> EnqueueOutcome:
        if self.failure is not None:
            raise self.failure
        if dedupe.key in self.claimed:
            return EnqueueOutcome.DUPLICATE
        self.claimed.add(dedupe.key)
        self.events.append(event)
        return EnqueueOutcome.QUEUED

    async def ready(self) -> bool:
        return self.is_ready

    async def close(self) -> None:
        self.closed = True


@pytest.fixture
def enqueuer() -> RecordingEnqueuer:
    return RecordingEnqueuer()


@pytest.fixture
def client(enqueuer: RecordingEnqueuer) -> Iterator[TestClient]:
    app = create_app(SETTINGS, enqueuer, clock=lambda: "2026-11-22T08:00:00.000Z")
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client
    assert enqueuer.closed, "the app closes its enqueuer on shutdown"


def post(client: TestClient, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, str]:
    response = client.post(WEBHOOK_PATH, content=body, headers=JSON if headers is None else headers)
    return response.status_code, response.json()["status"]


PR_OPENED = webhook_bytes("pr_opened.discussion_create")


def test_pr_opened_is_queued(client: TestClient, enqueuer: RecordingEnqueuer) -> None:
    assert post(client, PR_OPENED) == (202, "queued")
    [event] = enqueuer.events
    assert (event.kind, event.repo_id, event.pr_num) == ("opened", "acme-labs/tiny-llm", 7)
    assert event.received_at == "2026-11-22T08:00:00.000Z"


# --- 1. the secret ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("secret_headers", "status"),
    [
        ({}, 401),
        ({"X-Webhook-Secret": ""}, 403),
        ({"X-Webhook-Secret": "wrong"}, 403),
        ({"X-Webhook-Secret": SECRET[:-1] + "X"}, 403),  # differs in the last byte only
        ({"X-Webhook-Secret": SECRET + " "}, 403),
        ({"X-Webhook-Secret": SECRET.upper()}, 403),
        ({"x-webhook-secret": SECRET}, 202),  # header names are case-insensitive
        ({"X-Webhook-Secret": PREVIOUS}, 202),  # rotation: the previous secret still works
    ],
)
def test_secret_header(
    client: TestClient, enqueuer: RecordingEnqueuer, secret_headers: dict[str, str], status: int
) -> None:
    headers = {"Content-Type": "application/json"} | secret_headers
    assert post(client, PR_OPENED, headers)[0] == status
    assert len(enqueuer.events) == (1 if status == 202 else 0)


def test_the_secret_is_checked_in_constant_time_against_both_secrets(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrong secret is compared with `hmac.compare_digest`, as bytes, against the current
    and the previous secret both (no short cut on the first mismatch): `==` or an `any()`
    over a generator would leak timing and fail here."""
    import hmac

    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def recording(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", recording)  # the module bot.settings calls
    headers = {"Content-Type": "application/json", "X-Webhook-Secret": "wrong"}
    assert post(client, PR_OPENED, headers)[0] == 403
    assert sorted(b for _, b in calls) == sorted([SECRET.encode(), PREVIOUS.encode()])
    assert all(isinstance(a, bytes) and isinstance(b, bytes) for a, b in calls)


def test_non_ascii_secret_header_is_forbidden(client: TestClient) -> None:
    response = client.post(
        WEBHOOK_PATH,
        content=PR_OPENED,
        headers=[(b"Content-Type", b"application/json"), (b"X-Webhook-Secret", "sécret".encode())],
    )
    assert response.status_code == 403


def test_secret_in_query_string_is_not_accepted(
    client: TestClient, enqueuer: RecordingEnqueuer
) -> None:
    response = client.post(
        f"{WEBHOOK_PATH}?secret={SECRET}",
        content=PR_OPENED,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 401
    assert enqueuer.events == []


# --- 2. body size ----------------------------------------------------------------------------


def test_ten_megabyte_body_is_refused(client: TestClient, enqueuer: RecordingEnqueuer) -> None:
    body = b'{"pad": "' + b"x" * (10 * 1024 * 1024) + b'"}'
    response = client.post(WEBHOOK_PATH, content=body, headers=JSON)
    assert response.status_code == 413
    assert response.headers["connection"] == "close"  # the rest is not worth reading
    assert enqueuer.events == []


def test_chunked_body_without_length_is_capped_while_reading(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"pad": "'
        for _ in range(2 * 1024):
            yield b"x" * 1024
        yield b'"}'

    response = client.post(WEBHOOK_PATH, content=chunks(), headers=JSON)
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in response.request.headers
    assert response.status_code == 413


def test_chunked_body_within_the_cap_is_accepted(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield PR_OPENED[:100]
        yield PR_OPENED[100:]

    assert client.post(WEBHOOK_PATH, content=chunks(), headers=JSON).status_code == 202


def test_body_of_exactly_the_cap_is_read(client: TestClient) -> None:
    payload = PR_OPENED.rstrip()
    padded = payload + b" " * (MAX_BODY_BYTES - len(payload))
    assert post(client, padded) == (202, "queued")
    assert post(client, padded + b" ") == (413, "too_large")


def test_size_is_checked_before_the_secret(client: TestClient) -> None:
    body = b"x" * (MAX_BODY_BYTES + 1)
    assert post(client, body, {"Content-Type": "application/json"}) == (413, "too_large")


# --- 3. content type and JSON ----------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin-1",
        "application/jsonp",
        "",
    ],
)
def test_content_type_must_be_json(client: TestClient, content_type: str) -> None:
    headers = {"Content-Type": content_type, "X-Webhook-Secret": SECRET}
    assert post(client, PR_OPENED, headers) == (415, "unsupported_media")


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "Application/JSON"])
def test_json_content_type_variants(client: TestClient, content_type: str) -> None:
    headers = {"Content-Type": content_type, "X-Webhook-Secret": SECRET}
    assert post(client, PR_OPENED, headers)[0] == 202


def test_secret_is_checked_before_content_type(client: TestClient) -> None:
    headers = {"Content-Type": "text/plain", "X-Webhook-Secret": "wrong"}
    assert post(client, PR_OPENED, headers)[0] == 403


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b'{"event": "\xff\xfe"}',  # invalid UTF-8
        "\ufeff".encode("utf-16") + PR_OPENED,  # a UTF-16 BOM
        PR_OPENED.decode().encode("utf-16"),
        b"\xef\xbb\xbf" + PR_OPENED,  # a UTF-8 BOM is not JSON either (RFC 8259 section 8.1)
        PR_OPENED[:-3] + b', "repo": {"type": "model", "name": "evil/repo"}}',  # "repo" twice
        b'{"webhook": {"version": NaN}}',
        b'{"webhook": {"version": Infinity}}',
        # a number past float's range reads as infinity: not JSON any sender meant
        re.sub(rb'"num":\s*\d+', b'"num": 1e400', PR_OPENED, count=1),
        re.sub(rb'"num":\s*\d+', b'"num": -1E+999', PR_OPENED, count=1),
        b'{"webhook": {"version": 1.5e309}}',
        b'{"n": ' + b"9" * 5000 + b"}",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        b"[]",
        b'"a string"',
        b"3",
    ],
)
def test_unusable_bodies_are_400(
    client: TestClient, enqueuer: RecordingEnqueuer, body: bytes
) -> None:
    assert post(client, body) == (400, "bad_request")
    assert enqueuer.events == []


# --- 4. irrelevant but authentic deliveries --------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "unknown_subscope.repo_config_dois",
        "unknown_action.discussion_move",
        "discussion_opened.discussion_create",
        "space_new_pr_ref.repo_content_update",
        "version_4.discussion_create",
        "comment_edited.discussion_comment_update",
        "comment_by_bot.discussion_comment_create",
    ],
)
def test_irrelevant_deliveries_are_202_and_not_queued(
    client: TestClient, enqueuer: RecordingEnqueuer, name: str
) -> None:
    assert post(client, webhook_bytes(name)) == (202, "ignored")
    assert enqueuer.events == []


def test_private_repo_with_unknown_fields_is_processed(
    client: TestClient, enqueuer: RecordingEnqueuer
) -> None:
    body = webhook_bytes("private_repo_push_with_unknown_fields.repo_content_update")
    assert post(client, body) == (202, "queued")


# --- 5. the payload is a hint ----------------------------------------------------------------


def test_queued_event_carries_ids_only_never_payload_urls_or_text(
    client: TestClient, enqueuer: RecordingEnqueuer
) -> None:
    payload = webhook("comment_mention_recheck.discussion_comment_create")
    payload["discussion"]["url"]["api"] = "https://attacker.example/api/models/x/discussions/1"
    post(client, json.dumps(payload).encode())
    [event] = enqueuer.events
    serialized = json.dumps(event.to_json())
    assert "attacker.example" not in serialized
    assert "benchmark revision" not in serialized  # the comment's text stays on the Hub


# --- 6. duplicates and bursts ----------------------------------------------------------------


def test_same_delivery_twice_is_queued_once(
    client: TestClient, enqueuer: RecordingEnqueuer
) -> None:
    body = webhook_bytes("pr_push.repo_content_update")
    headers = JSON | {"Webhook-Id": "6651f00dcafe0001"}
    assert post(client, body, headers) == (202, "queued")
    assert post(client, body, headers) == (202, "duplicate")
    assert post(client, body) == (202, "queued")  # same event, no id: its digest is its own key
    assert post(client, body) == (202, "duplicate")
    assert len(enqueuer.events) == 2


def test_the_two_webhooks_of_one_pr_open_queue_one_event(
    client: TestClient, enqueuer: RecordingEnqueuer
) -> None:
    assert post(client, webhook_bytes("pr_opened.repo_content_new_ref"))[1] == "queued"
    assert post(client, PR_OPENED)[1] == "duplicate"
    assert [event.kind for event in enqueuer.events] == ["opened"]


def test_burst_of_a_thousand_deliveries(client: TestClient, enqueuer: RecordingEnqueuer) -> None:
    body = webhook_bytes("pr_push.repo_content_update")
    statuses = [
        post(client, body, JSON | {"Webhook-Id": f"burst-{index % 500}"}) for index in range(1000)
    ]
    assert statuses.count((202, "queued")) == 500
    assert statuses.count((202, "duplicate")) == 500
    assert len(enqueuer.events) == 500


# --- queue failures and unexpected errors ----------------------------------------------------


def test_queue_unavailable_is_503_so_the_hub_retries(
    client: TestClient, enqueuer: RecordingEnqueuer
) -> None:
    enqueuer.failure = QueueUnavailable("ConnectionError: refused")
    response = client.post(WEBHOOK_PATH, content=PR_OPENED, headers=JSON)
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    enqueuer.failure = None
    assert post(client, PR_OPENED) == (202, "queued")  # the retry goes through


def test_unexpected_error_is_503_never_500(
    client: TestClient, enqueuer: RecordingEnqueuer, caplog: pytest.LogCaptureFixture
) -> None:
    enqueuer.failure = RuntimeError("bug")
    headers = JSON | {"Webhook-Id": "delivery-with-bug"}
    assert post(client, PR_OPENED, headers) == (503, "error")
    assert any(
        "delivery-with-bug" in record.getMessage() and record.exc_info for record in caplog.records
    )


# --- health, readiness, metrics, logs --------------------------------------------------------


def test_health_and_readiness(client: TestClient, enqueuer: RecordingEnqueuer) -> None:
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    enqueuer.is_ready = False
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200


def test_metrics_count_outcomes_reasons_and_commands(client: TestClient) -> None:
    post(client, PR_OPENED)
    post(client, PR_OPENED)
    post(client, PR_OPENED, {"Content-Type": "application/json"})
    post(client, webhook_bytes("comment_unknown_command.discussion_comment_create"))
    post(client, webhook_bytes("comment_by_bot.discussion_comment_create"))
    text = client.get("/metrics").text
    for line in (
        'evalbot_receiver_deliveries_total{outcome="queued"} 1.0',
        'evalbot_receiver_deliveries_total{outcome="duplicate"} 1.0',
        'evalbot_receiver_deliveries_total{outcome="unauthorized"} 1.0',
        'evalbot_receiver_deliveries_total{outcome="ignored"} 2.0',
        'evalbot_receiver_ignored_total{reason="unknown-command"} 1.0',
        'evalbot_receiver_commands_ignored_total{reason="own-comment"} 1.0',
        'evalbot_receiver_events_queued_total{kind="opened"} 1.0',
        "evalbot_receiver_enqueue_seconds_count 2.0",
        "evalbot_receiver_ack_seconds_count 5.0",
    ):
        assert line in text, line


def test_one_log_line_per_delivery_without_the_secret(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="evalbot.receiver")
    post(client, PR_OPENED, JSON | {"Webhook-Id": "log-me-1"})
    post(client, PR_OPENED, {"Content-Type": "application/json", "X-Webhook-Secret": "wrong"})
    client.post(f"{WEBHOOK_PATH}?secret={SECRET}", content=PR_OPENED)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "evalbot.receiver"]
    assert [line["outcome"] for line in lines] == ["queued", "forbidden", "unauthorized"]
    assert lines[0]["delivery"] == "log-me-1"
    assert (lines[0]["kind"], lines[0]["repo"], lines[0]["pr"]) == (
        "opened",
        "acme-labs/tiny-llm",
        7,
    )
    assert SECRET not in caplog.text


# --- the strict JSON reader, on arbitrary input ----------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), JSON_VALUES, max_size=5))
def test_every_json_object_reads_back(payload: dict[str, object]) -> None:
    assert _parse_json(json.dumps(payload).encode()) == payload


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_either_parse_or_are_a_400(body: bytes) -> None:
    outcome: object
    try:
        outcome = _parse_json(body)
    except _Rejected as rejected:
        outcome = rejected.outcome
    assert isinstance(outcome, dict) or outcome == "bad_request"


def test_every_outcome_has_a_status_a_text_and_a_metric() -> None:
    from bot.receiver.answers import ANSWERS
    from bot.receiver.app import OUTCOMES

    assert set(ANSWERS) == set(OUTCOMES)
    assert all(answer.text for answer in ANSWERS.values())
    statuses = [answer.status for answer in ANSWERS.values()]
    assert not any(500 <= status < 503 or status > 503 for status in statuses)


def test_an_out_of_range_number_is_not_read_as_infinity() -> None:
    body = re.sub(rb'"num":\s*\d+', b'"num": 1e400', PR_OPENED, count=1)
    assert body != PR_OPENED  # the sample has a PR number to replace
    with pytest.raises(_Rejected):
        _parse_json(body)
    assert _parse_json(b'{"score": 1.5e308, "small": 1e-400}') == {"score": 1.5e308, "small": 0.0}
