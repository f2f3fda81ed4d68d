"""Identifiers shaped like the Hub's: 24-hex MongoDB ObjectIds for users, repos, events, webhooks.

An ObjectId is 4 bytes of seconds since the epoch, 5 random bytes and a 3-byte counter, so ids
sort by creation like the Hub's do and two emulators never hand out the same one.
"""

from __future__ import annotations

import itertools
import os
import threading
import time


class ObjectIds:
    def __init__(self) -> None:
        self._random = os.urandom(5).hex()
        self._counter = itertools.count(int.from_bytes(os.urandom(3), "big"))
        self._lock = threading.Lock()

    def new(self) -> str:
        with self._lock:
            count = next(self._counter) % (1 << 24)
        return f"{int(time.time()) & 0xFFFFFFFF:08x}{self._random}{count:06x}"
