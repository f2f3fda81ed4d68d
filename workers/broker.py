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

And one way a Redis restart lost events: kombu takes a message off the queue (`BRPOP`) and
records it as unacked in a second command. When Redis goes down between the two (a restart
during a burst, as the fault suite's restart test does), the second command fails and kombu
drops the message it holds in memory: in neither the queue nor `unacked`, the event was lost,
though the receiver had answered 202. `QoS.append` here keeps such a message (`unrecorded`),
and the worker puts it back on the queue as soon as Redis answers again (`requeue_unrecorded`,
from the worker's heartbeat step: at each consumer start, so right after the reconnect, and at
each heartbeat). The other way (Redis ran the `BRPOP` and shut down before replying) no
worker can see; the reconciler brings that event back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import redis
from kombu.transport import redis as kombu_redis
from kombu.transport import virtual

#: For `broker_transport` (workers.app): kombu resolves "module:Class" names.
TRANSPORT = "workers.broker:Transport"

log = logging.getLogger("evalbot.worker")


@dataclass(frozen=True)
class Unrecorded:
    """A message taken off the queue whose `unacked` record failed: only this process has it."""

    delivery_tag: str
    payload: dict[str, Any]
    exchange: str
    routing_key: str


#: This process's unrecorded messages, oldest first (one consumer per worker process; the
#: channel that took them is gone by the time Redis answers again, so they are kept here).
unrecorded: list[Unrecorded] = []


class QoS(kombu_redis.QoS):
    """kombu's Redis QoS, which keeps a message it could not record as unacked, and forgets a
    finished message even when Redis refused its ack."""

    def append(self, message: Any, delivery_tag: Any) -> None:
        try:
            super().append(message, delivery_tag)
        except (redis.RedisError, OSError):  # down, or refusing writes (maxmemory)
            delivery = message.delivery_info
            unrecorded.append(
                Unrecorded(
                    str(delivery_tag),
                    message._raw,
                    delivery["exchange"],
                    delivery["routing_key"],
                )
            )
            raise

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


def requeue_unrecorded(channel: Any) -> int:
    """Put this process's unrecorded messages back on their queue through `channel` (a live
    one); returns how many. Stops at the first Redis error (the rest wait for the next call).

    Each goes back in one MULTI/EXEC with the removal of its `unacked` record: when the record
    was in fact written (only the reply was lost), the message is moved, not doubled."""
    qos = channel.qos
    count = 0
    while unrecorded:
        message = unrecorded[0]

        def move(pipe: Any, message: Unrecorded = message) -> None:
            pipe.multi()
            qos._remove_from_indices(message.delivery_tag, pipe)
            channel._do_restore_message(
                message.payload, message.exchange, message.routing_key, pipe, leftmost=True
            )

        with channel.conn_or_acquire() as client:
            client.transaction(move, qos.unacked_key)
        unrecorded.pop(0)
        count += 1
        log.warning(
            "requeued a message taken off the queue as Redis went down",
            extra={"delivery_tag": message.delivery_tag},
        )
    return count
