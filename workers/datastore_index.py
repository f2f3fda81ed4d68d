"""The records a datastore PR is compared with for duplicates, kept in Redis: main's, followed
commit by commit, and the other open PRs', read again only when their head moved, all within the
run's call allowance (docs/eee.md, "Cost and state", "Duplicates: first come, first served")."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import redis

from bot.eee import paths
from bot.eee.dedupe import HashIndex, Holder, normalized_hash
from bot.eee.records import MAX_RECORD_BYTES
from bot.hub.budget import Allowance, HubCalls
from bot.hub.datastore import PATHS_INFO_BATCH, HubDatastore
from bot.hub.errors import HubError, HubFileUnreadable, HubPermanentError, HubTransientError
from bot.hub.pulls import PrStatus, PullRequest
from bot.store import keys
from bot.strictjson import depth_of
from bot.validation.eee import MAX_DEPTH
from workers.pr_lease import as_text

#: What redis-py accepts as a hash field or value.
RedisField = bytes | bytearray | memoryview | str | int | float
SHA_FIELD = "@sha"
HEAD_FIELD = "@head"
AUTHOR_FIELD = "@author"
FORMAT_FIELD = "@v"
#: The format of a PR's stored records (`held` values); a record of another format is read
#: again, as if its head had moved.
FORMAT = "2"
MAX_OPEN_PRS = 50
MAX_PR_RECORDS = 1000
#: Hub calls a run may spend comparing with other open PRs (their details, content ids and
#: records); docs/hub.md, "Budgets".
COMPARE_BUDGET = 80
#: Content hashes kept per generation: when the current one holds this many, it becomes the
#: previous one (the older previous one is dropped), so a datastore keeps at most twice this.
BLOB_CACHE_MAX = 100_000
#: Index entries expire with the datastore's silence (a repo removed from the config).
INDEX_TTL_S = 30 * 24 * 3600
#: The blob cache's value for a content that is no record anyone can duplicate.
NOT_A_RECORD = "-"


@dataclass(frozen=True, slots=True)
class MainIndex:
    sha: str
    #: path -> normalised hash ("" for a samples file or an unreadable record)
    hashes: dict[str, str]
    #: path -> the Hub's content id (git blob id, or LFS sha256)
    ids: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, sha: str, entries: Mapping[str, str]) -> MainIndex:
        """The index from its stored entries, path -> `<content id> <normalised hash>`."""
        split = {path: value.split(" ", 1) for path, value in entries.items()}
        return cls(sha, {p: v[-1] for p, v in split.items()}, {p: v[0] for p, v in split.items()})


@dataclass(frozen=True, slots=True)
class Held:
    """A record an open PR holds: its normalised hash, the sha256 of its bytes, and the Hub
    time (seconds since the epoch) of the PR head at which it was first seen there."""

    digest: str
    content: str
    since: float

    def encode(self) -> str:
        return f"{self.digest} {self.content} {self.since:.3f}"

    @classmethod
    def decode(cls, text: str) -> Held | None:
        parts = text.split(" ")
        if len(parts) != 3:
            return None
        try:
            return cls(parts[0], parts[1], float(parts[2]))
        except ValueError:
            return None


@dataclass(slots=True)
class PrRecords:
    """One open PR's records at datastore paths, as read at `head`."""

    head: str
    author: str
    held: dict[str, Held] = field(default_factory=dict)

    def since_of(self) -> dict[str, float]:
        """When each of its evaluations was first seen in the PR (by normalised hash)."""
        found: dict[str, float] = {}
        for item in self.held.values():
            found[item.digest] = min(item.since, found.get(item.digest, item.since))
        return found


@dataclass(slots=True)
class Comparison:
    """The other open PRs' records, and which PRs this run could not compare."""

    prs: dict[int, PrRecords] = field(default_factory=dict)
    #: PRs whose records the run's budget (or a failed read) left unread, in whole or in part:
    #: a follow-up run carries on.
    not_compared: list[int] = field(default_factory=list)
    #: Open PRs past `MAX_OPEN_PRS`, never compared.
    beyond: int = 0


