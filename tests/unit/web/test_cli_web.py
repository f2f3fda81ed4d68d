"""`evalbot web` stops at start with the file and the problem (exit 2), before serving."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bot.cli import main
from bot.settings import SettingsError
from bot.web.app import create_web_app
from bot.web.config import WebConfig
from bot.web.wiring import build_context

BASE = {
    "HF_TOKEN": "hf_x",
    "EVALBOT_WEBHOOK_SECRET": "secret",
    "EVALBOT_BOT_NAME": "evalbot",
    "REDIS_URL": "redis://127.0.0.1:1/0",
}


@pytest.fixture
def environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name, value in BASE.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("EVALBOT_CONFIG_DIR", str(tmp_path))
    return monkeypatch


def test_an_admin_token_under_32_bytes_stops_the_start(
    environ: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    environ.setenv("EVALBOT_WEB_ADMIN_TOKEN", "x" * 31)
    assert main(["web"]) == 2
    assert "EVALBOT_WEB_ADMIN_TOKEN must be at least 32 bytes" in capsys.readouterr().err


def test_the_webhook_secret_as_admin_token_stops_the_start(
    environ: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "a-webhook-secret-long-enough-for-a-token-0123"
    environ.setenv("EVALBOT_WEBHOOK_SECRET", secret)
    environ.setenv("EVALBOT_WEB_ADMIN_TOKEN", secret)
    assert main(["web"]) == 2
    assert "must not be the webhook secret" in capsys.readouterr().err


def test_oauth_without_operators_stops_the_start(
    environ: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bot.yaml").write_text("maintainers: []\n")
    environ.setenv("OAUTH_CLIENT_ID", "client")
    environ.setenv("OAUTH_CLIENT_SECRET", "client-secret")
    environ.setenv("OPENID_PROVIDER_URL", "https://huggingface.co")
    environ.setenv("SPACE_HOST", "someone-evalbot.hf.space")
    assert main(["web"]) == 2
    error = capsys.readouterr().err
    assert str(tmp_path / "bot.yaml") in error
    assert "operators" in error


def test_an_admin_token_beside_oauth_stops_the_start(
    environ: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the token is the fallback where no OAuth app is set up; beside one it would let in
    # whoever holds it without any allow-listed Hub identity
    (tmp_path / "bot.yaml").write_text(
        "operators:\n  users:\n    - {name: alice, id: 6560b0f7e0d5d2c4a1b2c3d4}\n"
    )
    environ.setenv("OAUTH_CLIENT_ID", "client")
    environ.setenv("OAUTH_CLIENT_SECRET", "client-secret")
    environ.setenv("OPENID_PROVIDER_URL", "https://huggingface.co")
    environ.setenv("SPACE_HOST", "someone-evalbot.hf.space")
    environ.setenv("EVALBOT_WEB_ADMIN_TOKEN", "t" * 64)
    with pytest.raises(SettingsError) as refused:  # read before anything is served
        WebConfig.from_env(os.environ)
    assert "EVALBOT_WEB_ADMIN_TOKEN" in str(refused.value)
    assert "OAUTH_CLIENT_ID" in str(refused.value)


def test_an_operator_pinned_by_name_only_names_the_line(
    environ: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bot.yaml").write_text(
        "maintainers: []\noperators:\n  users:\n    - {name: alice, id: alice}\n"
    )
    assert main(["web"]) == 2
    error = capsys.readouterr().err
    assert f"{tmp_path / 'bot.yaml'}:4" in error
    assert "24-hex Hub id" in error


def test_an_insecure_provider_url_stops_the_start(
    environ: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    environ.setenv("OAUTH_CLIENT_ID", "client")
    environ.setenv("OAUTH_CLIENT_SECRET", "client-secret")
    environ.setenv("OPENID_PROVIDER_URL", "http://hub.example")
    environ.setenv("SPACE_HOST", "someone-evalbot.hf.space")
    assert main(["web"]) == 2
    assert "OPENID_PROVIDER_URL must be an https URL" in capsys.readouterr().err


def test_a_missing_collections_dir_names_the_bot_config(
    environ: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bot.yaml").write_text("collections_dir: nowhere\n")
    assert main(["web"]) == 2
    error = capsys.readouterr().err
    assert str(tmp_path / "bot.yaml") in error
    assert "collections_dir" in error


def test_the_operator_token_cookie_is_secure_on_a_space(
    environ: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Behind a Space's proxy the request reads http; the Space's address is https all the
    # same, so the cookie of a token sign-in (no OAuth app) must not travel over plain http.
    token = "t" * 64
    environ.setenv("EVALBOT_WEB_ADMIN_TOKEN", token)
    environ.setenv("SPACE_HOST", "someone-evalbot.hf.space")
    app = create_web_app(build_context(WebConfig.from_env(os.environ)))
    signed_in = TestClient(app).post("/status/login", data={"token": token}, follow_redirects=False)
    assert signed_in.status_code == 303
    assert "secure" in signed_in.headers["set-cookie"].lower()


def test_a_misspelt_key_stops_the_pages_as_it_stops_the_workers(
    environ: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`operator:` for `operators:` would leave the operator view open to no one, in silence."""
    (tmp_path / "bot.yaml").write_text(
        "operator:\n  users:\n    - {name: alice, id: 6560b0f7e0d5d2c4a1b2c3d4}\n"
    )
    with pytest.raises(SettingsError) as refused:
        build_context(WebConfig.from_env(os.environ))
    assert str(refused.value).startswith(f"{tmp_path / 'bot.yaml'}:1: unknown key `operator`")
