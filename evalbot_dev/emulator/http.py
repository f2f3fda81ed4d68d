"""The HTTP layer: a router over the *raw* request path, auth, faults, and the Hub's error shape.

Routing must see the raw path: the client sends revisions fully percent-encoded
(`refs%2Fpr%2F3`), and the decoded path could no longer tell the revision from the file path
that follows it. Each segment is decoded after matching.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from evalbot_dev.emulator import hub_texts
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.faults import Faults
from evalbot_dev.emulator.model import Repo, Token
from evalbot_dev.emulator.state import HubState

logger = logging.getLogger(__name__)


@dataclass
class Ctx:
    """What a handler needs: the request, the state, the caller and the decoded path parts."""

    request: Request
    state: HubState
    token: Token | None
    params: dict[str, str]
    endpoint: str

    def repo(self) -> Repo:
        return self.state.get_repo(
            self.token, self.params["type"], f"{self.params['ns']}/{self.params['name']}"
        )

    async def json_body(self) -> dict[str, Any]:
        raw = await self.request.body()
        if not raw:
            return {}
        try:
            body = await self.request.json()
        except ValueError as exc:
            raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail=exc)) from exc
        if not isinstance(body, dict):
            raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail="expected a JSON object"))
        return body


Handler = Callable[[Ctx], Awaitable[Response]]

#: Path templates: `{type}` is models|datasets|spaces (singular in params), `{rest}` eats slashes.
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class HubRoute:
    methods: frozenset[str]
    template: str
    name: str
    handler: Handler
    bucket: str = "api"

    @property
    def pattern(self) -> re.Pattern[str]:
        return _compile(self.template)


_CACHE: dict[str, re.Pattern[str]] = {}


def _compile(template: str) -> re.Pattern[str]:
    if template not in _CACHE:

        def group(match: re.Match[str]) -> str:
            name = match[1]
            if name == "type":
                return r"(?P<type>model|dataset|space)s"
            if name in ("rest", "path"):
                return rf"(?P<{name}>.+)"
            return rf"(?P<{name}>[^/]+)"

        _CACHE[template] = re.compile("^" + _PLACEHOLDER.sub(group, template) + "$")
    return _CACHE[template]


def route(
    methods: str, template: str, name: str, *, bucket: str = "api"
) -> Callable[[Handler], HubRoute]:
    def wrap(handler: Handler) -> HubRoute:
        return HubRoute(frozenset(methods.split("|")), template, name, handler, bucket)

    return wrap


def json_response(
    content: Any, status: int = 200, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(content, status_code=status, headers=headers)


def error_response(error: HubError, extra_headers: dict[str, str] | None = None) -> Response:
    headers = {"X-Error-Message": error.message}
    if error.code:
        headers["X-Error-Code"] = error.code
    headers.update(extra_headers or {})
    return JSONResponse(
        {"error": error.message, **error.extra}, status_code=error.status, headers=headers
    )


#: Calls a repo-scoped token may make that name no repo (huggingface_hub makes them on the way).
_SCOPE_FREE_WRITES = frozenset({"identity.validate_yaml"})


def scoped(token: Token, method: str, route_name: str, params: dict[str, str]) -> Token | None:
    """A Trusted Publishers token on one request: itself on its own repo (and for calls that
    name no repo); on another repo, an anonymous caller's view for reads and 403 for writes."""
    target = None
    if "ns" in params and "name" in params:
        target = (params.get("type", "model"), f"{params['ns']}/{params['name']}".lower())
    if target == token.repo_scope or (target is None and method in ("GET", "HEAD")):
        return token
    if target is None and route_name in _SCOPE_FREE_WRITES:
        return token
    if method in ("GET", "HEAD"):
        return None
    shown = f"{params.get('ns', '')}/{params.get('name', '')}".strip("/") or route_name
    raise HubError(403, hub_texts.FORBIDDEN_WRITE.format(repo=shown))


class HubRouter:
    """Matches routes, authenticates, applies faults, and turns `HubError` into responses."""

    def __init__(
        self, state: HubState, faults: Faults, routes: list[HubRoute], endpoint: Callable[[], str]
    ) -> None:
        self.state = state
        self.faults = faults
        self.routes = routes
        self.endpoint = endpoint

    def match(self, method: str, raw_path: str) -> tuple[HubRoute, dict[str, str]] | None:
        for candidate in self.routes:
            found = candidate.pattern.match(raw_path)
            if found is None:
                continue
            if method in candidate.methods or (method == "HEAD" and "GET" in candidate.methods):
                params = {key: unquote(value) for key, value in found.groupdict().items()}
                return candidate, params
        return None

    async def handle(self, request: Request) -> Response:
        raw_path = (
            request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0]
            or request.url.path
        )
        matched = self.match(request.method, raw_path)
        if matched is None:
            return error_response(HubError(404, hub_texts.ROUTE_NOT_FOUND))
        hub_route, params = matched
        try:
            token = self.state.authenticate(request.headers.get("authorization"))
            if token is not None and token.repo_scope is not None:
                token = scoped(token, request.method, hub_route.name, params)
        except HubError as error:
            self.faults.count(hub_route.name)  # the Hub served it too: counters see every call
            return error_response(error)
        caller = token.user if token else (request.client.host if request.client else "anonymous")
        decision = self.faults.decide(hub_route.name, hub_route.bucket, caller)
        if decision.latency_s and decision.after_write is None:
            await asyncio.sleep(decision.latency_s)
        if decision.reject is not None:
            status, headers, message = decision.reject
            return error_response(HubError(status, message), headers)
        ctx = Ctx(request, self.state, token, params, self.endpoint())
        try:
            response = await hub_route.handler(ctx)
        except HubError as error:
            return error_response(error)
        except Exception:
            # A bug in the emulator: answer like the Hub's 500s (JSON, X-Error-Message) and log it.
            logger.exception("emulator route %s failed", hub_route.name)
            return error_response(HubError(500, hub_texts.INTERNAL_ERROR))
        if decision.after_write is not None:
            # The write has landed; the answer is late (the latency) and a failure.
            await asyncio.sleep(decision.latency_s)
            status, message = decision.after_write
            return error_response(HubError(status, message))
        if decision.truncate and isinstance(getattr(response, "body", None), bytes):
            body = bytes(response.body)
            headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
            return Response(
                body[: len(body) // 2], status_code=response.status_code, headers=headers
            )
        return response
