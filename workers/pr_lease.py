"""The PR's lease: one run per PR at a time across every worker, fenced before each Hub write and
taken over by a rerun of the same message (docs/reliability.md, "A run: its lease, its retries,
its start")."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import redis

from bot.queue.events import PrEvent
from bot.store import keys

#: Takes the lease unless another owner holds it (ARGV: token, owner prefix, TTL in ms).
_ACQUIRE = """
local current = redis.call('GET', KEYS[1])
if current and string.sub(current, 1, string.len(ARGV[2])) ~= ARGV[2] then
    return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
"""
#: Deletes the lock only if it is still ours (a plain DEL could free a successor's lock).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


def as_text(value: bytes | str) -> str:
    """redis-py answers bytes (or str with decode_responses); we store ASCII only."""
    return value.decode("ascii") if isinstance(value, bytes) else value


def release(client: redis.Redis, key: str, token: str) -> None:
    """Delete the lock at `key` if `token` still holds it, in one atomic call: the PR leases
    here and the reconciliation's run lock (`workers.reconcile`) are released this way."""
    client.eval(_RELEASE, 1, key, token)


class LeaseBusy(Exception):
    """Another run holds this PR; the task retries shortly (its event is not lost)."""


class LeaseLost(Exception):
    """Our lease expired and may belong to another run now: do not write to the Hub."""


@dataclass(slots=True)
class Lease:
    client: redis.Redis
    key: str
    token: str

    def still_held(self) -> None:
        """Raise `LeaseLost` unless the lease is still ours."""
        current = self.client.get(self.key)
        if current is None or as_text(current) != self.token:
            raise LeaseLost(self.key)


def lease_repo(event: PrEvent) -> str:
    """The lease key's repo part for the event's PR: a dataset and a model may share an id, so a
    dataset's is `datasets/<id>`, lower-cased (the Hub matches ids case-insensitively, so two
    spellings, a webhook's and the config's, share one lease)."""
    if event.repo_type == "dataset":
        return f"datasets/{event.repo_id.lower()}"
    return event.repo_id


@contextmanager
def pr_lease(
    client: redis.Redis, repo_id: str, pr_num: int, ttl_s: float, *, owner: str | None = None
) -> Iterator[Lease]:
    """Hold the PR's lease for the block; raise `LeaseBusy` if another owner holds it.

    `owner` (the task id) may take over a lease it holds already: see the module docstring.
    """
    key = keys.lease(repo_id, pr_num)
    prefix = f"{owner or secrets.token_hex(8)}/"
    token = prefix + secrets.token_hex(16)
    ttl_ms = max(1, int(ttl_s * 1000))
    if not client.eval(_ACQUIRE, 1, key, token, prefix, ttl_ms):
        raise LeaseBusy(key)
    try:
        yield Lease(client, key, token)
    finally:
        release(client, key, token)
