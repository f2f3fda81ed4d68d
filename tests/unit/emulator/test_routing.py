"""Raw-path routing: percent-encoded revisions stay one segment, file paths keep their slashes."""

from __future__ import annotations

import pytest

from evalbot_dev.emulator.faults import Faults
from evalbot_dev.emulator.http import HubRouter
from evalbot_dev.emulator.hubtime import hub_format
from evalbot_dev.emulator.routes import all_routes
from evalbot_dev.emulator.state import HubState

ROUTER = HubRouter(HubState(), Faults(), all_routes(), lambda: "http://127.0.0.1")


@pytest.mark.parametrize(
    ("method", "raw", "name", "params"),
    [
        (
            "GET",
            "/api/models/a/b/tree/refs%2Fpr%2F3/.eval_results",
            "repos.tree",
            {"rev": "refs/pr/3", "path": ".eval_results"},
        ),
        (
            "GET",
            "/api/models/a/b/tree/main/sub%2Fdir%20x",
            "repos.tree",
            {"rev": "main", "path": "sub/dir x"},
        ),
        (
            "GET",
            "/api/datasets/a/b/revision/refs%2Fpr%2F1",
            "repos.info_at_revision",
            {"type": "dataset", "rev": "refs/pr/1"},
        ),
        (
            "HEAD",
            "/a/b/resolve/refs%2Fpr%2F3/.eval_results/x.yaml",
            "files.resolve",
            {"ns": "a", "rev": "refs/pr/3", "path": ".eval_results/x.yaml"},
        ),
        (
            "GET",
            "/datasets/a/b/resolve/main/eval.yaml",
            "files.resolve",
            {"ns": "a", "name": "b", "path": "eval.yaml"},
        ),
        (
            "POST",
            "/api/models/a/b/discussions/3/comment/abc/edit",
            "discussions.edit_comment",
            {"num": "3", "comment_id": "abc"},
        ),
        ("POST", "/api/settings/webhooks/123/disable", "webhooks.disable", {"webhook_id": "123"}),
        ("GET", "/api/whoami-v2", "identity.whoami", {}),
    ],
)
def test_match(method: str, raw: str, name: str, params: dict[str, str]) -> None:
    matched = ROUTER.match(method, raw)
    assert matched is not None
    route, found = matched
    assert route.name == name
    assert params.items() <= found.items()


def test_unknown_routes_and_methods_do_not_match() -> None:
    assert ROUTER.match("GET", "/api/nothing/here") is None
    assert ROUTER.match("DELETE", "/api/models/a/b/discussions/1") is None


def test_hub_dates_end_in_z_and_parse_with_the_client() -> None:
    from datetime import UTC, datetime

    from huggingface_hub.utils._datetime import parse_datetime

    moment = datetime(2026, 1, 10, 12, 0, 0, 123456, tzinfo=UTC)
    text = hub_format(moment)
    assert text == "2026-01-10T12:00:00.123Z"
    assert parse_datetime(text) == moment.replace(microsecond=123000)
