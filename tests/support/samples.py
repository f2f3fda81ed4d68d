"""Loading the sample files under `tests/samples/`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
WEBHOOKS = SAMPLES / "webhooks"


def webhook_bytes(name: str) -> bytes:
    """The raw body of `tests/samples/webhooks/<name>.json`, as the Hub would POST it."""
    return (WEBHOOKS / f"{name}.json").read_bytes()


def webhook(name: str) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads(webhook_bytes(name))
    return payload


def webhook_names() -> list[str]:
    return sorted(path.stem for path in WEBHOOKS.glob("*.json"))
