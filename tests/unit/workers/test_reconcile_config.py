"""Reconciliation settings: the beat schedule from `EVALBOT_RECONCILE_INTERVAL`, and the
`watched_repos:` / `reconcile:` part of `config/bot.yaml`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError
from workers.app import RECONCILE_TASK, celery_config, create_celery_app
from workers.catchup import ReconcileLimits
from workers.runtime import BotConfigError, load_maintainers, load_reconcile_config

BASE = {
    "HF_TOKEN": "hf_x",
    "REDIS_URL": "redis://127.0.0.1:6390/3",
    "EVALBOT_WEBHOOK_SECRET": "s",
    "EVALBOT_BOT_NAME": "evalbot-ci",
}


def test_interval_defaults_to_five_minutes_and_schedules_the_task() -> None:
    settings = Settings.from_env(BASE)
    assert settings.reconcile_interval_s == 300
    schedule = celery_config(settings)["beat_schedule"]
    assert schedule == {
        "evalbot-reconcile": {
            "task": RECONCILE_TASK,
            "schedule": 300.0,
            "options": {"expires": 300.0},
        }
    }
    assert celery_config(settings)["beat_scheduler"] == "celery.beat:Scheduler"


def test_zero_disables_and_negative_is_refused() -> None:
    disabled = Settings.from_env(BASE | {"EVALBOT_RECONCILE_INTERVAL": "0"})
    assert celery_config(disabled)["beat_schedule"] == {}
    with pytest.raises(SettingsError, match="EVALBOT_RECONCILE_INTERVAL must be at least 0"):
        Settings.from_env(BASE | {"EVALBOT_RECONCILE_INTERVAL": "-5"})


def test_the_app_registers_the_reconcile_task() -> None:
    app = create_celery_app(Settings.from_env(BASE | {"EVALBOT_RECONCILE_INTERVAL": "7"}))
    app.loader.import_default_modules()
    assert RECONCILE_TASK in app.tasks
    assert app.conf.beat_schedule["evalbot-reconcile"]["schedule"] == 7.0


def test_bot_yaml_watched_repos_and_limits(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(
        "maintainers: [alice]\n"
        "watched_repos: [org/model, alice/other]\n"
        "reconcile:\n  max_repos: 5\n  max_hub_calls: 20\n"
    )
    config = load_reconcile_config(path, 60)
    assert config.watched_repos == ("org/model", "alice/other")
    assert config.limits == ReconcileLimits(max_repos=5, max_hub_calls=20)
    assert config.interval_s == 60
    assert load_maintainers(path) == frozenset({"alice"})
    missing = load_reconcile_config(tmp_path / "none.yaml", 300)
    assert (missing.watched_repos, missing.limits) == ((), ReconcileLimits())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("watched_repos: org/model\n", "must be a list of owner/name"),
        ("watched_repos: [just-a-name]\n", "must be a list of owner/name"),
        ("reconcile: [1]\n", "`reconcile` must be a mapping"),
        ("reconcile: {max_repo: 3}\n", "unknown `reconcile` setting 'max_repo'"),
        ("reconcile: {max_repos: 0}\n", "`reconcile.max_repos` must be a positive integer"),
        ("reconcile: {max_repos: true}\n", "`reconcile.max_repos` must be a positive integer"),
        ("- a list\n", "must be a mapping"),
    ],
)
def test_bad_bot_yaml_fails_fast(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(text)
    with pytest.raises(BotConfigError, match=message):
        load_reconcile_config(path, 300)