def main_index(client: redis.Redis, hub: HubDatastore, repo_id: str, sha: str) -> MainIndex:
    """Main's index, brought up to main's commit `sha` (see the module docstring)."""
    key = keys.eee_main_index(repo_id)

    def read(path: str) -> bytes:
        return hub.read(repo_id, path, sha)

    stored = {as_text(k): as_text(v) for k, v in client.hgetall(key).items()}
    if stored.get(SHA_FIELD) == sha:
        return MainIndex.of(sha, {p: v for p, v in stored.items() if p != SHA_FIELD})
    tree = {p: oid for p, oid in hub.tree(repo_id, sha).items() if paths.is_datastore_file(p)}
    entries: dict[str, str] = {}
    for path, oid in tree.items():
        previous = stored.get(path)
        if previous is not None and previous.split(" ", 1)[0] == oid:
            entries[path] = previous
            continue
        entries[path] = f"{oid} {_hash(read, path) if path.endswith('.json') else ''}"
    gone = [p for p in stored if p != SHA_FIELD and p not in entries]
    pipe = client.pipeline(transaction=True)
    if gone:
        pipe.hdel(key, *gone)
    if entries:
        fields: dict[RedisField, RedisField] = {}
        fields.update(entries)
        pipe.hset(key, mapping=fields)
    pipe.hset(key, SHA_FIELD, sha)
    pipe.expire(key, INDEX_TTL_S)
    pipe.execute()
    return MainIndex.of(sha, entries)


def _hash(read: Callable[[str], bytes], path: str) -> str:
    """The record's normalised hash; "" for a file no one can read as a record (not JSON, too
    deep, or one the Hub will not serve: `HubFileUnreadable`). Any other failed read raises:
    kept as "", it would stand for the record until its blob changed (docs/hub.md#errors)."""
    try:
        record = json.loads(read(path))
    except (ValueError, RecursionError, HubFileUnreadable):
        return ""  # not a record anyone can duplicate
    except HubPermanentError as error:
        if not error.not_found:
            raise
        raise HubTransientError(f"{path} vanished while indexed: {error}") from error
    return normalized_hash(record) if depth_of(record, MAX_DEPTH) <= MAX_DEPTH else ""


def is_record_path(path: str) -> bool:
    """A record at a datastore path: the only files whose hashes another PR is compared with
    (a `.json` elsewhere is an `EEE-PATH` error of its own PR, and no record of the datastore)."""
    return path.endswith(".json") and paths.path_problem(path) is None


def record_digest(content: bytes) -> str | None:
    """The normalised hash of a record's bytes; None when they are no record (not strict
    JSON, nested too deep)."""
    if len(content) > MAX_RECORD_BYTES:
        return None
    try:
        record = json.loads(content)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or depth_of(record, MAX_DEPTH) > MAX_DEPTH:
        return None
    return normalized_hash(record)


def head_time(pr: PullRequest, fallback: datetime) -> float:
    """The Hub time of the PR's head commit (its timeline's, which a push cannot forge);
    `fallback` (the worker's clock: later than the push, so never an advantage) without one."""
    for commit in reversed(pr.commits):
        if commit.oid == pr.head_sha and commit.created_at is not None:
            return commit.created_at.timestamp()
    return fallback.timestamp()


def author_of(pr: PullRequest) -> str:
    """The PR author's account id (a name can change hands; the id cannot), else the name."""
    return pr.author_id or f"name:{(pr.author or '').lower()}"


def claims_since(previous: PrRecords | None, digests: Iterable[str], at: float) -> dict[str, float]:
    """When the PR first held each evaluation: as recorded before, else `at` (its head's time)."""
    known = previous.since_of() if previous is not None else {}
    return {digest: known.get(digest, at) for digest in digests}


def stored_pr(client: redis.Redis, repo_id: str, num: int) -> PrRecords | None:
    return _decode_pr(client.hgetall(keys.eee_pr_hashes(repo_id, num)))


