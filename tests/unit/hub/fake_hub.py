"""A tiny Hub behind `httpx2.MockTransport`: the real `HfApi` code path, no sockets.

Routes answer like the Hub does (docs/hub-api.md#http-endpoints, #emulator-checklist): JSON bodies,
`X-Error-Code` on errors. Every request except the client's telemetry probe is recorded, so tests
can count calls. `faults` queues responses to serve before the normal answer of a route.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx2
from huggingface_hub import HfApi, set_client_factory
from huggingface_hub.utils._http import default_client_factory

SAMPLES = Path(__file__).parent / "samples"
ENDPOINT = "https://hub.test"
#: Another origin, as the CDN an LFS file's resolve redirects to.
CDN = "https://cdn.test"


def sample_details() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SAMPLES / "pr_details.json").read_text())
    return data


def _json(status: int, body: Any, **headers: str) -> httpx2.Response:
    return httpx2.Response(status, json=body, headers=headers)


def _not_found(code: str) -> httpx2.Response:
    return httpx2.Response(
        404, json={"error": code}, headers={"X-Error-Code": code, "X-Error-Message": code}
    )


@dataclass
class FakeHub:
    details: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    files: dict[tuple[str, str, str], bytes] = field(default_factory=dict)  # (repo, sha, path)
    datasets: dict[str, dict[str, Any]] = field(default_factory=dict)  # lower id -> info
    commits: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    trees: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    cdn: dict[str, bytes] = field(default_factory=dict)  # path on `CDN` -> bytes
    faults: list[httpx2.Response] = field(default_factory=list)
    requests: list[httpx2.Request] = field(default_factory=list)
    posted: list[tuple[str, str]] = field(default_factory=list)  # (url path, content)

    @property
    def calls(self) -> list[str]:
        return [f"{r.method} {unquote(r.url.path)}" for r in self.requests]

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        path = unquote(request.url.path)
        if path == "/api/agent-harnesses":
            return httpx2.Response(404)
        self.requests.append(request)
        if self.faults:
            return self.faults.pop(0)
        if f"{request.url.scheme}://{request.url.host}" == CDN:
            content = self.cdn.get(path)
            return httpx2.Response(200, content=content) if content is not None else _json(404, {})
        if m := re.fullmatch(r"/api/models/(.+?/.+?)/discussions/(\d+)", path):
            found = self.details.get((m[1], int(m[2])))
            return _json(200, found) if found else _not_found("RepoNotFound")
        if m := re.fullmatch(r"/api/models/(.+?/.+?)/discussions/(\d+)/comment", path):
            body = json.loads(request.content)
            self.posted.append((path, body["comment"]))
            return _json(200, {"newMessage": _comment("c0ffee" + "0" * 18, body["comment"])})
        if m := re.fullmatch(r"/api/models/(.+?/.+?)/discussions/(\d+)/comment/(\w+)/edit", path):
            body = json.loads(request.content)
            self.posted.append((path, body["content"]))
            return _json(200, {"updatedComment": _comment(m[3], body["content"])})
        if m := re.fullmatch(r"/api/datasets/([^/]+/[^/]+)(?:/revision/(.+))?", path):
            info = self.datasets.get(m[1].lower())
            return _json(200, info) if info else _not_found("RepoNotFound")
        if m := re.fullmatch(r"/api/models/(.+?/.+?)/revision/(.+)", path):
            return _json(200, {"id": m[1], "sha": "f" * 40})
        if m := re.fullmatch(r"/api/models/(.+?/.+?)/commits/(.+)", path):
            return _json(200, self.commits.get((m[1], m[2]), []))
        if m := re.fullmatch(r"/api/models/(.+?/.+?)/tree/([^/]+)/(.+)", path):
            tree = self.trees.get((m[1], m[2]))
            return _json(200, tree) if tree is not None else _not_found("EntryNotFound")
        if m := re.fullmatch(r"/(?:datasets/)?(.+?/.+?)/resolve/([^/]+)/(.+)", path):
            content = self.files.get((m[1], m[2], m[3]))
            if content is None:
                return _not_found("EntryNotFound")
            return httpx2.Response(200, content=content, headers={"X-Repo-Commit": m[2]})
        return httpx2.Response(404, json={"error": "no route"})


def _comment(comment_id: str, raw: str) -> dict[str, Any]:
    return {
        "id": comment_id,
        "type": "comment",
        "createdAt": "2026-01-12T00:00:00.000Z",
        "author": {"name": "evalbot"},
        "data": {"edited": False, "hidden": False, "latest": {"raw": raw, "html": ""}},
    }


def install(hub: FakeHub) -> Iterator[HfApi]:
    """Route `huggingface_hub`'s shared session to `hub` for the duration of a test."""
    set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(hub.handle)))
    try:
        yield HfApi(endpoint=ENDPOINT, token="hf_test_token")
    finally:
        set_client_factory(default_client_factory)
