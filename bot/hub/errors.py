"""Hub failures sorted into the two kinds a worker acts on, in one place: try again later (and
after how long), or give up (docs/hub.md, "Errors")."""

from __future__ import annotations

import email.utils
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime

import httpx2
from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

#: Statuses worth retrying: the server may answer differently in a moment.
TRANSIENT_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})

# `"api";r=0;t=55` (quotes optional, whitespace tolerated, like the client's own regex but
# laxer: a proxy that strips the quotes must not turn a rate limit into a hot retry loop).
_RATELIMIT = re.compile(r"\"?(?P<kind>[\w-]+)\"?\s*;\s*r\s*=\s*(?P<r>\d+)\s*;\s*t\s*=\s*(?P<t>\d+)")


class HubError(Exception):
    """A Hub call failed; `status` and `code` (`X-Error-Code`) when the Hub answered."""

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code


class HubTransientError(HubError):
    """Worth retrying. `retry_after` is the delay the Hub asked for, in seconds, if it did."""

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        status: int | None = None,
        code: str | None = None,
    ):
        super().__init__(message, status=status, code=code)
        self.retry_after = retry_after


class HubPermanentError(HubError):
    """Not worth retrying: the request itself is wrong, forbidden or names something gone."""

    @property
    def not_found(self) -> bool:
        """True for a missing repo, revision or file (a PR ref deleted after merge, say)."""
        return self.status == 404 or self.code in {
            "RepoNotFound",
            "RevisionNotFound",
            "EntryNotFound",
        }

    @property
    def entry_not_found(self) -> bool:
        """True only when the Hub said the file is missing from a repo and revision that exist
        (404 `EntryNotFound`): the one answer that means "no such file" (docs/hub.md#errors)."""
        return self.code == "EntryNotFound"


class HubFileUnreadable(HubPermanentError):
    """The Hub answered for one file, but not with something readable: a redirect loop, a
    redirect to a non-http(s) URL or without a `Location`. Specific to that file: the caller
    reports it on the file and reads the others (`workers.model_pr`)."""


class HubFileTooLarge(HubFileUnreadable):
    """The file is larger than the cap, as the Hub declared it before any byte was fetched
    (`X-Linked-Size` on an LFS redirect). `size` and `limit` are in bytes."""

    def __init__(self, message: str, *, size: int, limit: int):
        super().__init__(message)
        self.size = size
        self.limit = limit


def retry_after_from_headers(
    headers: Mapping[str, str], *, now: datetime | None = None
) -> float | None:
    """Seconds the Hub asks us to wait, from `RateLimit` and `Retry-After`; None if it does not say.

    `RateLimit` only counts when `r=0` (the client sends it on every response, so a 429 with
    quota left was caused by something else, e.g. a granular comment limit). `now` is for
    HTTP-date values of `Retry-After`.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    waits: list[float] = []
    match = _RATELIMIT.search(lowered.get("ratelimit", ""))
    if match is not None and int(match.group("r")) == 0:
        waits.append(float(match.group("t")))
    retry_after = lowered.get("retry-after", "").strip()
    if retry_after.isdigit():
        waits.append(float(retry_after))
    elif retry_after:
        try:
            when = email.utils.parsedate_to_datetime(retry_after)
        except (TypeError, ValueError):
            when = None
        if when is not None:
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            waits.append(max(0.0, (when - (now or datetime.now(UTC))).total_seconds()))
    return max(waits) if waits else None


def to_hub_error(exc: BaseException) -> HubError | None:
    """Classify an exception raised by `huggingface_hub` or `httpx2`; None if it is neither.

    None means a bug on our side (a `ValueError` from argument checks, say): the caller lets it
    propagate instead of retrying it.
    """
    if isinstance(exc, HubError):
        return exc
    if isinstance(exc, HfHubHTTPError):
        response = exc.response
        status = response.status_code
        code = response.headers.get("X-Error-Code")
        message = f"Hub answered {status}" + (f" ({code})" if code else "")
        if exc.server_message:
            message += f": {exc.server_message.strip()}"
        if status in TRANSIENT_STATUSES or status >= 500:
            return HubTransientError(
                message,
                retry_after=retry_after_from_headers(response.headers),
                status=status,
                code=code,
            )
        return HubPermanentError(message, status=status, code=code)
    if isinstance(exc, LocalEntryNotFoundError):
        # What `hf_hub_download` raises when the Hub could not be asked (offline mode, a
        # connection error, a 5xx) and its cache has no copy: never the Hub saying "no file".
        return HubTransientError("Hub unreachable, and no cached copy of the file")
    if isinstance(exc, httpx2.InvalidURL | httpx2.UnsupportedProtocol):
        return HubPermanentError(f"cannot reach the Hub: {exc}")
    if isinstance(exc, httpx2.TransportError | httpx2.HTTPError):
        return HubTransientError(f"Hub unreachable: {type(exc).__name__}: {exc}")
    if isinstance(exc, ConnectionError | TimeoutError):
        return HubTransientError(f"Hub unreachable: {type(exc).__name__}: {exc}")
    if isinstance(exc, json.JSONDecodeError):
        # A 200 whose body is not JSON: cut off by a proxy or a reset connection. The same
        # request usually succeeds a moment later (found by the fault suite: it was parked).
        return HubTransientError(f"the Hub sent invalid JSON (truncated?): {exc}")
    return None
