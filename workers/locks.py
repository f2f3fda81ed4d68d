"""One PR processed at a time, across every worker: a Redis lease with a fencing check.

Two runs for one PR must not interleave their Hub writes: the later head's report could be
overwritten by an earlier run that finished last. The lease is `SET NX PX` with a random
token; its TTL bounds how long a killed worker can block a PR. Before each Hub write the
holder checks the token is still its own (`still_held`): a run whose lease expired mid-way
(a stalled worker) gives up instead of writing over a newer run's comment.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import redis

#: Deletes the lease only if it is still ours (a plain DEL could free a successor's lease).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


def as_text(value: bytes | str) -> str:
    """redis-py answers bytes (or str with decode_responses); we store ASCII only."""
    return value.decode("ascii") if isinstance(value, bytes) else value


class LeaseBusy(Exception):
    """Another run holds this PR; the task retries shortly (its event is not lost)."""


class LeaseLost(Exception):
    """Our lease expired and may belong to another run now: do not write to the Hub."""


def lease_key(repo_id: str, pr_num: int) -> str:
    return f"evalbot:lease:{repo_id}:{pr_num}"


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


@contextmanager
def pr_lease(client: redis.Redis, repo_id: str, pr_num: int, ttl_s: float) -> Iterator[Lease]:
    """Hold the PR's lease for the block; raise `LeaseBusy` if another run holds it."""
    key = lease_key(repo_id, pr_num)
    token = secrets.token_hex(16)
    if not client.set(key, token, nx=True, px=max(1, int(ttl_s * 1000))):
        raise LeaseBusy(key)
    try:
        yield Lease(client, key, token)
    finally:
        client.eval(_RELEASE, 1, key, token)
