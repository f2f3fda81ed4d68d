"""The bot's state in Redis: every key (`keys`), and the one reader of each piece of state more
than one process shows, beside its writer. It imports no process; each process imports it."""

#: Seconds a process waits on one Redis call before it gives up: the receiver then answers 503
#: (the Hub retries the delivery), the pages and `evalbot status` report Redis unavailable.
#: Redis answers in well under a millisecond; 2 s is a Redis that is down, not a slow one,
#: and short enough that a webhook is answered long before the Hub's own timeout. Workers
#: allow five times as long for a reply (they wait on no one) but connect within it too.
REDIS_TIMEOUT_S = 2.0
