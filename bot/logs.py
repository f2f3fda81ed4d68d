"""Process-wide logging for the long-running commands (`serve`, `worker`): one line per record
on stderr."""

from __future__ import annotations

import atexit
import json
import logging
import logging.handlers
import queue
import sys

#: Records waiting for the writer thread (`non_blocking`); beyond this they are dropped and
#: counted rather than let memory grow while the sink (a full disk, a stuck pipe) is stalled.
LOG_QUEUE_SIZE = 10_000
#: Libraries whose INFO and DEBUG lines carry request URLs (visitor input) and are never logged.
QUIET_LOGGERS = (
    "httpx2",
    "httpcore2",
    "httpx",
    "httpcore",
    "multipart",
    "python_multipart",
    "huggingface_hub",  # each request's URL at DEBUG (HF_HUB_VERBOSITY=debug)
)


class DroppingQueueHandler(logging.handlers.QueueHandler):
    """Hands records to a writer thread without ever blocking the caller: when the queue is
    full the record is dropped and counted, and the next record that fits says how many."""

    def __init__(self, records: queue.Queue[logging.LogRecord]) -> None:
        super().__init__(records)
        self.dropped = 0

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            self.dropped += 1
            return
        if self.dropped:
            count, self.dropped = self.dropped, 0
            notice = logging.LogRecord(
                "evalbot.logs",
                logging.WARNING,
                __file__,
                0,
                f"{count} log records dropped: the log sink is not keeping up",
                None,
                None,
            )
            try:
                self.queue.put_nowait(notice)
            except queue.Full:
                self.dropped += count


def configure_logging(
    level: str, *, non_blocking: bool = False
) -> logging.handlers.QueueListener | None:
    """One line per record on stderr, at `level`.

    `non_blocking` (the receiver): records are written by a thread of their own, so a slow
    sink (a disk under writeback, a full pipe to a log shipper) never stalls the event loop
    that acknowledges the Hub's deliveries: writing 2,000 lines/s from the loop itself was
    measured to push the ack p99 from 4 ms to 81-264 ms (docs/reliability.md, "Load").
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s", "%Y-%m-%dT%H:%M:%S")
    )
    root = logging.getLogger()
    root.setLevel(level)
    # The HTTP clients log every request's full URL at INFO: the forwarder's carry a visitor's
    # path and query, the pages' Hub lookups a name a visitor typed. Their warnings stay.
    for client_logger in QUIET_LOGGERS:
        logging.getLogger(client_logger).setLevel(max(logging.WARNING, root.level))
    if not non_blocking:
        root.handlers[:] = [handler]
        return None
    records: queue.Queue[logging.LogRecord] = queue.Queue(LOG_QUEUE_SIZE)
    listener = logging.handlers.QueueListener(records, handler, respect_handler_level=True)
    root.handlers[:] = [DroppingQueueHandler(records)]
    listener.start()
    atexit.register(listener.stop)  # writes what is still queued at exit
    return listener


def log_json(logger: logging.Logger, level: int, msg: str, **fields: object) -> None:
    """One structured line: `{"msg": ..., **fields}` as JSON, like the receiver's lines, so
    every line of a run (keyed by its delivery id) can be found and parsed the same way."""
    if logger.isEnabledFor(level):
        logger.log(level, json.dumps({"msg": msg, **fields}, ensure_ascii=True, default=str))
