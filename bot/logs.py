"""Process-wide logging set-up for the long-running commands (`serve`, `worker`).

One line per record on stderr. The receiver's per-delivery lines are JSON objects already
(`bot.receiver.app`), so a log shipper can parse the message part as it is.
"""

from __future__ import annotations

import json
import logging
import sys


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s", "%Y-%m-%dT%H:%M:%S")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def log_json(logger: logging.Logger, level: int, msg: str, **fields: object) -> None:
    """One structured line: `{"msg": ..., **fields}` as JSON, like the receiver's lines, so
    every line of a run (keyed by its delivery id) can be found and parsed the same way."""
    if logger.isEnabledFor(level):
        logger.log(level, json.dumps({"msg": msg, **fields}, ensure_ascii=True, default=str))
