"""The operators' sign-in routes (Hub sign-in, the operator token's form, sign-out); refusals read
the same and go to the audit log with their reason (docs/web.md, "Operators")."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from bot.logs import log_json
from bot.web.guards import ADMIN_COOKIE, ADMIN_COOKIE_TTL_S, HUB, TOKEN, OperatorGate, cross_site
from bot.web.guards import audit as audit_log
from bot.web.hubsignin import (
    CALLBACK_PATH,
    PROVIDER_ERRORS,
    STATE_COOKIE,
    STATE_TTL_S,
    HubSignIn,
    SignInFailed,
)

ErrorPage = Callable[[Request, int, str, str], Response]
FAILED = "Sign-in failed. Start again from the status page."
#: Sign-ins (`/login`, callbacks) talking to the provider at once; beyond, 503 at once.
SIGNIN_SLOTS = 4
NOT_SET_UP = "Sign-in with Hugging Face is not set up."
BUSY = "Other sign-ins are under way; retry shortly."


def signin_routes(
    gate: OperatorGate,
    signin: HubSignIn | None,
    error: ErrorPage,
    clock: Callable[[], float],
    *,
    public_https: bool = False,
) -> list[Route]:
    """`/login` and its callback (Hub sign-in), the token form's `/status/login`, and
    `/status/logout`."""
    endpoints = SignInEndpoints(gate, signin, error, clock, public_https=public_https)
    # The sign-in's state travels in a cookie of its own, signed (itsdangerous), HttpOnly,
    # `SameSite=Lax` (it must come back on the Hub's top-level redirect, and only there: its
    # path is `/login`), `Secure` when the redirect is https, and dropped after one callback.
    session = (
        [
            Middleware(
                SessionMiddleware,
                secret_key=signin.session_secret,
                session_cookie=STATE_COOKIE,
                max_age=STATE_TTL_S,
                path="/login",
                same_site="lax",
                https_only=signin.config.redirect_uri.startswith("https://"),
            )
        ]
        if signin is not None
        else []
    )
    return [
        Route("/login", endpoints.login, methods=["GET"], middleware=session),
        Route(CALLBACK_PATH, endpoints.callback, methods=["GET"], middleware=session),
        Route("/status/login", endpoints.token_login, methods=["POST"]),
        Route("/status/logout", endpoints.logout, methods=["POST"]),
    ]


class SignInEndpoints:
    """The sign-in pages; each outcome is audited, a refusal says only that it failed."""

    def __init__(
        self,
        gate: OperatorGate,
        signin: HubSignIn | None,
        error: ErrorPage,
        clock: Callable[[], float],
        *,
        public_https: bool,
    ) -> None:
        self._gate = gate
        self._signin = signin
        self._error = error
        self._clock = clock
        # Each callback makes up to three calls to the provider (up to 10 s each), and `/login`
        # one until the discovery document is read: a flood of them, or a slow Hub, must not
        # pile up without bound.
        self._slots = asyncio.Semaphore(SIGNIN_SLOTS)
        # the public address is https (a Space's, or the OAuth redirect's): whatever the
        # request reads, an operator cookie never travels over plain http
        self._public_https = public_https or (
            signin is not None and signin.config.redirect_uri.startswith("https://")
        )

    def _signed_in(
        self, request: Request, kind: str, sub: str, via: str, access_token: str = ""
    ) -> Response:
        response = RedirectResponse("/status", status_code=303)
        response.set_cookie(
            ADMIN_COOKIE,
            self._gate.cookie(kind, sub, via, self._clock(), access_token),
            max_age=ADMIN_COOKIE_TTL_S,
            httponly=True,
            samesite="strict",
            # behind a Space's proxy the request reads http; the public address says https
            secure=request.url.scheme == "https" or self._public_https,
            path="/",
        )
        return response

    async def login(self, request: Request) -> Response:
        signin = self._signin
        if signin is None:
            return self._error(request, 404, "Not here", NOT_SET_UP)
        # until the provider's discovery document is read (a fresh start, a Hub that was
        # down) each sign-in asks the Hub for it: the same slots as the callbacks
        if self._slots.locked():
            return self._error(request, 503, "Busy", BUSY)
        async with self._slots:
            try:
                url = await signin.start(request)
            except (SignInFailed, *PROVIDER_ERRORS) as problem:
                log_json(audit_log, logging.WARNING, "sign-in refused", reason=_reason(problem))
                return self._error(
                    request, 503, "Sign-in unavailable", "The Hub did not answer; retry."
                )
        return RedirectResponse(url, status_code=303)

    async def callback(self, request: Request) -> Response:
        signin = self._signin
        if signin is None:
            return self._error(request, 404, "Not here", NOT_SET_UP)
        if self._slots.locked():
            request.session.clear()  # one use, whatever the outcome
            return self._error(request, 503, "Busy", BUSY)
        async with self._slots:
            try:
                who = await signin.finish(request)
            except (SignInFailed, *PROVIDER_ERRORS) as problem:
                log_json(audit_log, logging.WARNING, "sign-in refused", reason=_reason(problem))
                return self._error(request, 403, "Not signed in", FAILED)
        log_json(audit_log, logging.INFO, "signed in", user=who.sub, name=who.name, via=who.via)
        return self._signed_in(request, HUB, who.sub, who.via, who.access_token)

    async def token_login(self, request: Request) -> Response:
        refused = cross_site(request)
        if refused:
            return self._error(request, 403, "Refused", refused)
        gate = self._gate
        if gate.token is None:
            return self._error(request, 404, "Not here", "No operator token is set up.")
        try:
            form = await request.form(max_files=0, max_fields=2, max_part_size=4096)
        except Exception:  # malformed form: the parser's own errors vary by version
            return self._error(request, 400, "Unreadable form", "Send the form from the page.")
        presented = form.get("token")
        if not isinstance(presented, str) or not gate.token_matches(presented.encode("utf-8")):
            log_json(audit_log, logging.WARNING, "sign-in refused", reason="wrong operator token")
            return self._error(request, 403, "Wrong token", "That is not the operator token.")
        log_json(audit_log, logging.INFO, "signed in", user="operator-token")
        return self._signed_in(request, TOKEN, "-", "-")

    async def logout(self, request: Request) -> Response:
        refused = cross_site(request)
        if refused:
            return self._error(request, 403, "Refused", refused)
        response = RedirectResponse("/status", status_code=303)
        response.delete_cookie(ADMIN_COOKIE, path="/")
        return response


def _reason(problem: Exception) -> str:
    if isinstance(problem, SignInFailed):
        return str(problem)[:200]
    return f"provider unreachable or unreadable: {type(problem).__name__}"
