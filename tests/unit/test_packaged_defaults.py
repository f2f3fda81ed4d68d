"""What an installed evalbot reads with no checkout beside it: the data under `bot/data/`.

The system collections, the mapping table and the default configuration ship inside the `bot`
package (`bot.packaged_defaults`); `config/` at the top of the checkout is the operator's copy of
the configuration files and must say the same as the shipped defaults. Every command run from a
folder that holds none of these files reads the shipped ones and says which it read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import bot
from bot import packaged_defaults
from bot.cli import main
from bot.issuer.settings import IssuerSettings
from bot.settings import Settings
from tests.conftest import REPO_ROOT

PACKAGE = Path(bot.__file__).resolve().parent
BENCHMARKS = str(REPO_ROOT / "examples" / "benchmarks")
ISSUER_ENV = {"EVALBOT_ISSUER_URL": "https://issuer.example", "REDIS_URL": "redis://127.0.0.1/0"}
BOT_ENV = {
    "HF_TOKEN": "hf_x",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "EVALBOT_WEBHOOK_SECRET": "s" * 32,
    "EVALBOT_BOT_NAME": "evalbot",
}


@pytest.mark.parametrize("name", packaged_defaults.CONFIG_FILES)
def test_the_operators_copy_and_the_shipped_default_say_the_same(name: str) -> None:
    operator = REPO_ROOT / "config" / name
    shipped = packaged_defaults.config_file(name)
    assert operator.read_bytes() == shipped.read_bytes(), (
        f"config/{name} and {shipped.relative_to(REPO_ROOT)} differ: change both"
    )


def test_every_packaged_default_is_inside_the_package() -> None:
    """Not beside it: a wheel carries only what is under `bot/` (the top-level `config/` of
    a checkout is not installed)."""
    paths = [packaged_defaults.collections_dir(), packaged_defaults.mappings_file()]
    paths += [packaged_defaults.config_file(name) for name in packaged_defaults.CONFIG_FILES]
    for path in paths:
        assert path.exists(), path
        assert path.resolve().is_relative_to(PACKAGE), path
    assert (packaged_defaults.collections_dir() / "leaderboard-v2.yaml").is_file()


def test_config_files_have_no_other_names() -> None:
    with pytest.raises(ValueError, match="no packaged configuration file"):
        packaged_defaults.config_file("secrets.yaml")


def test_collections_list_from_an_empty_folder_names_the_system_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["collections", "list"]) == 0
    out, err = capsys.readouterr()
    assert "leaderboard-v2" in out
    assert f"system collections: {packaged_defaults.collections_dir()}" in err


def test_gate_names_the_collection_file_it_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".eval_results").mkdir()
    main(["gate", "--collection", "leaderboard-v2", ".", "--benchmarks", BENCHMARKS])
    err = capsys.readouterr().err
    assert f"collection `leaderboard-v2`: {packaged_defaults.collections_dir()}" in err


def test_an_unknown_collection_names_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["gate", "--collection", "nope", ".", "--benchmarks", BENCHMARKS]) == 2
    err = capsys.readouterr().err
    assert "no collection `nope` (known: frontier-reasoning-v1, leaderboard-v2" in err
    assert str(packaged_defaults.collections_dir()) in err


def test_check_mappings_from_an_empty_folder_checks_the_shipped_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["convert", "--check-mappings", "--benchmarks", BENCHMARKS]) == 0
    err = capsys.readouterr().err
    assert f"mapping table: {packaged_defaults.mappings_file()}" in err
    rows = re.search(
        rf"{re.escape(str(packaged_defaults.mappings_file()))}: (\d+) mapping rows: 0 ", err
    )
    assert rows is not None, err
    assert int(rows.group(1)) > 0


def test_check_mappings_refuses_an_empty_table_naming_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty table would pass the check while every conversion maps nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config" / "convert").mkdir(parents=True)
    (tmp_path / "config" / "convert" / "mappings.yaml").write_text("mappings: []\n")
    assert main(["convert", "--check-mappings", "--benchmarks", BENCHMARKS]) == 1
    err = capsys.readouterr().err
    assert "config/convert/mappings.yaml: no mapping row; nothing to check" in err


def test_a_mappings_file_in_the_working_directory_replaces_the_shipped_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config" / "convert").mkdir(parents=True)
    (tmp_path / "config" / "convert" / "mappings.yaml").write_text(
        "mappings:\n  - {framework: x, task: y, metric: z, benchmark: Idavidrein/gpqa,"
        " task_id: diamond, scale: percent}\n"
    )
    assert main(["convert", "--check-mappings", "--benchmarks", BENCHMARKS]) == 0
    err = capsys.readouterr().err
    assert "mapping table: config/convert/mappings.yaml\n" in err
    assert "1 mapping rows: 0 problems" in err


def test_the_bot_starts_from_the_shipped_configuration_when_the_folder_has_none(
    tmp_path: Path,
) -> None:
    settings = Settings.from_env(BOT_ENV | {"EVALBOT_CONFIG_DIR": str(tmp_path)})
    assert settings.bot_config_file == packaged_defaults.config_file("bot.yaml")
    (tmp_path / "bot.yaml").write_text("maintainers: []\n")
    settings = Settings.from_env(BOT_ENV | {"EVALBOT_CONFIG_DIR": str(tmp_path)})
    assert settings.bot_config_file == tmp_path / "bot.yaml"


def test_the_issuer_starts_from_the_shipped_integrations(tmp_path: Path) -> None:
    settings = IssuerSettings.from_env(ISSUER_ENV | {"EVALBOT_CONFIG_DIR": str(tmp_path)})
    assert settings.integrations_file == packaged_defaults.config_file("integrations.yaml")


def test_a_configuration_folder_named_in_the_environment_must_exist(tmp_path: Path) -> None:
    from bot.settings import SettingsError

    missing = tmp_path / "nowhere"
    with pytest.raises(SettingsError, match="EVALBOT_CONFIG_DIR names"):
        IssuerSettings.from_env(ISSUER_ENV | {"EVALBOT_CONFIG_DIR": str(missing)})


def test_collections_show_and_validate_name_what_they_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    main(["collections", "show", "leaderboard-v2", "--benchmarks", BENCHMARKS])
    shown = packaged_defaults.collections_dir() / "leaderboard-v2.yaml"
    assert f"collection `leaderboard-v2`: {shown}" in capsys.readouterr().err
    main(["collections", "validate", "--benchmarks", BENCHMARKS])
    assert f"system collections: {packaged_defaults.collections_dir()}" in capsys.readouterr().err
