from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx2
import pytest
from huggingface_hub import hf_raise_for_status
from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, OfflineModeIsEnabled

from bot.hub.errors import (
    HubPermanentError,
    HubTransientError,
    retry_after_from_headers,
    to_hub_error,
)


def hub_exception(status: int, **headers: str) -> HfHubHTTPError:
    """The exception the real client raises for this response."""
    response = httpx2.Response(
        status,
        json={"error": "x"},
        headers=headers,
        request=httpx2.Request("GET", "https://hub.test/api/models/a/b/discussions/1"),
    )
    with pytest.raises(HfHubHTTPError) as caught:
        hf_raise_for_status(response)
    return caught.value


@pytest.mark.parametrize("status", [408, 425, 429, 500, 502, 503, 504, 599])
def test_retryable_statuses_are_transient(status: int) -> None:
    assert isinstance(to_hub_error(hub_exception(status)), HubTransientError)


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, None),
        (401, None),
        (403, None),
        (404, "RepoNotFound"),
        (404, "RevisionNotFound"),
        (404, "EntryNotFound"),
        (403, "GatedRepo"),
        (409, None),
        (422, None),
    ],
)
def test_client_errors_are_permanent(status: int, code: str | None) -> None:
    headers = {"X-Error-Code": code} if code else {}
    error = to_hub_error(hub_exception(status, **headers))
    assert isinstance(error, HubPermanentError)
    assert error.status == status
    assert error.code == code


def test_ratelimit_header_gives_the_wait() -> None:
    error = to_hub_error(
        hub_exception(
            429,
            RateLimit='"api";r=0;t=55',
            **{"RateLimit-Policy": '"fixed window";"api";q=500;w=300'},
        )
    )
    assert isinstance(error, HubTransientError)
    assert error.retry_after == 55


def test_larger_of_ratelimit_and_retry_after_wins() -> None:
    headers = {"ratelimit": '"api";r=0;t=10', "Retry-After": "30"}
    assert retry_after_from_headers(headers) == 30


def test_ratelimit_with_quota_left_is_not_the_reason() -> None:
    assert retry_after_from_headers({"RateLimit": '"api";r=12;t=55'}) is None


def test_unquoted_ratelimit_is_still_read() -> None:
    assert retry_after_from_headers({"RateLimit": "api;r=0;t=7"}) == 7


def test_retry_after_as_http_date() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    headers = {"Retry-After": "Thu, 01 Jan 2026 12:00:42 GMT"}
    assert retry_after_from_headers(headers, now=now) == 42
    assert retry_after_from_headers({"Retry-After": "garbage"}) is None
    assert retry_after_from_headers({}) is None


def test_503_with_retry_after_is_honoured() -> None:
    error = to_hub_error(hub_exception(503, **{"Retry-After": "120"}))
    assert isinstance(error, HubTransientError)
    assert error.retry_after == 120


@pytest.mark.parametrize(
    "exc",
    [
        httpx2.ConnectError("refused"),
        httpx2.ReadTimeout("slow"),
        httpx2.RemoteProtocolError("reset"),
        ConnectionResetError("reset"),
        TimeoutError("slow"),
    ],
)
def test_transport_failures_are_transient(exc: Exception) -> None:
    assert isinstance(to_hub_error(exc), HubTransientError)


@pytest.mark.parametrize(
    "exc",
    [
        OfflineModeIsEnabled("Cannot reach http://hub/api: offline mode is enabled."),
        LocalEntryNotFoundError("An error happened while trying to locate the file on the Hub"),
    ],
    ids=["offline", "local-entry-not-found"],
)
def test_offline_and_a_download_that_could_not_ask_the_hub_are_transient(exc: Exception) -> None:
    """`LocalEntryNotFoundError` is an `EntryNotFoundError` but says the Hub was not reached:
    it was no Hub error at all (None), so a caller could take it for "no such file"."""
    mapped = to_hub_error(exc)
    assert isinstance(mapped, HubTransientError)
    assert not isinstance(mapped, HubPermanentError)


def test_bad_url_is_permanent_and_bugs_are_not_hub_errors() -> None:
    assert isinstance(to_hub_error(httpx2.UnsupportedProtocol("ftp")), HubPermanentError)
    assert to_hub_error(ValueError("Invalid discussion_num")) is None
    assert to_hub_error(KeyError("x")) is None


def test_invalid_json_in_a_200_is_transient() -> None:
    try:
        json.loads('{"events": [{"type": "comm')
    except json.JSONDecodeError as error:
        mapped = to_hub_error(error)
    assert isinstance(mapped, HubTransientError)
    assert "invalid JSON" in str(mapped)
