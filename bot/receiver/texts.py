"""What the receiver tells callers, in one place: response bodies by outcome.

Bodies are short and never echo the request (no secret, no payload), so a misdirected or
hostile sender learns nothing beyond the status code.
"""

from __future__ import annotations

RESPONSE_TEXTS: dict[str, str] = {
    "queued": "queued",
    "duplicate": "already queued",
    "coalesced": "recheck folded into the one already waiting for this PR",
    "ignored": "nothing to do",
    "too_large": "body too large",
    "timeout": "body not received in time",
    "unauthorized": "X-Webhook-Secret header not set",
    "forbidden": "invalid webhook secret",
    "unsupported_media": "content type must be application/json (UTF-8)",
    "bad_request": "body is not a JSON object",
    "unavailable": "could not queue the event, retry later",
    "error": "internal error, retry later",
}

HEALTH_OK = "ok"
READY_OK = "ready"
READY_FAILED = "broker unreachable"
READY_WORKERS_UNKNOWN = "this receiver does not read the workers' heartbeats"
