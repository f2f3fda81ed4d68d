"""The Redis broker transport the workers use: kombu's, minus a crash on broker loss.

With celery 5.7 / kombu 5.7 a Redis restart while a task runs made the worker exit
("Unrecoverable error: AttributeError: 'NoneType' object has no attribute 'hostname'"): the
stale channel built a client from its closed connection. This channel raises a Redis
`ConnectionError` there instead, which kombu and Celery already tolerate; nothing is lost
(docs/reliability.md, "What the suite found", item 5; `tests/faults/test_redis_faults.py`).
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import redis as kombu_redis

#: For `broker_transport` (workers.app): kombu resolves "module:Class" names.
TRANSPORT = "workers.broker:Transport"


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> Any:
        transport = self.connection
        if transport is None or transport.client is None:
            raise redis.ConnectionError("the broker connection of this channel was closed")
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]


class Transport(kombu_redis.Transport):
    Channel = Channel
