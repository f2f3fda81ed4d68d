"""The PR lease and the per-message attempt counts, against a real redis-server.

These are the pieces the worker-kill tests lean on, checked at the sizes production uses
(a 300 s lease), which the end-to-end fault tests cannot wait for.
"""

from __future__ import annotations

import pytest

from bot.store import keys
from evalbot_dev.devstack.redis import RedisServer
from workers.pr_lease import LeaseBusy, LeaseLost, pr_lease
from workers.retry_policy import MAX_BUSY_RETRIES, busy_retry_limit
from workers.tasks import Attempts

pytestmark = pytest.mark.integration


def test_a_rerun_of_the_same_message_takes_over_the_lease_of_its_dead_run(
    redis_server: RedisServer,
) -> None:
    """Invariant: a lease left by a dead run (a killed pool process: no release) blocks other
    messages for its TTL, but not a rerun of the same message, whose dead predecessor's
    stalled twin, if it resumes, finds it has lost the lease and writes nothing."""
    client = redis_server.client()
    dead = pr_lease(client, "alice/model", 7, 300, owner="task-1")
    dead_lease = dead.__enter__()  # never exited: the process died holding it
    with pytest.raises(LeaseBusy), pr_lease(client, "alice/model", 7, 300, owner="task-2"):
        pass
    with pr_lease(client, "alice/model", 7, 300, owner="task-1") as rerun:
        rerun.still_held()
        with pytest.raises(LeaseLost):
            dead_lease.still_held()
    assert client.get(keys.lease("alice/model", 7)) is None  # released by the rerun


def test_an_owner_whose_name_is_a_prefix_of_another_does_not_take_its_lease(
    redis_server: RedisServer,
) -> None:
    client = redis_server.client()
    taken = pr_lease(client, "alice/model", 8, 300, owner="task-12")
    taken.__enter__()
    with pytest.raises(LeaseBusy), pr_lease(client, "alice/model", 8, 300, owner="task-1"):
        pass


def test_busy_retries_outlast_the_lease_of_a_dead_run() -> None:
    """Invariant: with retries about 1 s apart, a message waiting on another message's
    orphaned lease (TTL = the hard time limit, 300 s in production) is not parked first."""
    assert busy_retry_limit(300) * 1.0 >= 2 * 300
    assert busy_retry_limit(5) == MAX_BUSY_RETRIES


def test_orderly_retries_keep_the_count_of_runs_that_died(redis_server: RedisServer) -> None:
    """Invariant: runs that died stay counted across orderly retries (a busy PR, a 503), so a
    poison event reaches the parking limit; a terminal outcome forgets the counts."""
    client = redis_server.client()
    attempts = Attempts(client, "task-9")
    assert attempts.begin()[0] == 1  # killed: never ends
    assert attempts.begin()[0] == 2
    assert attempts.count("busy") == 1
    attempts.ended(finished=False)  # retried in an orderly way
    assert attempts.begin()[0] == 2  # one died, this one runs
    assert attempts.count("busy") == 2
    attempts.ended(finished=True)
    assert client.exists("evalbot:attempts:task-9") == 0
