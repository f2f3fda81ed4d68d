"""Logging set-up: the receiver's records are written off its event loop, and never pile up."""

from __future__ import annotations

import atexit
import io
import logging
import queue
from collections.abc import Iterator

import pytest

from bot.logs import DroppingQueueHandler, configure_logging
from evalbot_dev.devstack.waiting import wait_until


def record(message: str) -> logging.LogRecord:
    return logging.LogRecord("t", logging.INFO, __file__, 1, message, None, None)


def test_a_full_queue_drops_and_counts_then_says_so() -> None:
    records: queue.Queue[logging.LogRecord] = queue.Queue(2)
    handler = DroppingQueueHandler(records)
    for index in range(5):
        handler.handle(record(f"r{index}"))
    assert handler.dropped == 3
    assert [records.get_nowait().getMessage() for _ in range(2)] == ["r0", "r1"]
    handler.handle(record("r5"))
    assert records.get_nowait().getMessage() == "r5"
    notice = records.get_nowait()
    assert notice.levelno == logging.WARNING
    assert notice.getMessage() == "3 log records dropped: the log sink is not keeping up"
    assert handler.dropped == 0


@pytest.fixture
def restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_non_blocking_logging_writes_from_a_thread_of_its_own(
    restore_root: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = io.StringIO()
    monkeypatch.setattr("sys.stderr", sink)
    listener = configure_logging("INFO", non_blocking=True)
    assert listener is not None
    try:
        (handler,) = logging.getLogger().handlers
        assert isinstance(handler, DroppingQueueHandler)
        logging.getLogger("evalbot.test").info('{"msg": "delivery", "delivery": "d-1"}')
        logging.getLogger("evalbot.test").debug("below the level")
        wait_until(lambda: "d-1" in sink.getvalue(), timeout=5, what="the written line")
    finally:
        atexit.unregister(listener.stop)  # registered for the process's exit
        listener.stop()
    (line,) = sink.getvalue().splitlines()
    assert line.endswith('INFO evalbot.test {"msg": "delivery", "delivery": "d-1"}')


def test_blocking_logging_is_a_plain_stream_handler(restore_root: None) -> None:
    assert configure_logging("WARNING") is None
    (handler,) = logging.getLogger().handlers
    assert type(handler) is logging.StreamHandler
    assert logging.getLogger().level == logging.WARNING


def test_the_hub_library_never_logs_a_request_url(restore_root: None) -> None:
    # huggingface_hub logs each request's URL at DEBUG (a repo id a visitor typed, on the
    # pages); HF_HUB_VERBOSITY=debug sets its logger so, whatever the bot's own level
    logging.getLogger("huggingface_hub").setLevel(logging.DEBUG)
    try:
        configure_logging("DEBUG")
        assert not logging.getLogger("huggingface_hub.utils._http").isEnabledFor(logging.DEBUG)
        assert logging.getLogger("huggingface_hub").isEnabledFor(logging.WARNING)
    finally:
        logging.getLogger("huggingface_hub").setLevel(logging.WARNING)
