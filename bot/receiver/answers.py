"""What the receiver tells callers, by outcome: short bodies that never echo the request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: The Hub retries non-2xx answers; tell it (and any other sender) when.
_RETRY_SOON: Mapping[str, str] = {"Retry-After": "5"}
#: The rest of an oversized or stalled body is not worth reading: close the connection.
_CLOSE: Mapping[str, str] = {"Connection": "close"}


@dataclass(frozen=True, slots=True)
class Answer:
    """The response to a delivery with this outcome: status, short text, extra headers."""

    status: int
    text: str
    headers: Mapping[str, str] = field(default_factory=dict)


#: Every outcome of a delivery and what it is answered; the one table the receiver's
#: responses, logs and metrics labels come from. 2xx only for work queued or known not to be
#: needed; 503 (never another 5xx) when the Hub should retry.
ANSWERS: Mapping[str, Answer] = {
    "queued": Answer(202, "queued"),
    "duplicate": Answer(202, "already queued"),
    "coalesced": Answer(202, "recheck folded into the one already waiting for this PR"),
    "ignored": Answer(202, "nothing to do"),
    "too_large": Answer(413, "body too large", _CLOSE),
    "timeout": Answer(408, "body not received in time", _CLOSE),
    "unauthorized": Answer(401, "X-Webhook-Secret header not set"),
    "forbidden": Answer(403, "invalid webhook secret"),
    "unsupported_media": Answer(415, "content type must be application/json (UTF-8)"),
    "bad_request": Answer(400, "body is not a JSON object"),
    "unavailable": Answer(503, "could not queue the event, retry later", _RETRY_SOON),
    "error": Answer(503, "internal error, retry later", _RETRY_SOON),
}

HEALTH_OK = "ok"
READY_OK = "ready"
READY_FAILED = "broker unreachable"
READY_WORKERS_UNKNOWN = "this receiver does not read the workers' heartbeats"
