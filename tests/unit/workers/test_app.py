"""The Celery app factory: reliability settings from `Settings`, lazily built module-level app."""

from __future__ import annotations

import subprocess
import sys

from bot.queue.publishing import TASK_NAME
from bot.settings import Settings
from tests.support.processes import REPO_ROOT, bot_environment
from workers.app import celery_config, create_celery_app

SETTINGS = Settings.from_env(
    {
        "HF_TOKEN": "hf_x",
        "REDIS_URL": "redis://127.0.0.1:6390/3",
        "EVALBOT_WEBHOOK_SECRET": "s",
        "EVALBOT_BOT_NAME": "evalbot-ci",
    }
)


def test_reliability_settings() -> None:
    config = celery_config(SETTINGS)
    assert config["task_acks_late"] is True
    assert config["task_reject_on_worker_lost"] is True
    assert config["task_acks_on_failure_or_timeout"] is False
    assert config["worker_prefetch_multiplier"] == 1
    assert config["broker_transport_options"]["visibility_timeout"] == 900
    assert config["broker_transport_options"]["unacked_restore_throttle"] == 1
    assert config["broker_transport_options"]["unacked_restore_interval"] == 10
    assert config["broker_transport_options"]["unacked_mutex_expire"] == 10
    assert config["result_backend_transport_options"]["visibility_timeout"] == 900
    assert config["visibility_timeout"] == 900
    assert (config["task_soft_time_limit"], config["task_time_limit"]) == (240, 300)
    assert config["accept_content"] == ["json"]
    assert config["task_serializer"] == "json"
    assert config["result_backend"] is None
    assert config["task_ignore_result"] is True
    assert config["broker_connection_retry_on_startup"] is True
    assert config["broker_connection_max_retries"] is None  # Celery's default gives up at 100
    assert config["worker_cancel_long_running_tasks_on_connection_loss"] is True
    assert config["worker_soft_shutdown_timeout"] > 0
    assert config["result_serializer"] == config["event_serializer"] == "json"
    assert config["task_default_queue"] == "evalbot"


def test_app_carries_the_configuration_and_registers_the_task() -> None:
    app = create_celery_app(SETTINGS)
    assert app.conf.broker_url == "redis://127.0.0.1:6390/3"
    assert app.conf.task_acks_late is True
    assert app.conf.broker_transport_options["visibility_timeout"] == 900
    app.loader.import_default_modules()
    assert TASK_NAME in app.tasks


def test_importing_the_module_reads_no_environment_and_celery_a_finds_the_app() -> None:
    script = (
        "import workers.app as m\n"
        "try:\n"
        "    m.app\n"
        "except Exception as error:\n"
        "    print(type(error).__name__)\n"
    )
    empty = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", script], env=empty, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "SettingsError"  # the import itself succeeded
    find = (
        "from celery.app.utils import find_app\n"
        "app = find_app('workers.app')\n"
        "print(app.conf.task_default_queue, app.conf.broker_url)\n"
    )
    env = bot_environment("redis://127.0.0.1:6390/5")
    result = subprocess.run(
        [sys.executable, "-c", find], env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["evalbot", "redis://127.0.0.1:6390/5"]
