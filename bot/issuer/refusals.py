"""Why a request was refused: the reason codes the audit log records, behind a generic answer
save for content errors (docs/issuer.md, "Refusals and the audit log")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Refusal(Exception):
    """The request is refused; `reason` is for the audit log, `status` for the answer."""

    def __init__(
        self,
        reason: str,
        status: int = 403,
        *,
        retry_after_s: int | None = None,
        audited: bool = False,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after_s = retry_after_s
        #: Set once the audit log holds this refusal, so the app does not write it twice.
        self.audited = audited


class Unauthenticated(Refusal):
    """No usable credentials (401)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, 401)


class Unavailable(Refusal):
    """A dependency (the provider's JWKS, the Hub) could not be reached: 503, try again."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, 503, retry_after_s=30)


class ContentRefusal(Refusal):
    """The entries are not signable as sent; `problems` are shown to the caller in full."""

    def __init__(self, reason: str, problems: Sequence[dict[str, Any]]) -> None:
        super().__init__(reason, 422)
        self.problems = list(problems)


#: What a caller is told for each status; never which check failed.
GENERIC = {
    400: "The request is malformed.",
    401: "Authentication failed.",
    403: "The request was refused.",
    408: "The request body took too long to arrive.",
    413: "The request is too large.",
    415: "Send application/json.",
    422: "Some entries cannot be signed; see `problems`.",
    429: "Too many requests; retry after the time in Retry-After.",
    503: "A service the issuer depends on is unavailable; retry later.",
}
