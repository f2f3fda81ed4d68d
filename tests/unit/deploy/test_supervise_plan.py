"""`bot.supervise.plan` and `supervisord.conf`: what the Space's container starts, from plain
environments, read by supervisord's own configuration loader."""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from supervisor.options import ServerOptions

from bot.supervise.plan import DEFAULT_PORT, PlanError, SpacePlan, space_plan

PYTHON = "/usr/bin/python3"
REDIS = "/usr/bin/redis-server"
WEB_PORT = 41234


def _never_writable(_folder: Path) -> bool:
    return False


def _plan(environ: Mapping[str, str], **options: object) -> SpacePlan:
    settings: dict[str, object] = {
        "python": PYTHON,
        "redis_binary": REDIS,
        "writable": _never_writable,
        "web_port": lambda: WEB_PORT,
    }
    settings.update(options)
    return space_plan(environ, **settings)  # type: ignore[arg-type]


def programs(monkeypatch: pytest.MonkeyPatch, plan: SpacePlan) -> dict[str, list[str]]:
    """Each process supervisord would start under `plan` (autostart on): name -> argv."""
    monkeypatch.setattr("os.environ", dict(plan.env))
    options = ServerOptions()
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "supervisord.conf"
        config.write_text(plan.config)
        options.realize(["-c", str(config)])
    started: dict[str, list[str]] = {}
    for group in options.process_group_configs:
        for process in group.process_configs:
            if process.autostart and group.name != "stop-on-fatal":
                started[process.name] = shlex.split(process.command)
    return started


def _value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_defaults_start_embedded_redis_the_pages_the_receiver_beat_and_one_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan({})
    assert plan.env["REDIS_URL"] == "redis://127.0.0.1:6379/0"
    assert plan.env["EVALBOT_REDIS_DIR"] == "var/redis"
    started = programs(monkeypatch, plan)
    assert sorted(started) == ["beat", "receiver", "redis", "web", "worker1"]
    receiver = started["receiver"]
    assert receiver[:4] == [PYTHON, "-m", "bot", "serve"]
    assert (_value(receiver, "--host"), _value(receiver, "--port")) == ("0.0.0.0", "7860")
    assert _value(receiver, "--web-upstream") == f"http://127.0.0.1:{WEB_PORT}"
    assert started["web"][3:] == ["web", "--host", "127.0.0.1", "--port", str(WEB_PORT)]
    assert started["beat"][3:] == ["beat"]
    assert _value(started["worker1"], "--concurrency") == "2"
    assert int(plan.env["PORT"]) == DEFAULT_PORT


def test_embedded_redis_is_durable_and_refuses_to_evict(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = _plan({"EVALBOT_REDIS_PORT": "7001", "EVALBOT_REDIS_DIR": "/srv/aof"})
    argv = programs(monkeypatch, plan)["redis"]
    assert argv[0] == REDIS
    assert _value(argv, "--appendonly") == "yes"
    assert _value(argv, "--appendfsync") == "everysec"
    assert _value(argv, "--save") == ""
    assert _value(argv, "--maxmemory-policy") == "noeviction"
    assert _value(argv, "--bind") == "127.0.0.1"
    assert _value(argv, "--port") == "7001"
    assert _value(argv, "--dir") == "/srv/aof"
    assert plan.env["REDIS_URL"] == "redis://127.0.0.1:7001/0"


def test_space_persistent_storage_holds_the_aof_when_writable() -> None:
    plan = _plan({}, writable=lambda folder: folder == Path("/data"))
    assert plan.env["EVALBOT_REDIS_DIR"] == "/data/evalbot-redis"


def test_a_given_redis_url_means_no_embedded_redis_and_is_passed_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = "rediss://:pw@redis.internal:6380/2"
    plan = _plan(
        {"REDIS_URL": url, "PORT": "9000", "EVALBOT_WORKERS": "3", "EVALBOT_HOST": "127.0.0.1"},
        redis_binary=None,  # not needed when a Redis is given
    )
    assert plan.env["REDIS_URL"] == url
    started = programs(monkeypatch, plan)
    assert "redis" not in started
    assert _value(started["receiver"], "--port") == "9000"
    hostnames = [_value(started[f"worker{n}"], "--hostname") for n in (1, 2, 3)]
    assert hostnames == ["worker1@%h", "worker2@%h", "worker3@%h"]


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(PlanError) as caught:
        _plan({"PORT": "http", "EVALBOT_WORKERS": "0"}, redis_binary=None)
    message = str(caught.value)
    assert "PORT must be an integer" in message
    assert "EVALBOT_WORKERS must be at least 1, got 0" in message
    assert "no redis-server was found" in message


def test_the_environment_is_passed_on_to_every_process() -> None:
    environ = {"HF_TOKEN": "hf_x", "EVALBOT_BOT_NAME": "evalbot", "REDIS_URL": "redis://r:6379/0"}
    plan = _plan(environ, redis_binary=None)
    assert plan.env.items() >= environ.items()


def test_the_web_pages_run_on_loopback_behind_the_receiver_unless_disabled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    off = programs(monkeypatch, _plan({"EVALBOT_WEB": "0"}))
    assert "web" not in off
    assert "--web-upstream" not in off["receiver"]


def test_the_beat_runs_unless_reconciliation_is_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "bot.yaml").write_text("reconcile:\n  interval_s: 0\n")
    disabled = programs(monkeypatch, _plan({"EVALBOT_CONFIG_DIR": str(tmp_path)}))
    assert "beat" not in disabled
    assert not any("--beat" in argv for argv in disabled.values())
    (tmp_path / "bot.yaml").write_text("reconcile:\n  interval_s: never\n")
    with pytest.raises(PlanError, match=r"bot\.yaml:2: `reconcile\.interval_s` must be"):
        _plan({"EVALBOT_CONFIG_DIR": str(tmp_path)})


def test_every_problem_of_the_bot_config_stops_the_space_before_it_starts_anything(
    tmp_path: Path,
) -> None:
    """Not only `reconcile.interval_s`: a Space whose processes would all stop on the file
    starts none of them."""
    (tmp_path / "bot.yaml").write_text("maintainers: alice\ndocs_url: ftp://docs\n")
    with pytest.raises(PlanError) as caught:
        _plan({"EVALBOT_CONFIG_DIR": str(tmp_path)})
    message = str(caught.value)
    assert f"{tmp_path / 'bot.yaml'}:1: `maintainers` must be a list" in message
    assert f"{tmp_path / 'bot.yaml'}:2: `docs_url` must be an http or https URL" in message
