"""The CDN origin LFS downloads are redirected to: another port on 127.0.0.1, so another origin.

On the real Hub, `resolve` of an LFS file answers 302 to `cdn-lfs.hf.co` (or the xet bridge)
with a signed URL, and clients drop the `Authorization` header on that cross-origin hop
(docs/hub-api.md#downloads). `EmulatorServer` listens on a second socket for this; requests reaching
it are served from the repos' LFS objects and recorded, with whether they carried an
`Authorization` header, so tests can check that no token leaves the Hub.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evalbot_dev.emulator import hub_texts
from evalbot_dev.emulator.lfs import CDN_URL_TTL_S, cdn_signature, signature_ok
from evalbot_dev.emulator.model import Repo

if TYPE_CHECKING:
    from evalbot_dev.emulator.state import HubState


@dataclass(frozen=True, slots=True)
class CdnRequest:
    """One request the CDN origin received."""

    method: str
    path: str
    status: int
    authorization: bool  # an Authorization header reached the CDN

    def to_json(self) -> dict[str, object]:
        return {
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "authorization": self.authorization,
        }


@dataclass
class Cdn:
    """Where LFS bytes are served from; `endpoint` is None until a server listens for it."""

    endpoint: str | None = None
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    _log: list[CdnRequest] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def url_for(self, repo: Repo, sha256: str, *, now: float | None = None) -> str:
        """A signed URL for one object of `repo`, valid `CDN_URL_TTL_S` seconds."""
        path = f"/repos/{repo.type}s/{quote(repo.full_name)}/{sha256}"
        expires = int((now if now is not None else time.time()) + CDN_URL_TTL_S)
        signature = cdn_signature(self.secret, path, expires)
        return f"{self.endpoint}{path}?Expires={expires}&Signature={signature}"

    def record(self, entry: CdnRequest) -> None:
        with self._lock:
            self._log.append(entry)

    def requests(self) -> list[CdnRequest]:
        with self._lock:
            return list(self._log)


def routes(state: HubState) -> list[Route]:
    """The CDN's only route: `GET|HEAD /repos/{type}s/{ns}/{name}/{sha256}?Expires=&Signature=`."""

    async def serve(request: Request) -> Response:
        response = _answer(state, request)
        state.cdn.record(
            CdnRequest(
                request.method,
                request.url.path,
                response.status_code,
                "authorization" in request.headers,
            )
        )
        return response

    return [Route("/repos/{type}/{ns}/{name}/{sha256}", serve, methods=["GET", "HEAD"])]


def _answer(state: HubState, request: Request) -> Response:
    query = request.query_params
    expires = query.get("Expires", "")
    raw_path = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0]
    if not expires.isdigit() or not signature_ok(
        state.cdn.secret, raw_path, int(expires), query.get("Signature", ""), time.time()
    ):
        return JSONResponse({"error": hub_texts.CDN_BAD_SIGNATURE}, status_code=403)
    params = request.path_params
    repo_type = str(params["type"]).removesuffix("s")
    try:
        repo = state.find_repo(repo_type, f"{params['ns']}/{params['name']}")
    except KeyError:
        return JSONResponse({"error": hub_texts.CDN_NOT_FOUND}, status_code=404)
    content = state.lfs_content(repo, str(params["sha256"]))
    if content is None:
        return JSONResponse({"error": hub_texts.CDN_NOT_FOUND}, status_code=404)
    headers = {"ETag": f'"{params["sha256"]}"', "Cache-Control": "public, max-age=31536000"}
    return Response(content, headers=headers, media_type="application/octet-stream")
