"""One file's bytes from a `resolve` URL (`read_capped`, `stream_capped`): capped, redirects
followed by hand so the token never leaves the Hub's origin (docs/hub.md, "Reading results
files")."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import httpx2
from huggingface_hub import hf_raise_for_status

from bot.hub import unreadable_reasons
from bot.hub.errors import (
    HubError,
    HubFileTooLarge,
    HubFileUnreadable,
    HubTransientError,
    retry_after_from_headers,
)

#: The Hub needs one hop for an LFS file (resolve -> CDN); a few more leave room for mirrors.
MAX_REDIRECTS = 5
_FOLLOWED_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: Storage answers worth a retry of the run besides 5xx: a timeout and a rate limit.
_RETRIED_STORAGE_STATUSES = frozenset({408, 429})


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) with the scheme's default port filled in."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme, 0)


def read_capped(session: httpx2.Client, url: str, headers: dict[str, str], max_bytes: int) -> bytes:
    """The body at `url` after redirects, at most `max_bytes + 1` bytes of it.

    Raises `HfHubHTTPError` (through `hf_raise_for_status`) for an error answer, httpx2's
    transport errors as they come, and `HubFileUnreadable` / `HubFileTooLarge` as above.
    """
    return b"".join(stream_capped(session, url, headers, max_bytes))


def stream_capped(
    session: httpx2.Client, url: str, headers: dict[str, str], max_bytes: int
) -> Iterator[bytes]:
    """`read_capped` as the chunks arrive, so a large file is never held whole: at most
    `max_bytes + 1` bytes in all (a reader that gets more than `max_bytes` knows the file is
    over its cap). The errors of `read_capped`, raised while iterating."""
    hub_origin = origin(url)
    without_auth = {k: v for k, v in headers.items() if k.lower() != "authorization"}
    target = url
    for _hop in range(MAX_REDIRECTS + 1):
        sent = headers if origin(target) == hub_origin else without_auth
        try:
            with session.stream("GET", target, headers=sent, follow_redirects=False) as response:
                if 300 <= response.status_code < 400:
                    _refuse_if_declared_too_large(response, max_bytes)
                    target = _next_target(target, response)
                    continue
                if response.is_error:
                    response.read()
                    if origin(target) != hub_origin:
                        raise _storage_error(target, response)
                    hf_raise_for_status(response)
                yield from _body(response, max_bytes)
                return
        except (httpx2.InvalidURL, httpx2.UnsupportedProtocol) as error:
            if target == url:
                raise  # our own URL: a bug or a bad endpoint, not this file's problem
            raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID) from error
    raise HubFileUnreadable(unreadable_reasons.TOO_MANY_REDIRECTS.format(count=MAX_REDIRECTS))


def _storage_error(target: str, response: httpx2.Response) -> HubError:
    """The error for a failed answer from the file's storage (an origin other than the Hub)."""
    host = (urlsplit(target).hostname or "?")[:100]
    status = response.status_code
    if status in _RETRIED_STORAGE_STATUSES or status >= 500:
        return HubTransientError(
            unreadable_reasons.CDN_UNAVAILABLE.format(host=host, status=status),
            retry_after=retry_after_from_headers(response.headers),
        )
    return HubFileUnreadable(unreadable_reasons.CDN_REFUSED.format(host=host, status=status))


def _refuse_if_declared_too_large(response: httpx2.Response, max_bytes: int) -> None:
    declared = response.headers.get("X-Linked-Size", "").strip()
    if declared.isdigit() and int(declared) > max_bytes:
        size = int(declared)
        raise HubFileTooLarge(
            unreadable_reasons.DECLARED_TOO_LARGE.format(size=size, limit=max_bytes),
            size=size,
            limit=max_bytes,
        )


def _next_target(current: str, response: httpx2.Response) -> str:
    location = response.headers.get("Location")
    if not location:
        raise HubFileUnreadable(
            unreadable_reasons.REDIRECT_WITHOUT_LOCATION.format(status=response.status_code)
        )
    try:
        target = urljoin(current, location.strip())
        parts = urlsplit(target)
    except ValueError as error:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID) from error
    scheme = parts.scheme.lower()
    if scheme not in _FOLLOWED_SCHEMES:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_SCHEME.format(scheme=scheme[:20]))
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number in 0-65535
    except ValueError as error:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID) from error
    if not parts.hostname:
        raise HubFileUnreadable(unreadable_reasons.REDIRECT_INVALID)
    return target


def _body(response: httpx2.Response, max_bytes: int) -> Iterator[bytes]:
    left = max_bytes + 1
    for chunk in response.iter_bytes():
        yield chunk[:left]
        left -= len(chunk)
        if left <= 0:
            return
