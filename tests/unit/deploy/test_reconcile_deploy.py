"""Exactly one beat per deployment: a `beat` service in compose, the first worker in the Space."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.supervise.plan import PlanError, plan_from_env
from tests.unit.deploy.files import compose

PYTHON = "/usr/bin/python3"


def _writable(_folder: Path) -> bool:
    return False


def test_compose_runs_one_beat_and_workers_embed_none() -> None:
    services = compose()["services"]
    beat = services["beat"]
    assert beat["command"] == ["evalbot", "beat"]
    assert beat.get("deploy", {}).get("replicas", 1) == 1
    assert "ports" not in beat
    assert beat["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "--beat" not in services["worker"]["command"]


def test_space_first_worker_embeds_beat_unless_disabled(tmp_path: Path) -> None:
    plan = plan_from_env(
        {"EVALBOT_WORKERS": "3"}, python=PYTHON, redis_binary="redis-server", writable=_writable
    )
    assert ["--beat" in worker.argv for worker in plan.workers] == [True, False, False]
    (tmp_path / "bot.yaml").write_text("reconcile:\n  interval_s: 0\n")
    disabled = plan_from_env(
        {"EVALBOT_CONFIG_DIR": str(tmp_path)},
        python=PYTHON,
        redis_binary="redis-server",
        writable=_writable,
    )
    assert not any("--beat" in worker.argv for worker in disabled.workers)
    (tmp_path / "bot.yaml").write_text("reconcile:\n  interval_s: never\n")
    with pytest.raises(PlanError, match=r"bot\.yaml:2: `reconcile\.interval_s` must be"):
        plan_from_env(
            {"EVALBOT_CONFIG_DIR": str(tmp_path)},
            python=PYTHON,
            redis_binary="redis-server",
            writable=_writable,
        )
