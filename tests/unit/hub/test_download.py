"""Reading a file through redirects (`bot.hub.capped_read` via `HfHubClient.read_file`): LFS files
answer 302 to another origin; the token stays on the Hub; loops, odd schemes and declared
oversizes are errors of that one file."""

from __future__ import annotations

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.hub.capped_read import MAX_REDIRECTS, origin
from bot.hub.client import HfHubClient
from bot.hub.errors import (
    HubFileTooLarge,
    HubFileUnreadable,
    HubPermanentError,
    HubTransientError,
)
from tests.unit.hub.fake_hub import CDN, ENDPOINT, FakeHub
from workers.hub_pause import pause_for

REPO = "acme/model-7b"
HEAD = "b" * 40
PATH = ".eval_results/gpqa.yaml"
CONTENT = b"- dataset: {id: idavidrein/gpqa, task_id: diamond}\n  value: 41.5\n"
OBJECT = "/repos/ab/cd/" + "e" * 64


def lfs_redirect(location: str, size: int = len(CONTENT), status: int = 302) -> httpx2.Response:
    return httpx2.Response(
        status,
        headers={
            "Location": location,
            "X-Repo-Commit": HEAD,
            "X-Linked-Etag": '"' + "e" * 64 + '"',
            "X-Linked-Size": str(size),
        },
    )


def test_an_lfs_file_is_read_from_the_cdn_without_the_token(
    client: HfHubClient, hub: FakeHub
) -> None:
    hub.faults.append(lfs_redirect(f"{CDN}{OBJECT}?Expires=1&Signature=x"))
    hub.cdn[OBJECT] = CONTENT
    assert client.read_file(REPO, PATH, HEAD) == CONTENT
    hub_request, cdn_request = hub.requests
    assert hub_request.headers["authorization"] == "Bearer hf_test_token"
    assert cdn_request.url.host == "cdn.test"
    assert "authorization" not in cdn_request.headers
    assert cdn_request.url.params["Signature"] == "x"


def test_a_relative_redirect_stays_on_the_hub_and_keeps_the_token(
    client: HfHubClient, hub: FakeHub
) -> None:
    hub.faults.append(lfs_redirect(f"/{REPO}/resolve/{HEAD}/other.yaml"))
    hub.files[(REPO, HEAD, "other.yaml")] = CONTENT
    assert client.read_file(REPO, PATH, HEAD) == CONTENT
    assert hub.requests[1].url.host == "hub.test"
    assert hub.requests[1].headers["authorization"] == "Bearer hf_test_token"


def test_a_hop_back_from_the_cdn_to_the_hub_gets_the_token_again_and_only_there(
    client: HfHubClient, hub: FakeHub
) -> None:
    hub.faults += [
        lfs_redirect(f"{CDN}/bounce"),
        lfs_redirect(f"{ENDPOINT}/{REPO}/resolve/{HEAD}/other.yaml"),
    ]
    hub.files[(REPO, HEAD, "other.yaml")] = CONTENT
    assert client.read_file(REPO, PATH, HEAD) == CONTENT
    sent = [(r.url.host, "authorization" in r.headers) for r in hub.requests]
    assert sent == [("hub.test", True), ("cdn.test", False), ("hub.test", True)]


def test_a_declared_size_over_the_cap_is_refused_before_the_cdn(
    client: HfHubClient, hub: FakeHub
) -> None:
    fifty_mb = 50 * 1024 * 1024
    hub.faults.append(lfs_redirect(f"{CDN}{OBJECT}", size=fifty_mb))
    hub.cdn[OBJECT] = CONTENT
    with pytest.raises(HubFileTooLarge) as caught:
        client.read_file(REPO, PATH, HEAD)
    assert (caught.value.size, caught.value.limit) == (fifty_mb, 1024 * 1024)
    assert [r.url.host for r in hub.requests] == ["hub.test"]


def test_the_bytes_read_win_over_a_small_declared_size(client: HfHubClient, hub: FakeHub) -> None:
    hub.faults.append(lfs_redirect(f"{CDN}{OBJECT}", size=10))
    hub.cdn[OBJECT] = b"x" * 5000
    assert client.read_file(REPO, PATH, HEAD, max_bytes=100) == b"x" * 101


