"""Timestamps in the Hub's form: UTC, milliseconds, a trailing `Z` (the client rejects `+00:00`)."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)


def hub_format(moment: datetime) -> str:
    """`2026-01-10T12:00:00.000Z`, as `huggingface_hub.utils.parse_datetime` expects."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
