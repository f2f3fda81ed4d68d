"""Small readers the adapters share: numbers, texts, timestamps, Hub ids."""

from __future__ import annotations

import datetime
import functools
import json
import math
import re
from typing import Any

from bot.validation.model import is_repo_id, is_sha40

_FILENAME_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(\.\d+)?")


def number(value: Any) -> float | int | None:
    """A finite int or float; None for anything else ("N/A", bools, NaN, infinities)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def not_a_number(value: Any) -> str:
    """Why `value`, found where a score belongs, is not one: the JSON text a reader sees."""
    if isinstance(value, float):
        shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    elif value is None or isinstance(value, bool):
        shown = json.dumps(value)
    elif isinstance(value, str):
        shown = f"the text {json.dumps(value[:40])}"
    else:
        shown = "a JSON object" if isinstance(value, dict) else "a JSON array"
    return f"its value is {shown}, not a finite number"


@functools.lru_cache(maxsize=4096)
def is_uncertainty(metric: str) -> bool:
    """Whether a metric name is the uncertainty of another (a standard error or deviation),
    never a score: `acc_stderr`, `prompt_strict_stderr`, `std`, `accuracy_std`. Asked for
    every metric of every task, of a few hundred names a framework writes: remembered."""
    name = metric.partition(",")[0].rsplit("/", 1)[-1].lower()
    return name in ("stderr", "std", "var") or name.endswith(("_stderr", "_std", "_var"))


def text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def iso_from_epoch(value: Any) -> str | None:
    """A Unix time (number or numeric text) as an ISO-8601 UTC date-time, seconds precision."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    seconds = number(value)
    if seconds is None or not 0 < seconds < 32503680000:  # before the year 3000
        return None
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def iso_text(value: Any) -> str | None:
    """An ISO-8601 date or date-time given as text, kept as written when it parses."""
    raw = text(value)
    if raw is None:
        return None
    try:
        datetime.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    return raw


def iso_from_filename(filename: str) -> str | None:
    """`results_2026-08-10T17-22-11.385681.json` -> `2026-08-10T17:22:11` (lm-eval, lighteval).

    The frameworks stamp the file name with the run's local time and no offset, so none is
    added here."""
    found = _FILENAME_STAMP.search(filename.rsplit("/", 1)[-1])
    if found is None:
        return None
    day, hours, minutes, seconds, _fraction = found.groups()
    stamp = f"{day}T{hours}:{minutes}:{seconds}"
    try:
        datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return stamp


def hub_id(value: Any) -> str | None:
    """A dataset path that is a Hub repo id (`org/name`), not a local path."""
    raw = text(value)
    if raw is None or raw.startswith(("/", ".", "~")) or raw.count("/") != 1:
        return None
    return raw if is_repo_id(raw) else None


def sha40(value: Any) -> str | None:
    raw = text(value)
    return raw if raw is not None and is_sha40(raw) else None


def version_text(value: Any) -> str | None:
    """A task's version as the output writes it (`1.0`, `0`, `"v2"`), for `run.adapter_version`;
    None for what says no version (`"N/A"`, which lm-eval writes for groups, null, bools)."""
    found = number(value)
    if found is not None:
        return repr(found)
    raw = text(value)
    return None if raw is None or raw.strip().upper() == "N/A" else raw.strip()
