"""Exactly one beat per deployment: a `beat` service in compose, a `beat` program in the Space
(`tests/unit/deploy/test_supervise_plan.py`)."""

from __future__ import annotations

from tests.unit.deploy.files import compose


def test_compose_runs_one_beat_and_workers_embed_none() -> None:
    services = compose()["services"]
    beat = services["beat"]
    assert beat["command"] == ["evalbot", "beat"]
    assert beat.get("deploy", {}).get("replicas", 1) == 1
    assert "ports" not in beat
    assert beat["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "--beat" not in services["worker"]["command"]