def _decode_pr(raw: Mapping[bytes | str, bytes | str]) -> PrRecords | None:
    fields = {as_text(k): as_text(v) for k, v in raw.items()}
    head = fields.get(HEAD_FIELD)
    if head is None or fields.get(FORMAT_FIELD) != FORMAT:
        return None  # none, or written by an earlier version: read again
    found = PrRecords(head, fields.get(AUTHOR_FIELD, ""))
    for path, value in fields.items():
        if path.startswith("@"):
            continue
        held = Held.decode(value)
        if held is not None:
            found.held[path] = held
    return found


def remember_pr(client: redis.Redis, repo_id: str, pr_num: int, records: PrRecords) -> None:
    key = keys.eee_pr_hashes(repo_id, pr_num)
    pipe = client.pipeline(transaction=True)
    pipe.delete(key)
    mapping: dict[RedisField, RedisField] = {
        HEAD_FIELD: records.head,
        AUTHOR_FIELD: records.author,
        FORMAT_FIELD: FORMAT,
    }
    mapping.update({path: held.encode() for path, held in records.held.items()})
    pipe.hset(key, mapping=mapping)
    pipe.expire(key, INDEX_TTL_S)
    pipe.execute()


def forget_pr(client: redis.Redis, repo_id: str, pr_num: int) -> None:
    client.delete(keys.eee_pr_hashes(repo_id, pr_num))


class BlobHashes:
    """Normalised hashes by content id (git blob id or LFS sha256), per datastore, in two
    generations (`BLOB_CACHE_MAX`): a content is read and hashed once, whichever PR holds it.
    A value is `<normalised hash> <sha256 of the bytes>`, or `-` for no record."""

    def __init__(self, client: redis.Redis, repo_id: str) -> None:
        self._client = client
        self._current, self._previous = keys.eee_blob_hashes(repo_id)

    def lookup(self, ids: Sequence[str]) -> dict[str, str]:
        if not ids:
            return {}
        pipe = self._client.pipeline(transaction=False)
        pipe.hmget(self._current, list(ids))
        pipe.hmget(self._previous, list(ids))
        current, previous = pipe.execute()
        found: dict[str, str] = {}
        for blob, now, before in zip(ids, current, previous, strict=True):
            value = now if now is not None else before
            if value is not None:
                found[blob] = as_text(value)
        return found

    def store(self, entries: Mapping[str, str]) -> None:
        if not entries:
            return
        pipe = self._client.pipeline(transaction=False)
        mapping: dict[RedisField, RedisField] = {}
        mapping.update(entries)
        pipe.hset(self._current, mapping=mapping)
        pipe.expire(self._current, INDEX_TTL_S)
        pipe.hlen(self._current)
        size = pipe.execute()[-1]
        if int(size) >= BLOB_CACHE_MAX:
            rotate = self._client.pipeline(transaction=True)
            rotate.rename(self._current, self._previous)
            rotate.expire(self._previous, INDEX_TTL_S)
            with contextlib.suppress(redis.ResponseError):  # another worker rotated it first
                rotate.execute()


def held_value(digest: str | None, content: bytes) -> str:
    """The blob cache's value for `content` (`BlobHashes`)."""
    if digest is None:
        return NOT_A_RECORD
    return f"{digest} {hashlib.sha256(content).hexdigest()}"


