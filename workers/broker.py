"""The Redis broker transport the workers use: kombu's, minus a crash on broker loss.

With celery 5.7 / kombu 5.7, when the connection to Redis drops while a message is delivered
and not yet acked (a task running, late ack), the worker exits with "Unrecoverable error:
AttributeError: 'NoneType' object has no attribute 'hostname'" (or `'client'`): one Redis
restart during a task took the worker down for good (found by
`tests/faults/test_redis_faults.py`). Two paths lead there, both on the *old* channel:
- the consumer collects the broken connection (which detaches the transport from its client)
  and then closes it; closing the channel tries to put the unacked messages back with a new
  client, whose parameters come from the detached client;
- after the reconnect, the task cancelled because of the loss is rejected through the old
  channel, whose connection is gone.
Both build a Redis client from a connection that no longer exists, and kombu's and Celery's
guards (`ignore_errors`, `reject_log_error`) only let *connection errors* through.

This channel raises a Redis `ConnectionError` in that case, which those guards expect. Nothing
is lost by not acking or restoring through a dead channel: the messages stay in Redis's
`unacked` hash and the visibility sweep of any worker puts them back on the queue after the
visibility timeout, as after a worker crash (the rerun is idempotent).

The same transport, next: an ack or a reject that fails (Redis down, or restarting, when the
task ends) leaves the message in the `unacked` hash, as it should, but kombu's QoS also keeps
its tag among the messages it has delivered and not finished (`_delivered`): kombu forgets a
tag only after the Redis command succeeded. The worker's heartbeat lists those tags as held
(`workers.liveness`), so the live workers' sweep never took the message back, and each such
tag used one prefetch slot of the channel for good. The message waited for kombu's own
visibility sweep: 900 s in production. `QoS` here forgets the tag whatever the command did:
the task is over, the message is in `unacked`, and the sweep takes it back after its grace
(docs/reliability.md, "Redis restarts").
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import redis as kombu_redis
from kombu.transport import virtual

#: For `broker_transport` (workers.app): kombu resolves "module:Class" names.
TRANSPORT = "workers.broker:Transport"


class QoS(kombu_redis.QoS):
    """kombu's Redis QoS, which forgets a finished message even when Redis refused its ack."""

    def ack(self, delivery_tag: Any) -> None:
        try:
            super().ack(delivery_tag)
        except BaseException:
            self._forget(delivery_tag)
            raise

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        try:
            super().reject(delivery_tag, requeue=requeue)
        except BaseException:
            self._forget(delivery_tag)
            raise

    def _forget(self, delivery_tag: Any) -> None:
        """No longer held by this worker: the base QoS's own ack (it marks the tag done, for
        the channel's prefetch count and the heartbeat), without the Redis command."""
        virtual.QoS.ack(self, delivery_tag)


class Channel(kombu_redis.Channel):
    QoS = QoS

    def _connparams(self, asynchronous: bool = False) -> Any:
        transport = self.connection
        if transport is None or transport.client is None:
            raise redis.ConnectionError("the broker connection of this channel was closed")
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]


class Transport(kombu_redis.Transport):
    Channel = Channel
