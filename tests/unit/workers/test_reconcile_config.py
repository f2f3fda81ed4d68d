"""Reconciliation settings: the beat schedule from `reconcile.interval_s`, and the
`watched_repos:` / `reconcile:` part of `config/bot.yaml`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config
from bot.botconfig.sections import KEYS, ReconcileLimits
from bot.settings import Settings, SettingsError
from workers.app import RECONCILE_TASK, celery_config, create_celery_app

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


def with_interval(tmp_path: Path, value: str) -> dict[str, str]:
    (tmp_path / "bot.yaml").write_text(f"maintainers: []\nreconcile:\n  interval_s: {value}\n")
    return BASE | {"EVALBOT_CONFIG_DIR": str(tmp_path)}


def test_zero_disables_and_negative_is_refused_at_its_line(tmp_path: Path) -> None:
    disabled = Settings.from_env(with_interval(tmp_path, "0"))
    assert celery_config(disabled)["beat_schedule"] == {}
    for bad in ("-5", "1.5", "true", "soon"):
        with pytest.raises(SettingsError) as raised:
            Settings.from_env(with_interval(tmp_path, bad))
        assert str(raised.value).startswith(f"{tmp_path / 'bot.yaml'}:3: `reconcile.interval_s`")


def test_the_app_registers_the_reconcile_task(tmp_path: Path) -> None:
    app = create_celery_app(Settings.from_env(with_interval(tmp_path, "7")))
    app.loader.import_default_modules()
    assert RECONCILE_TASK in app.tasks
    assert app.conf.beat_schedule["evalbot-reconcile"]["schedule"] == 7.0


def test_bot_yaml_watched_repos_and_limits(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(
        "maintainers: [alice]\n"
        "watched_repos: [org/model, alice/other]\n"
        "reconcile:\n  interval_s: 60\n  max_repos: 5\n  max_hub_calls: 20\n"
    )
    bot_config = load_bot_config(path)
    config = bot_config.reconcile
    assert config.watched_repos == ("org/model", "alice/other")
    assert config.limits == ReconcileLimits(max_repos=5, max_hub_calls=20)
    assert config.interval_s == 60
    assert bot_config.maintainers == frozenset({"alice"})
    missing = load_bot_config(tmp_path / "none.yaml").reconcile
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
        ("maintainers: alice\n", "`maintainers` must be a list of Hub user names"),
        ("maintainer: [alice]\n", "unknown key `maintainer`"),
        ("cross_pr_checks: 3\n", "`cross_pr_checks` must be true or false"),
        # YAML 1.2, as everywhere else: `yes` is a string (the workers once read it as true)
        ("cross_pr_checks: yes\n", "`cross_pr_checks` must be true or false"),
        ("collections: {a/b: [no-such]}\n", "`collections` names `no-such`"),
    ],
)
def test_bad_bot_yaml_fails_fast(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_bot_config(path)


def test_a_bot_yaml_error_is_one_line_with_file_line_field_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text("# the bot's settings\nwatched_repos: []\nmaintainers: alice\n")
    with pytest.raises(ConfigError) as raised:
        load_bot_config(path)
    assert str(raised.value) == (
        f"{path}:3: `maintainers` must be a list of Hub user names "
        "(fix: write one name per line as `  - alice`, or `maintainers: [alice, bob]`)"
    )
    path.write_text("reconcile:\n  max_repos: 5\n  max_hub_call: 3\n")
    with pytest.raises(ConfigError, match=rf"^{path}:3: unknown `reconcile` setting"):
        load_bot_config(path)
    path.write_text("maintainers: [alice\n")
    with pytest.raises(ConfigError, match=rf"^{path}:2: "):
        load_bot_config(path)


def test_the_shipped_bot_yaml_is_valid_and_documents_every_key() -> None:
    shipped = Path(__file__).resolve().parents[3] / "config" / "bot.yaml"
    config = load_bot_config(shipped)
    text = shipped.read_text()
    assert config.maintainers == frozenset()  # an example, commented out
    assert not config.campaign.enabled
    for key in (*KEYS, *ReconcileLimits.__dataclass_fields__):
        assert f"{key}:" in text, key


def test_every_section_s_problem_is_reported_at_once_each_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(
        "maintainer: [alice]\n"
        "watched_repos: org/model\n"
        "reconcile:\n  interval_s: soon\n  max_repos: 0\n"
        "policy:\n  errors: [NOPE]\n"
        "source_datastores: evaleval\n"
        "operators: {users: [{name: bob, id: bob}]}\n"
    )
    with pytest.raises(ConfigError) as raised:
        load_bot_config(path)
    assert "\n" not in str(raised.value)
    found = [(problem.line, problem.problem) for problem in raised.value.problems]
    expected = [
        (1, "unknown key `maintainer`"),
        (2, "`watched_repos` must be a list"),
        (4, "`reconcile.interval_s` must be a whole number"),
        (5, "`reconcile.max_repos` must be a positive integer"),
        (9, "must be the account's 24-hex Hub id"),
        (7, "`policy.errors`: unknown diagnostic code"),
        (8, "`source_datastores` must be a list"),
    ]
    assert len(found) == len(expected), found
    for line, words in expected:
        assert any(at == line and words in text for at, text in found), (line, words, found)
    assert all(str(problem) in str(raised.value) for problem in raised.value.problems)
    assert all(str(problem).startswith(f"{path}:") for problem in raised.value.problems)
