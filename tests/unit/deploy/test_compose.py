"""docker-compose.yml, parsed: the settings that decide whether queued work survives."""

from __future__ import annotations

import re
import sys
from typing import Any

from tests.conftest import REPO_ROOT
from tests.unit.deploy.files import (
    ENV_EXAMPLE,
    SECRET_NAME,
    compose,
    documented_settings,
    env_file,
)
from workers.app import TASK_TIME_LIMIT_S

RESTART_POLICIES = ("always", "unless-stopped", "on-failure")


def _service(name: str) -> dict[str, Any]:
    service = compose()["services"][name]
    assert isinstance(service, dict)
    return service


def _flag(command: list[str], flag: str) -> str:
    return command[command.index(flag) + 1]


def _seconds(duration: str) -> int:
    """Compose durations such as `5m`, `90s`, `1m30s`."""
    units = {"h": 3600, "m": 60, "s": 1}
    parts = re.findall(r"(\d+)([hms])", duration)
    assert parts, duration
    assert "".join(n + u for n, u in parts) == duration, duration
    return sum(int(number) * units[unit] for number, unit in parts)


def test_redis_is_durable_and_never_evicts() -> None:
    redis = _service("redis")
    assert str(redis["image"]).startswith("redis:7")
    command = [str(part) for part in redis["command"]]
    assert _flag(command, "--appendonly") == "yes"
    assert _flag(command, "--appendfsync") == "everysec"
    assert _flag(command, "--maxmemory-policy") == "noeviction"
    volume, _, target = redis["volumes"][0].partition(":")
    assert target == "/data"
    assert volume in compose()["volumes"], "AOF must live on a named volume"
    assert "redis-cli" in redis["healthcheck"]["test"]


def test_bot_services_wait_for_a_healthy_redis_and_restart() -> None:
    for name in ("receiver", "worker"):
        service = _service(name)
        assert service["depends_on"]["redis"]["condition"] == "service_healthy", name
        assert service["restart"] in RESTART_POLICIES, name
        assert service["env_file"] == ".env", name
        assert "./config:/app/config:ro" in service["volumes"], name
        assert service["healthcheck"]["test"], name
    assert _service("redis")["restart"] in RESTART_POLICIES


def test_receiver_on_port_8000_and_two_or_more_workers() -> None:
    receiver = _service("receiver")
    assert receiver["command"][:2] == ["evalbot", "serve"]
    assert "8000:7860" in receiver["ports"]
    worker = _service("worker")
    assert worker["command"][:2] == ["evalbot", "worker"]
    assert worker["deploy"]["replicas"] >= 2
    assert "ports" not in worker


def test_workers_get_time_to_finish_a_task_on_shutdown() -> None:
    """SIGTERM is a warm shutdown: the grace period must cover the hard task time limit."""
    task_time_limit = TASK_TIME_LIMIT_S
    assert _seconds(_service("worker")["stop_grace_period"]) >= task_time_limit


def test_no_secret_value_is_written_inline() -> None:
    for name, service in compose()["services"].items():
        environment = service.get("environment") or {}
        assert isinstance(environment, dict), f"{name}: use the mapping form"
        for key, value in environment.items():
            assert not SECRET_NAME.search(key), f"{name}: {key} belongs in .env"
            if key == "REDIS_URL":
                assert "@" not in str(value), f"{name}: no password in an inline REDIS_URL"
    text = (REPO_ROOT / "docker-compose.yml").read_text()
    assert "hf_" not in text


def test_env_example_lists_every_documented_setting_with_safe_placeholders() -> None:
    example = env_file(ENV_EXAMPLE)
    documented = documented_settings()
    assert len(documented) >= 15, "could not read docs/operating.md's settings table"
    assert sorted(set(documented) - set(example)) == []
    assert sorted(set(example) - set(documented)) == [], "undocumented variable in .env.example"
    for name, value in example.items():
        if SECRET_NAME.search(name):
            assert value == "" or "replace" in value, f"{name} must be a placeholder"
    gitignored = (REPO_ROOT / ".gitignore").read_text().splitlines()
    assert ".env" in gitignored


def test_opt_in_services_run_evalbot_and_probe_with_the_standard_library_only() -> None:
    """The issuer and the pages are behind profiles (`docker compose up` leaves them out); their
    health checks run `python -c` in the image, where only runtime dependencies exist: the
    standard library keeps them working whatever the lock moves to the dev side."""
    for name, subcommand in (("issuer", "issuer"), ("web", "web")):
        service = _service(name)
        assert service["profiles"] == [name]
        assert service["command"][:2] == ["evalbot", subcommand]
        test = [str(part) for part in service["healthcheck"]["test"]]
        code = test[test.index("-c") + 1]
        imported = set(re.findall(r"\bimport ([\w., ]+?);", code)[0].replace(" ", "").split(","))
        assert {module.partition(".")[0] for module in imported} <= set(sys.stdlib_module_names), (
            name,
            imported,
        )
