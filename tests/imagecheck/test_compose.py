"""docker-compose.yml as `docker compose` reads it: the project's real file and .env.example."""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy.imagecheck import compose
from deploy.imagecheck.compose import ComposeError
from deploy.imagecheck.scenarios import fill_dot_env

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = (ROOT / "docker-compose.yml").read_text()
EXAMPLE = (ROOT / ".env.example").read_text()


def services(dot_env: str = EXAMPLE) -> dict[str, compose.Service]:
    return {s.name: s for s in compose.load(COMPOSE, {".env": dot_env}, shell={})}


def test_the_project_topology() -> None:
    found = services()
    assert set(found) == {"redis", "receiver", "worker", "beat"}
    assert found["worker"].replicas == 2
    assert found["beat"].replicas == 1
    assert found["worker"].stop_grace_s == 300.0
    assert found["receiver"].stop_grace_s == compose.DEFAULT_STOP_GRACE_S
    assert found["redis"].image == "redis:7"
    assert found["redis"].command == (
        "redis-server",
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--maxmemory-policy",
        "noeviction",
    )
    assert all(found[name].depends_on == ("redis",) for name in ("receiver", "worker", "beat"))
    assert found["receiver"].volumes == (compose.Volume("./config", "/app/config", True),)
    assert found["redis"].volumes[0].named


def test_an_empty_redis_url_in_dot_env_falls_back_to_the_redis_service() -> None:
    assert services()["worker"].environment["REDIS_URL"] == "redis://redis:6379/0"
    external = EXAMPLE.replace("REDIS_URL=\n", "REDIS_URL=redis://db.internal:6380/1\n")
    assert services(external)["worker"].environment["REDIS_URL"] == "redis://db.internal:6380/1"


def test_env_file_values_reach_the_services_and_environment_wins() -> None:
    dot_env = fill_dot_env(EXAMPLE, {"HF_TOKEN": "hf_test", "EVALBOT_CONFIG_DIR": "/elsewhere"})
    receiver = services(dot_env)["receiver"]
    assert receiver.environment["HF_TOKEN"] == "hf_test"
    assert receiver.environment["EVALBOT_CONFIG_DIR"] == "/app/config"  # `environment:` wins


def test_healthchecks_as_docker_runs_them() -> None:
    found = services()
    worker = found["worker"].healthcheck
    assert worker is not None
    argv = compose.healthcheck_argv(worker.test)
    assert argv[:2] == ("/bin/sh", "-c")
    assert '"worker@$HOSTNAME"' in argv[2]  # `$$` in the file is a literal `$`
    assert (worker.interval_s, worker.timeout_s, worker.retries) == (30.0, 10.0, 3)
    redis = found["redis"].healthcheck
    assert redis is not None
    assert compose.healthcheck_argv(redis.test) == ("redis-cli", "ping")
    assert found["beat"].healthcheck is None
    assert found["beat"].disables_healthcheck


@pytest.mark.parametrize(
    ("text", "variables", "expected"),
    [
        ("${A:-d}", {}, "d"),
        ("${A:-d}", {"A": ""}, "d"),
        ("${A-d}", {"A": ""}, ""),
        ("${A-d}", {}, "d"),
        ("${A:-d}", {"A": "x"}, "x"),
        ("${A:+alt}", {"A": "x"}, "alt"),
        ("${A:+alt}", {"A": ""}, ""),
        ("$A/${B}", {"A": "1", "B": "2"}, "1/2"),
        ("$$HOSTNAME costs $$5", {"HOSTNAME": "h"}, "$HOSTNAME costs $5"),
        ("${A:-redis://r:6379/0}", {}, "redis://r:6379/0"),
    ],
)
def test_interpolation(text: str, variables: dict[str, str], expected: str) -> None:
    assert compose.interpolate(text, variables) == expected


def test_a_required_variable_that_is_missing_stops_the_load() -> None:
    with pytest.raises(ComposeError, match="required variable A"):
        compose.interpolate("${A:?set A}", {"A": ""})


def test_env_file_syntax() -> None:
    text = "# c\nexport A=1\nB='two words'\nC=\"x # y\"\nD=v # comment\nE=\n\n"
    assert compose.parse_env_file(text) == {
        "A": "1",
        "B": "two words",
        "C": "x # y",
        "D": "v",
        "E": "",
    }
    with pytest.raises(ComposeError):
        compose.parse_env_file("NOEQUALS\n")


def test_keys_it_does_not_interpret_are_refused() -> None:
    text = "services:\n  x:\n    image: a\n    network_mode: host\n"
    with pytest.raises(ComposeError, match="network_mode"):
        compose.load(text, {}, shell={})


def test_dot_env_placeholders_must_exist_once() -> None:
    with pytest.raises(ValueError, match="0 lines for NOPE"):
        fill_dot_env(EXAMPLE, {"NOPE": "x"})
