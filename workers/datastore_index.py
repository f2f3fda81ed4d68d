"""The hashes a datastore PR is checked against for duplicates, kept in Redis.

Main: one hash per datastore (`keys.eee_main_index`), path -> `<blob id> <normalised hash>`,
with `@sha` the main commit it reflects. When main has moved, its tree is listed and only the
records whose blob id changed are read and hashed, so the index follows the datastore's commits
at the cost of what they changed, not of the datastore (~229k results), and a PR run reads no
record of main it has read before. Samples files are indexed with an empty hash: their paths
tell which files exist on main.

Other open PRs: each PR's run stores the hashes of the records it adds or changes, with the
head it read (`keys.eee_pr_hashes`); a PR run lists the open PRs with their heads (2 calls)
and reads only a PR whose head moved since (its details, then its changed records). At most
`MAX_OPEN_PRS` other PRs and `MAX_PR_RECORDS` records per PR are read per run; the rest are
not compared, and the comment does not claim they were.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import redis

from bot.eee import paths
from bot.eee.dedupe import HashIndex, Holder, normalized_hash
from bot.hub.datastore import HubDatastore
from bot.hub.errors import HubFileUnreadable, HubPermanentError, HubTransientError
from bot.hub.pulls import PullRequest
from bot.spec.eee import MAX_DEPTH, depth_of
from bot.store import keys
from workers.fleet import as_text

#: What redis-py accepts as a hash field or value.
RedisField = bytes | bytearray | memoryview | str | int | float
SHA_FIELD = "@sha"
HEAD_FIELD = "@head"
MAX_OPEN_PRS = 50
MAX_PR_RECORDS = 1000
#: Index entries expire with the datastore's silence (a repo removed from the config).
INDEX_TTL_S = 30 * 24 * 3600


@dataclass(frozen=True, slots=True)
class MainIndex:
    sha: str
    #: path -> normalised hash ("" for a samples file or an unreadable record)
    hashes: dict[str, str]


def main_index(client: redis.Redis, hub: HubDatastore, repo_id: str) -> MainIndex:
    """Main's index, brought up to main's current commit (see the module docstring)."""
    key = keys.eee_main_index(repo_id)
    sha = hub.main_sha(repo_id)

    def read(path: str) -> bytes:
        return hub.read(repo_id, path, sha)

    stored = {as_text(k): as_text(v) for k, v in client.hgetall(key).items()}
    if stored.get(SHA_FIELD) == sha:
        return MainIndex(sha, {p: v.split(" ", 1)[1] for p, v in stored.items() if p != SHA_FIELD})
    tree = {p: oid for p, oid in hub.tree(repo_id, sha).items() if _indexed(p)}
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
    return MainIndex(sha, {p: v.split(" ", 1)[1] for p, v in entries.items()})


def _indexed(path: str) -> bool:
    return paths.is_datastore_file(path)


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
    return normalized_hash(record) if depth_of(record) <= MAX_DEPTH else ""


def remember_pr(
    client: redis.Redis, repo_id: str, pr_num: int, head: str, hashes: dict[str, str]
) -> None:
    key = keys.eee_pr_hashes(repo_id, pr_num)
    pipe = client.pipeline(transaction=True)
    pipe.delete(key)
    mapping: dict[RedisField, RedisField] = {HEAD_FIELD: head}
    mapping.update(hashes)
    pipe.hset(key, mapping=mapping)
    pipe.expire(key, INDEX_TTL_S)
    pipe.execute()


def forget_pr(client: redis.Redis, repo_id: str, pr_num: int) -> None:
    client.delete(keys.eee_pr_hashes(repo_id, pr_num))


def open_pr_hashes(
    client: redis.Redis,
    hub: HubDatastore,
    repo_id: str,
    this_pr: int,
    *,
    details: Callable[[int], PullRequest],
    changed: Callable[[PullRequest], Iterable[str]],
) -> tuple[dict[int, dict[str, str]], int]:
    """Each other open PR's record hashes, by PR; and how many open PRs were not read."""
    listed = hub.open_pull_requests(repo_id, limit=MAX_OPEN_PRS + 1)
    nums = [n for n in listed if n != this_pr]
    found: dict[int, dict[str, str]] = {}
    for num in nums[:MAX_OPEN_PRS]:
        key = keys.eee_pr_hashes(repo_id, num)
        stored = {as_text(k): as_text(v) for k, v in client.hgetall(key).items()}
        listed_head = listed[num]
        if listed_head is not None and stored.get(HEAD_FIELD) == listed_head:
            found[num] = {p: h for p, h in stored.items() if p != HEAD_FIELD}
            continue  # its head has not moved since a run read it: no call at all
        pr = details(num)
        if pr.head_sha is None:
            continue
        if stored.get(HEAD_FIELD) == pr.head_sha:
            found[num] = {p: h for p, h in stored.items() if p != HEAD_FIELD}
            continue
        hashes: dict[str, str] = {}
        head = pr.head_sha

        def read(path: str, head: str = head) -> bytes:
            return hub.read(repo_id, path, head)

        for path in [p for p in changed(pr) if p.endswith(".json")][:MAX_PR_RECORDS]:
            digest = _hash(read, path)
            if digest:
                hashes[path] = digest
        remember_pr(client, repo_id, num, pr.head_sha, hashes)
        found[num] = hashes
    return found, max(0, len(nums) - MAX_OPEN_PRS)


def hash_index(main: MainIndex, removed: set[str], others: dict[int, dict[str, str]]) -> HashIndex:
    """Main's records (less those this PR removes) and the other open PRs' records."""
    index = HashIndex()
    for path, digest in main.hashes.items():
        if digest and path not in removed:
            index.add(digest, Holder(path))
    for num, hashes in sorted(others.items()):
        for path, digest in hashes.items():
            index.add(digest, Holder(path, num))
    return index