def compare_open_prs(
    client: redis.Redis,
    hub: HubDatastore,
    repo_id: str,
    this_pr: int,
    *,
    details: Callable[[int], PullRequest],
    changed: Callable[[PullRequest], Iterable[str]],
    calls: HubCalls,
    limit: int,
    now: datetime,
) -> Comparison:
    """The other open PRs' records, within `limit` of the run's `calls` (see the module
    docstring). The listing of the open PRs (2 calls) is the run's own; everything after it
    is spent from the allowance."""
    listed = hub.open_pull_requests(repo_id, limit=MAX_OPEN_PRS + 1)
    budget = calls.allowance(limit)
    nums = [n for n in listed if n != this_pr]
    result = Comparison(beyond=max(0, len(nums) - MAX_OPEN_PRS))
    nums = nums[:MAX_OPEN_PRS]
    pipe = client.pipeline(transaction=False)
    for num in nums:
        pipe.hgetall(keys.eee_pr_hashes(repo_id, num))
    stored = dict(zip(nums, (_decode_pr(raw) for raw in pipe.execute()), strict=True))
    blobs = BlobHashes(client, repo_id)
    failed = False
    for num in nums:
        previous = stored[num]
        if previous is not None and listed[num] is not None and previous.head == listed[num]:
            result.prs[num] = previous  # its head has not moved since it was read: no call
            continue
        if failed or not budget.affords(1):
            result.not_compared.append(num)
            continue
        try:
            pr = details(num)
        except HubError:
            failed = True  # another PR's trouble never fails this run: a follow-up retries
            result.not_compared.append(num)
            continue
        if not pr.is_pull_request or pr.head_sha is None:
            continue
        if pr.status not in (PrStatus.OPEN, PrStatus.DRAFT):
            continue
        if previous is not None and previous.head == pr.head_sha:
            result.prs[num] = previous
            continue
        wanted = sorted({p for p in changed(pr) if is_record_path(p)})[:MAX_PR_RECORDS]
        records, read = _read_records(
            hub, blobs, pr, wanted, previous=previous, budget=budget, now=now
        )
        result.prs[num] = records  # what was read holds, complete or not
        if read == "complete":
            remember_pr(client, repo_id, num, records)
        else:
            result.not_compared.append(num)
            failed = read == "failed"
    return result


def _read_records(
    hub: HubDatastore,
    blobs: BlobHashes,
    pr: PullRequest,
    wanted: list[str],
    *,
    previous: PrRecords | None,
    budget: Allowance,
    now: datetime,
) -> tuple[PrRecords, str]:
    """The PR's records among `wanted`, and how the reading went: `complete`, `budget` (the
    budget ran out) or `failed` (the Hub failed a read: no more calls this run)."""
    assert pr.head_sha is not None
    records = PrRecords(pr.head_sha, author_of(pr))
    ids: dict[str, str] = {}
    for start in range(0, len(wanted), PATHS_INFO_BATCH):
        if not budget.affords(1):
            return records, "budget"
        try:
            ids.update(
                hub.blob_ids(pr.repo_id, pr.head_sha, wanted[start : start + PATHS_INFO_BATCH])
            )
        except HubError:
            return records, "failed"
    known = blobs.lookup(sorted(set(ids.values())))
    learned: dict[str, str] = {}
    read = "complete"
    for path in wanted:
        blob = ids.get(path)
        if blob is None:
            continue  # not at the head any more (the diff and the head disagree)
        value = known.get(blob) or learned.get(blob)
        if value is None:
            if not budget.affords(1):
                read = "budget"
                break
            try:
                content = hub.read(pr.repo_id, path, pr.head_sha)
            except HubFileUnreadable:
                content = b""  # an answer nobody can follow: no record anyone can duplicate
            except HubError:
                read = "failed"  # a failed read is not "no record": not compared, followed up
                break
            value = learned[blob] = held_value(record_digest(content), content)
        if value != NOT_A_RECORD:
            digest, sha256 = value.split(" ", 1)
            records.held[path] = Held(digest, sha256, 0.0)
    blobs.store(learned)
    at = head_time(pr, now)
    since = claims_since(previous, (h.digest for h in records.held.values()), at)
    records.held = {p: Held(h.digest, h.content, since[h.digest]) for p, h in records.held.items()}
    return records, read


def hash_index(main: MainIndex, removed: set[str], others: Comparison) -> HashIndex:
    """Main's records (less those this PR removes) and the other open PRs' records."""
    index = HashIndex()
    for path, digest in main.hashes.items():
        if digest and path not in removed:
            index.add(digest, Holder(path))
    for num, records in sorted(others.prs.items()):
        for path, held in records.held.items():
            index.add(
                held.digest,
                Holder(path, num, since=held.since, author=records.author, content=held.content),
            )
    return index
