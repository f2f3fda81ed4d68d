"""`evalbot serve` and `evalbot worker`: registration, fail-fast settings, worker arguments;
how the HTTP services (serve, web, issuer) listen."""

from __future__ import annotations

import argparse
import socket

import pytest

from bot.cli import build_parser, main
from bot.cli.worker import worker_argv


@pytest.mark.parametrize("command", [["serve"], ["worker"]])
def test_missing_settings_exit_2_with_every_problem(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("HF_TOKEN", "REDIS_URL", "EVALBOT_WEBHOOK_SECRET", "EVALBOT_BOT_NAME"):
        monkeypatch.delenv(name, raising=False)
    assert main(command) == 2
    error = capsys.readouterr().err
    assert f"evalbot {command[0]}: invalid settings" in error
    assert "REDIS_URL is required" in error
    assert "EVALBOT_WEBHOOK_SECRET is required" in error


def test_worker_rejects_zero_concurrency(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["worker", "--concurrency", "0"]) == 2
    assert "--concurrency must be at least 1" in capsys.readouterr().err


def test_serve_options() -> None:
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9000"])
    assert (args.host, args.port) == ("0.0.0.0", 9000)
    defaults = build_parser().parse_args(["serve"])
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8000)


def test_worker_argv() -> None:
    args = argparse.Namespace(concurrency=3, pool="prefork", hostname="w1@%h")
    assert worker_argv(args, queue="evalbot", log_level="INFO") == [
        "worker",
        "--concurrency=3",
        "--pool=prefork",
        "--queues=evalbot",
        "--loglevel=INFO",
        "--without-mingle",
        "--without-gossip",
        "--hostname=w1@%h",
    ]


@pytest.mark.parametrize(("root_level", "task_level"), [("INFO", "WARNING"), ("DEBUG", "DEBUG")])
def test_celerys_per_task_lines_show_only_at_debug(root_level: str, task_level: str) -> None:
    """At INFO each run logs one line of ours; Celery's "received" and "succeeded" lines
    would triple that, so they are kept for DEBUG."""
    import logging

    from bot.cli.worker import CELERY_TASK_LOGGERS, quiet_celery_task_lines

    root = logging.getLogger()
    saved = root.level, {name: logging.getLogger(name).level for name in CELERY_TASK_LOGGERS}
    try:
        root.setLevel(root_level)
        for name in CELERY_TASK_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)
        quiet_celery_task_lines()
        for name in CELERY_TASK_LOGGERS:
            assert logging.getLevelName(logging.getLogger(name).getEffectiveLevel()) == task_level
    finally:
        root.setLevel(saved[0])
        for name, level in saved[1].items():
            logging.getLogger(name).setLevel(level)


@pytest.mark.parametrize(("command", "port"), [("serve", 8000), ("web", 8001), ("issuer", 8100)])
def test_every_service_listens_on_loopback_by_default(command: str, port: int) -> None:
    args = build_parser().parse_args([command])
    assert (args.host, args.port) == ("127.0.0.1", port)


def test_services_run_without_access_log_or_server_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A query string may carry a secret or what a user typed: uvicorn must not log it."""
    import uvicorn

    from bot.cli.serving import serve

    runs: list[tuple[uvicorn.Config, object]] = []

    def run(server: uvicorn.Server, sockets: object = None) -> None:
        runs.append((server.config, sockets))
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    serve(object(), argparse.Namespace(host="127.0.0.1", port=8000, fd=None))
    ((config, sockets),) = runs
    assert (config.host, config.port, config.log_config) == ("127.0.0.1", 8000, None)
    assert (config.access_log, config.server_header, config.lifespan) == (False, False, "on")
    assert sockets is None  # uvicorn binds --host and --port itself


def test_a_service_given_fd_serves_on_that_inherited_socket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--fd N`: the socket the parent bound (evalbot_dev/devstack/listening.py), not a new bind."""
    import uvicorn

    from bot.cli.serving import serve
    from evalbot_dev.devstack.listening import listening_socket

    served: list[list[socket.socket]] = []

    def run(server: uvicorn.Server, sockets: list[socket.socket] | None = None) -> None:
        assert sockets is not None
        served.append(sockets)
        server.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    parent = listening_socket()
    try:
        serve(object(), argparse.Namespace(host="127.0.0.1", port=8000, fd=parent.fileno()))
        ((inherited,),) = served
        assert inherited.getsockname() == parent.getsockname()
        assert inherited.proto == socket.IPPROTO_TCP
        inherited.detach()  # the parent's descriptor: closed once, below
    finally:
        parent.close()


def test_a_service_whose_app_did_not_start_exits_with_uvicorns_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import uvicorn

    from bot.cli.serving import serve

    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: None)
    with pytest.raises(SystemExit) as exited:
        serve(object(), argparse.Namespace(host="127.0.0.1", port=8000, fd=None))
    assert exited.value.code == 3
