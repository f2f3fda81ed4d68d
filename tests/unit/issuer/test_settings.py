"""The issuer's settings: the environment's and the `issuer:` section of its integrations.yaml;
defaults, and bad values stop the start naming the variable, or the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.issuer.configfile import ConfigError
from bot.issuer.limits import AUTH_FAILURE_WINDOW_S, AuthFailureLimits
from bot.issuer.settings import IssuerSettings
from bot.settings import SettingsError

BASE = {"EVALBOT_ISSUER_URL": "https://tokens.example.org", "REDIS_URL": "redis://localhost/0"}


def test_defaults_cache_whoami_for_a_minute_and_allow_ten_failures_per_ten_minutes() -> None:
    settings = IssuerSettings.from_env(BASE)
    assert settings.whoami_cache_s == 60.0
    assert settings.auth_failures == 10
    assert AuthFailureLimits(settings.auth_failures).window_s == AUTH_FAILURE_WINDOW_S == 600


def configured(tmp_path: Path, section: str) -> dict[str, str]:
    """An environment whose configuration folder holds an integrations.yaml with `section`."""
    (tmp_path / "integrations.yaml").write_text(f"providers: []\nintegrations: []\n{section}")
    return {**BASE, "EVALBOT_CONFIG_DIR": str(tmp_path)}


def test_the_issuer_section_is_read_and_zero_turns_the_cache_off(tmp_path: Path) -> None:
    section = (
        "issuer:\n  audience: ci-audience\n  token_audience: evalbot\n  keyring: /srv/keys\n"
        "  audit_log: /srv/audit.jsonl\n  whoami_cache_s: 0\n  auth_failures: 3\n"
    )
    settings = IssuerSettings.from_env(configured(tmp_path, section))
    assert (settings.audience, settings.token_audience) == ("ci-audience", "evalbot")
    assert (settings.keyring_dir, settings.audit_log) == (
        Path("/srv/keys"),
        Path("/srv/audit.jsonl"),
    )
    assert settings.whoami_cache_s == 0.0
    assert settings.auth_failures == 3
    assert settings.integrations_file == tmp_path / "integrations.yaml"


def test_without_a_section_the_defaults_hold(tmp_path: Path) -> None:
    settings = IssuerSettings.from_env(configured(tmp_path, ""))
    assert settings.audience == BASE["EVALBOT_ISSUER_URL"]
    assert settings.token_audience is None
    assert (settings.keyring_dir, settings.audit_log) == (Path("keys"), Path("audit/issuer.jsonl"))


@pytest.mark.parametrize(
    ("section", "line", "field"),
    [
        ("issuer:\n  whoami_cache_s: -1\n", 4, "issuer.whoami_cache_s"),
        ("issuer:\n  auth_failures: 0\n", 4, "issuer.auth_failures"),
        ("issuer:\n  keyrings: keys\n", 4, "unknown keys ['keyrings']"),
        ("issuer: keys\n", None, "issuer: expected a mapping"),
    ],
)
def test_bad_values_name_the_file_line_and_field(
    tmp_path: Path, section: str, line: int | None, field: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        IssuerSettings.from_env(configured(tmp_path, section))
    where = f"{tmp_path / 'integrations.yaml'}: " + (f"line {line}: " if line else "")
    assert str(raised.value).startswith(where)
    assert field in str(raised.value)


@pytest.mark.parametrize(
    "url",
    [
        "http://tokens.example.org",
        "http://10.0.0.5:8100",
        "http://127.0.0.1.nip.io",
        # the scheme in capitals is plain http all the same (it was taken for something else)
        "HTTP://tokens.example.org",
        "Http://tokens.example.org/v1",
    ],
)
def test_the_issuer_url_is_https_except_on_loopback(url: str) -> None:
    """Callers send their identity to this URL, and the bot fetches the keys from it."""
    with pytest.raises(SettingsError, match="EVALBOT_ISSUER_URL must be an https URL"):
        IssuerSettings.from_env({**BASE, "EVALBOT_ISSUER_URL": url})
    for local in ("http://127.0.0.1:8100", "http://[::1]:8100", "http://localhost:8100"):
        assert IssuerSettings.from_env({**BASE, "EVALBOT_ISSUER_URL": local}).issuer_url == local


def test_a_refused_issuer_url_is_shown_without_its_credentials() -> None:
    url = "http://operator:s3cret-token@tokens.example.org:8100/path?key=also-secret"
    with pytest.raises(SettingsError) as refused:
        IssuerSettings.from_env({**BASE, "EVALBOT_ISSUER_URL": url})
    assert "http://tokens.example.org:8100" in str(refused.value)
    assert "s3cret" not in str(refused.value)
    assert "also-secret" not in str(refused.value)
