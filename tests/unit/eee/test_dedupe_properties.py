"""`bot.eee.dedupe.normalized_hash` is EEE's, on any JSON: a property test against EEE's own
function, copied verbatim below from `evaleval/every_eval_ever`
`every_eval_ever/validator/check_duplicate_entries.py` @ 9bce4136 (MIT licence)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.eee.dedupe import normalized_hash

# --- EEE's code, verbatim but for line breaks and quotes -------------------------------------
IGNORE_KEYS = {"retrieved_timestamp", "evaluation_id"}


def normalize_list(items: list[Any]) -> list[Any]:
    normalized_items = [strip_ignored_keys(item) for item in items]
    return sorted(
        normalized_items,
        key=lambda item: json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=True),
    )


def strip_ignored_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: strip_ignored_keys(val) for key, val in value.items() if key not in IGNORE_KEYS
        }
    if isinstance(value, list):
        return normalize_list(value)
    return value


def eee_normalized_hash(payload: dict[str, Any]) -> str:
    normalized = strip_ignored_keys(payload)
    encoded = json.dumps(normalized, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------------------------

KEYS = st.sampled_from(["evaluation_id", "retrieved_timestamp", "score", "é", "a", "b", "ü\u2028"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=4), inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, JSON, max_size=6))
def test_the_hash_is_eees_on_any_json(record: dict[str, Any]) -> None:
    assert normalized_hash(record) == eee_normalized_hash(record)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(KEYS, JSON, max_size=6), st.text(), st.text())
def test_ids_and_timestamps_never_count(record: dict[str, Any], first: str, second: str) -> None:
    assert normalized_hash(dict(record, evaluation_id=first, retrieved_timestamp=second)) == (
        normalized_hash(dict(record, evaluation_id=second))
    )