def test_a_redirect_loop_is_an_error_of_the_file_after_a_few_hops(
    client: HfHubClient, hub: FakeHub
) -> None:
    loop = f"{CDN}/loop"
    hub.faults += [lfs_redirect(loop) for _ in range(MAX_REDIRECTS + 5)]
    with pytest.raises(HubFileUnreadable, match="more than 5 times"):
        client.read_file(REPO, PATH, HEAD)
    assert len(hub.requests) == MAX_REDIRECTS + 1


@pytest.mark.parametrize(
    ("location", "shown"),
    [
        ("file:///etc/passwd", "`file:`"),
        ("ftp://cdn.test/x", "`ftp:`"),
        ("javascript:alert(1)", "`javascript:`"),
        ("http://", "invalid URL"),
        ("https://[::1/x", "invalid URL"),
    ],
)
def test_a_redirect_to_a_non_http_url_is_an_error_of_the_file(
    client: HfHubClient, hub: FakeHub, location: str, shown: str
) -> None:
    hub.faults.append(lfs_redirect(location))
    with pytest.raises(HubFileUnreadable) as caught:
        client.read_file(REPO, PATH, HEAD)
    assert shown in str(caught.value)
    assert len(hub.requests) == 1


def test_a_redirect_without_location_is_an_error_of_the_file(
    client: HfHubClient, hub: FakeHub
) -> None:
    hub.faults.append(httpx2.Response(302, headers={"X-Repo-Commit": HEAD}))
    with pytest.raises(HubFileUnreadable, match="302"):
        client.read_file(REPO, PATH, HEAD)


@pytest.mark.parametrize("status", [403, 404, 410])
def test_a_refusal_from_the_cdn_is_an_error_of_the_file(
    client: HfHubClient, hub: FakeHub, status: int
) -> None:
    """The storage is not the Hub: its 404 is not "the PR changed" (a retry would re-read the
    same redirect) and its 403 is not the bot's token being refused (a parked event, no
    report). The file gets its error in the report; the PR's other files are still checked."""
    hub.faults.append(lfs_redirect(f"{CDN}/object"))
    hub.faults.append(httpx2.Response(status))
    with pytest.raises(HubFileUnreadable, match=f"cdn.test.*{status}"):
        client.read_file(REPO, PATH, HEAD)


@pytest.mark.parametrize(
    ("status", "headers", "retry_after"),
    [
        (503, {"Retry-After": "120"}, 120.0),
        (429, {"Retry-After": "30"}, 30.0),
        (500, {}, None),
        (408, {}, None),
    ],
)
def test_a_failure_of_the_cdn_retries_the_run_without_pausing_the_hub_calls(
    client: HfHubClient,
    hub: FakeHub,
    status: int,
    headers: dict[str, str],
    retry_after: float | None,
) -> None:
    """A transient error without a status: the run retries (its `Retry-After` honoured), but
    `workers.hub_pause` pauses the workers only for the Hub's own 429/503."""
    hub.faults.append(lfs_redirect(f"{CDN}/object"))
    hub.faults.append(httpx2.Response(status, headers=headers))
    with pytest.raises(HubTransientError) as caught:
        client.read_file(REPO, PATH, HEAD)
    assert caught.value.status is None
    assert caught.value.retry_after == retry_after
    assert pause_for(caught.value) is None


def test_an_error_from_the_hub_itself_is_still_the_usual_hub_error(
    client: HfHubClient, hub: FakeHub
) -> None:
    hub.faults.append(httpx2.Response(404, headers={"X-Error-Code": "EntryNotFound"}))
    with pytest.raises(HubPermanentError) as caught:
        client.read_file(REPO, PATH, HEAD)
    assert not isinstance(caught.value, HubFileUnreadable)
    assert caught.value.not_found  # a retry re-reads the PR (workers.model_pr)


@pytest.mark.parametrize("port", ["99999", "abc", "-1", "1e3"])
def test_a_redirect_to_an_invalid_port_is_an_error_of_the_file(
    client: HfHubClient, hub: FakeHub, port: str
) -> None:
    hub.faults.append(lfs_redirect(f"https://cdn.test:{port}/object"))
    with pytest.raises(HubFileUnreadable, match="invalid URL"):
        client.read_file(REPO, PATH, HEAD)
    assert len(hub.requests) == 1


@given(st.sampled_from(["http", "https", "HTTP"]), st.integers(1, 65535))
def test_origin_fills_default_ports(scheme: str, port: int) -> None:
    default = 80 if scheme.lower() == "http" else 443
    assert origin(f"{scheme}://Hub.Test/x") == (scheme.lower(), "hub.test", default)
    assert origin(f"{scheme}://hub.test:{port}/x")[2] == port
