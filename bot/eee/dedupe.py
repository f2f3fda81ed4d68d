"""EEE's normalised hash, byte for byte as `check_duplicate_entries.normalized_hash` computes it
(docs/eee.md, "What a submission is checked for"): Python's `json.dumps`, not RFC 8785, which
writes some numbers differently and would disagree with every EEE hash."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

IGNORED_KEYS = frozenset({"retrieved_timestamp", "evaluation_id"})


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _strip(item) for key, item in value.items() if key not in IGNORED_KEYS}
    if isinstance(value, list):
        return sorted((_strip(item) for item in value), key=_canonical)
    return value


def normalized_hash(record: Any) -> str:
    """The hex sha256 EEE's duplicate check groups records by."""
    return hashlib.sha256(_canonical(_strip(record)).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Holder:
    """Where a hash was seen: on main (`pr` None) or in another open PR, at `path`. For an
    open PR: when it first held the record (`since`, Hub time in seconds), its author's
    account, and the sha256 of the file's bytes (`content`)."""

    path: str
    pr: int | None = None
    since: float | None = None
    author: str | None = None
    content: str | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """A PR's own claim on one of its records, to weigh against another open PR's: when the
    PR first held it (`since`, as `Holder.since`), its author, the sha256 of its bytes."""

    pr: int
    since: float
    author: str
    content: str

    def yields_to(self, holder: Holder) -> bool:
        """Whether `holder` came first: main always; another open PR when it held the record
        earlier (the lower PR number breaks a tie)."""
        if holder.pr is None:
            return True
        since = holder.since if holder.since is not None else float("inf")
        return (since, holder.pr) < (self.since, self.pr)

    def copies(self, holder: Holder) -> bool:
        """A byte-for-byte copy of `holder`'s file from another account."""
        return (
            holder.content is not None
            and holder.content == self.content
            and holder.author is not None
            and holder.author != self.author
        )


@dataclass(slots=True)
class HashIndex:
    """Normalised hashes of the records on main and in other open PRs, by hash."""

    holders: dict[str, list[Holder]] = field(default_factory=dict)

    def add(self, digest: str, holder: Holder) -> None:
        self.holders.setdefault(digest, []).append(holder)

    def others(self, digest: str, path: str, pr: int | None) -> list[Holder]:
        """Who else holds `digest`: not the same file of the same place (a record edited in
        place on a PR is not its own duplicate on main)."""
        return [
            h for h in self.holders.get(digest, ()) if not (h.path == path and h.pr in (None, pr))
        ]
