"""The bot's state in Redis: every key, and every reader of the state others show.

The receiver, the workers, reconciliation and the web pages share one Redis, so a key is an
interface between processes. Each is spelled once (`keys`), and each piece of state that more
than one process reads has its one reader here, beside its writer where the format is shared:

- `keys`: every key the bot writes, with who writes and who reads it;
- `history`: the PR history the workers record and the web pages list;
- `deadletters`: parked events (the workers park, `evalbot parked`/`replay` and the pages read);
- `heartbeats`: the workers' heartbeats and the fleet's status (`evalbot status`, `/readyz`);
- `worker_counters`: the workers' counters and the queue's depth (`/metrics`, the status page).

Nothing here imports a process (`bot.receiver`, `workers`, `bot.web`, `bot.cli`): each of them
imports this package instead (import-linter contracts in `pyproject.toml`).
"""

#: Seconds a process waits on one Redis call before it gives up: the receiver then answers 503
#: (the Hub retries the delivery), the pages and `evalbot status` report Redis unavailable.
#: Redis answers in well under a millisecond; 2 s is a Redis that is down, not a slow one,
#: and short enough that a webhook is answered long before the Hub's own timeout. Workers
#: allow five times as long for a reply (they wait on no one) but connect within it too.
REDIS_TIMEOUT_S = 2.0
