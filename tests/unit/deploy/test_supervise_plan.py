"""`bot.supervise.plan`: what the one-container supervisor starts, from plain environments."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.supervise.plan import (
    DEFAULT_PORT,
    REDIS_START_TIMEOUT_S,
    SHUTDOWN_TIMEOUT_S,
    Bound,
    Listener,
    PlanError,
    plan_from_env,
)

PYTHON = "/usr/bin/python3"
REDIS = "/usr/bin/redis-server"
#: Sockets as the runner would have bound them (descriptors and ports are plain numbers here).
PUBLIC = Bound(fd=5, port=7860)
WEB = Bound(fd=6, port=41234)


def _never_writable(_folder: Path) -> bool:
    return False


def _argv_value(argv: tuple[str, ...], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_defaults_start_embedded_redis_one_receiver_on_7860_and_one_worker() -> None:
    plan = plan_from_env({}, python=PYTHON, redis_binary=REDIS, writable=_never_writable)
    assert plan.redis is not None
    assert plan.redis.port == 6379
    assert plan.redis.directory == Path("var/redis")
    assert plan.bot_env["REDIS_URL"] == "redis://127.0.0.1:6379/0"
    assert plan.public == Listener("0.0.0.0", DEFAULT_PORT, "PORT")
    assert plan.public_fd is None
    _web, receiver, worker = plan.bot_children(PUBLIC, WEB)
    assert receiver.argv[:6] == (PYTHON, "-m", "bot", "serve", "--fd", "5")
    assert receiver.pass_fds == (5,)
    assert [worker.name for worker in plan.workers] == ["worker1"]
    assert worker.pass_fds == ()
    assert _argv_value(plan.workers[0].argv, "--concurrency") == "2"
    assert receiver.env["REDIS_URL"] == plan.workers[0].env["REDIS_URL"] == plan.redis.url


def test_embedded_redis_is_durable_and_refuses_to_evict() -> None:
    plan = plan_from_env(
        {"EVALBOT_REDIS_PORT": "7001", "EVALBOT_REDIS_DIR": "/srv/aof"},
        python=PYTHON,
        redis_binary=REDIS,
        writable=_never_writable,
    )
    assert plan.redis is not None
    argv = plan.redis.spec.argv
    assert argv[0] == REDIS
    assert _argv_value(argv, "--appendonly") == "yes"
    assert _argv_value(argv, "--appendfsync") == "everysec"
    assert _argv_value(argv, "--maxmemory-policy") == "noeviction"
    assert _argv_value(argv, "--bind") == "127.0.0.1"
    assert _argv_value(argv, "--port") == "7001"
    assert _argv_value(argv, "--dir") == "/srv/aof"


def test_space_persistent_storage_holds_the_aof_when_writable() -> None:
    plan = plan_from_env(
        {}, python=PYTHON, redis_binary=REDIS, writable=lambda folder: folder == Path("/data")
    )
    assert plan.redis is not None
    assert plan.redis.directory == Path("/data/evalbot-redis")


def test_a_given_redis_url_means_no_embedded_redis_and_is_passed_unchanged() -> None:
    url = "rediss://:pw@redis.internal:6380/2"
    plan = plan_from_env(
        {"REDIS_URL": url, "PORT": "9000", "EVALBOT_WORKERS": "3", "EVALBOT_HOST": "127.0.0.1"},
        python=PYTHON,
        redis_binary=None,  # not needed when a Redis is given
        writable=_never_writable,
    )
    assert plan.redis is None
    assert plan.bot_env["REDIS_URL"] == url
    assert plan.public == Listener("127.0.0.1", 9000, "PORT")
    hostnames = [_argv_value(worker.argv, "--hostname") for worker in plan.workers]
    assert hostnames == ["worker1@%h", "worker2@%h", "worker3@%h"]


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(PlanError) as caught:
        plan_from_env(
            {
                "PORT": "http",
                "EVALBOT_WORKERS": "0",
                "EVALBOT_LISTEN_FD": "1",
            },
            python=PYTHON,
            redis_binary=None,
            writable=_never_writable,
        )
    message = str(caught.value)
    assert "PORT must be an integer" in message
    assert "EVALBOT_WORKERS must be at least 1, got 0" in message
    assert "no redis-server was found" in message
    assert "EVALBOT_LISTEN_FD must be at least 3, got 1" in message


def test_the_environment_is_passed_on_to_every_bot_process() -> None:
    environ = {"HF_TOKEN": "hf_x", "EVALBOT_BOT_NAME": "evalbot", "REDIS_URL": "redis://r:6379/0"}
    plan = plan_from_env(environ, python=PYTHON, redis_binary=None, writable=_never_writable)
    for child in plan.bot_children(PUBLIC, WEB):
        assert dict(child.env) == environ


def test_the_web_pages_run_on_loopback_behind_the_receiver_unless_disabled() -> None:
    plan = plan_from_env(
        {"EVALBOT_WEB_PORT": "9001"}, python=PYTHON, redis_binary=REDIS, writable=_never_writable
    )
    assert plan.web == Listener("127.0.0.1", 0, None)  # any free port, whatever the old setting
    assert plan_from_env(
        {}, python=PYTHON, redis_binary=REDIS, writable=_never_writable, web_port=9001
    ).web == Listener("127.0.0.1", 9001, None)
    web, receiver, _worker = plan.bot_children(PUBLIC, WEB)
    assert web.argv == (PYTHON, "-m", "bot", "web", "--fd", "6")
    assert web.pass_fds == (6,)
    # the port the web socket got
    assert receiver.argv[-2:] == ("--web-upstream", "http://127.0.0.1:41234")
    assert [child.name for child in plan.bot_children(PUBLIC, WEB)] == [
        "web",
        "receiver",
        "worker1",
    ]
    off = plan_from_env(
        {"EVALBOT_WEB": "0"}, python=PYTHON, redis_binary=REDIS, writable=_never_writable
    )
    assert off.web is None
    (receiver_alone, _worker) = off.bot_children(PUBLIC, None)
    assert "--web-upstream" not in receiver_alone.argv


def test_the_web_pages_take_any_free_port_and_an_inherited_public_socket_is_served() -> None:
    plan = plan_from_env(
        {"EVALBOT_LISTEN_FD": "7", "REDIS_URL": "redis://r:6379/0"},
        python=PYTHON,
        redis_binary=None,
        writable=_never_writable,
    )
    assert plan.web is not None
    assert plan.web.port == 0
    assert plan.public_fd == 7
    with pytest.raises(PlanError):
        plan_from_env({"PORT": "0"}, python=PYTHON, redis_binary=REDIS, writable=_never_writable)


def test_the_timeouts_are_constants_whatever_the_removed_settings_say() -> None:
    stale = {"EVALBOT_SHUTDOWN_TIMEOUT": "nan", "EVALBOT_REDIS_START_TIMEOUT": "1"}
    plan = plan_from_env(stale, python=PYTHON, redis_binary=REDIS, writable=_never_writable)
    assert (plan.shutdown_timeout_s, plan.redis_start_timeout_s) == (
        SHUTDOWN_TIMEOUT_S,
        REDIS_START_TIMEOUT_S,
    )
    short = plan_from_env(
        {}, python=PYTHON, redis_binary=REDIS, writable=_never_writable, shutdown_timeout_s=2.0
    )
    assert short.shutdown_timeout_s == 2.0
