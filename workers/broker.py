"""The Redis broker transport the workers use: kombu's, except that a channel whose connection is
gone raises Redis's `ConnectionError`, which kombu and Celery tolerate, instead of crashing the
worker (docs/reliability.md, "What the suite found, and the fixes", item 5)."""

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
