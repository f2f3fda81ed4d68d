"""`collections:`, `collections_dir:` and `cross_pr_checks:` of config/bot.yaml, read at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config
from bot.botconfig.sections import CampaignConfig
from bot.collections.model import Scope


def test_no_file_or_no_keys_means_off(tmp_path: Path) -> None:
    assert not load_bot_config(tmp_path / "bot.yaml").campaign.enabled
    (tmp_path / "bot.yaml").write_text("maintainers: [alice]\n")
    assert load_bot_config(tmp_path / "bot.yaml").campaign == CampaignConfig()


def test_repos_name_system_and_user_collections_by_glob(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "my-gate.yaml").write_text("name: mine\n")
    (tmp_path / "bot.yaml").write_text(
        "collections_dir: mine\n"
        "cross_pr_checks: true\n"
        "collections:\n"
        "  alice/model: [leaderboard-v2]\n"
        "  'alice/*': [my-gate, leaderboard-v2]\n"
    )
    config = load_bot_config(tmp_path / "bot.yaml").campaign
    assert config.cross_pr
    assert config.collections_for("alice/model") == ["leaderboard-v2", "my-gate"]
    assert config.collections_for("bob/model") == []
    assert config.files["my-gate"] == (Scope.USER, b"name: mine\n")
    assert config.files["leaderboard-v2"][0] is Scope.SYSTEM


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("collections: {alice/model: [nope]}\n", "names `nope`, which is no collection"),
        ("collections: [leaderboard-v2]\n", "must map repo ids"),
        ("cross_pr_checks: yes please\n", "must be true or false"),
        ("collections_dir: missing\n", "not a folder"),
    ],
)
def test_broken_settings_fail_at_start_naming_the_file(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "bot.yaml").write_text(text)
    with pytest.raises(ConfigError, match=message) as raised:
        load_bot_config(tmp_path / "bot.yaml")
    assert str(tmp_path / "bot.yaml") in str(raised.value)
