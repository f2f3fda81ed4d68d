"""The Redis broker transport the workers use: kombu's, minus a crash on broker loss.

With celery 5.7 / kombu 5.7, when the connection to Redis drops while a message is delivered
and not yet acked (a task running, late ack), the worker exits with "Unrecoverable error:
AttributeError: 'NoneType' object has no attribute 'hostname'" (or `'client'`): one Redis
restart during a task took the worker down for good (found by
`tests/faults/test_redis_faults.py`). Both paths there build a Redis client from the *old*
channel's connection, which no longer exists (closing the channel puts the unacked messages
back; the task cancelled by the loss is rejected through it), and kombu's and Celery's guards
(`ignore_errors`, `reject_log_error`) only let *connection errors* through.

This channel raises a Redis `ConnectionError` in that case, which those guards expect. Nothing
is lost by not acking or restoring through a dead channel: the message stays in kombu's
`unacked` hash, which kombu restores after the visibility timeout, and the event stays in the
ledger, which sends it again once due (`bot.queue.publishing`).
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
