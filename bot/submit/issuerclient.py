"""Talks to `evalbot issuer`: its metadata (audience), and one token per entry."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx2

from bot.strictjson import I_JSON
from bot.submit.credentials import Credential
from bot.submit.errors import SubmitError
from bot.tokens.jwks import is_https_or_loopback, shown_url

TIMEOUT_S = 60.0


def check_issuer_url(issuer_url: str) -> None:
    """Refuse an issuer reached over plain http (anything but loopback): the job's identity
    travels to it, and the tokens it answers would be anyone's on the way."""
    if not is_https_or_loopback(issuer_url):
        raise SubmitError(
            f"the issuer URL {shown_url(issuer_url)!r} is not https: the job's identity would "
            "travel in clear; use the issuer's https URL (plain http is for loopback only)"
        )


def _same_url(one: str, other: str) -> bool:
    """Whether two URLs name the same place: scheme and host in any case, default ports
    written or not, a trailing slash or not."""

    def key(url: str) -> tuple[str, str, int | None, str] | None:
        parts = urlsplit(url.strip())
        try:
            port = parts.port
        except ValueError:
            return None
        scheme = parts.scheme.lower()
        default = {"http": 80, "https": 443}.get(scheme)
        if not parts.hostname or parts.username is not None or parts.query or parts.fragment:
            return None
        return scheme, parts.hostname, default if port is None else port, parts.path.rstrip("/")

    found = key(one)
    return found is not None and found == key(other)


def issuer_audience(issuer_url: str) -> str:
    """The audience the issuer wants CI ID tokens minted for (its metadata document).

    Only the issuer's own URL is taken from it: the job's provider signs an ID token for
    whatever audience is asked, and a token for another one (a cloud's token exchange, a
    package registry) lets whoever holds it act there as this job. An issuer that wants
    another audience is given it by the job itself (`--audience`)."""
    url = issuer_url.rstrip("/") + "/.well-known/evalbot-issuer"
    try:
        response = httpx2.get(url, timeout=10.0)
        response.raise_for_status()
        audience = response.json()["audience"]
    except (httpx2.HTTPError, ValueError, KeyError, TypeError) as error:
        raise SubmitError(
            f"cannot read the issuer's metadata at {shown_url(issuer_url)}: {error}"
        ) from error
    if not isinstance(audience, str):
        raise SubmitError(f"{url} names no audience")
    if not _same_url(audience, issuer_url):
        raise SubmitError(
            f"the issuer asks for ID tokens for the audience {audience[:200]!r}, not for its "
            "own URL; no ID token was requested: one for another audience could be used "
            "elsewhere as this job (a cloud account, a package registry). If that audience is "
            "the issuer's, pass it with --audience"
        )
    return audience


def request_tokens(
    issuer_url: str,
    credential: Credential,
    *,
    model_repo: str,
    entries: Sequence[dict[str, Any]],
    framework: str | None = None,
) -> list[dict[str, Any]]:
    """One `{index, verify_token, jti, expires_at, ...}` per entry, or `SubmitError`."""
    for index, entry in enumerate(entries):
        check_signable(index, entry)
    body: dict[str, Any] = {"model_repo": model_repo, "entries": list(entries)}
    if framework:
        body["framework"] = framework
    try:
        response = httpx2.post(
            issuer_url.rstrip("/") + "/v1/tokens",
            json=body,
            headers={"Authorization": credential.authorization},
            timeout=TIMEOUT_S,
        )
    except httpx2.HTTPError as error:
        raise SubmitError(f"cannot reach the issuer at {shown_url(issuer_url)}: {error}") from error
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    request_id = answer.get("request_id") if isinstance(answer, dict) else None
    if response.status_code != 200:
        message = answer.get("error") if isinstance(answer, dict) else None
        retry = response.headers.get("retry-after")
        suffix = f"; retry after {retry} s" if retry else ""
        raise SubmitError(
            f"the issuer refused ({response.status_code}): {message or 'no reason given'}{suffix}",
            request_id=request_id,
            problems=answer.get("problems", []) if isinstance(answer, dict) else [],
        )
    tokens = answer.get("tokens")
    if not isinstance(tokens, list) or len(tokens) != len(entries):
        raise SubmitError("the issuer answered without one token per entry", request_id=request_id)
    return tokens


def check_signable(index: int, entry: Any) -> None:
    """Refuse, naming the entry, what the issuer cannot sign: NaN or infinite numbers (YAML's
    `.nan`, `.inf`), integers no double holds exactly. (httpx raised a bare ValueError.)"""
    try:
        I_JSON.read(json.dumps(entry, allow_nan=False))
    except ValueError as error:
        raise SubmitError(
            f"entry {index} cannot be signed ({error}): NaN, infinities and integers beyond "
            "2^53 have no single JSON form; write each value as a finite number"
        ) from error
