"""Reading `config/bot.yaml` once at a process's start, and what only the disk can tell
(docs/operating.md, "Start-up checks")."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bot import packaged_defaults
from bot.botconfig.document import (
    MAX_CONFIG_BYTES,
    ConfigDocument,
    ConfigError,
    ConfigProblem,
    parse_document,
)
from bot.botconfig.sections import COLLECTIONS_FIX, FIX, BotConfig, CampaignConfig, parse_bot_config

#: Files whose content now goes into a section of `bot.yaml`, by name: the section.
MOVED_INTO_BOT_CONFIG = {"policy.yaml": "policy", "issuers.yaml": "issuers"}
#: Where the CLI looks for the bot's configuration in the working directory.
WORKING_DIRECTORY_CONFIG = Path("config")


def read_bytes(path: Path, *, fix: str) -> bytes:
    """The file's bytes; `ConfigError` for a file that does not exist, cannot be read or is
    too large (`fix`: how to repair it)."""
    try:
        with path.open("rb") as handle:
            content = handle.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError.at(path, None, "the file does not exist", fix) from None
    except OSError as error:
        raise ConfigError.at(path, None, f"cannot read the file: {error.strerror}", fix) from error
    if len(content) > MAX_CONFIG_BYTES:
        raise ConfigError.at(path, None, f"larger than {MAX_CONFIG_BYTES} bytes", fix)
    return content


def read_config(path: Path, *, fix: str) -> ConfigDocument:
    """Read and parse the configuration file at `path`; raises `ConfigError`."""
    return parse_document(read_bytes(path, fix=fix), path, fix=fix)


def load_bot_config(path: Path) -> BotConfig:
    """Read and check the bot config at `path`; a file that does not exist is an empty
    configuration (the settings refuse a configured path that does not exist). Raises
    `ConfigError` naming every problem."""
    if not path.exists():
        return BotConfig()
    parsed = parse_bot_config(read_bytes(path, fix=FIX), path)
    problems = list(parsed.problems)
    campaign = parsed.config.campaign
    if parsed.document is not None:
        try:
            campaign = _with_collections(parsed.document, campaign)
        except ConfigError as error:
            problems.extend(error.problems)
    if problems:
        raise ConfigError(*problems)
    return dataclasses.replace(parsed.config, campaign=campaign)


def _with_collections(document: ConfigDocument, campaign: CampaignConfig) -> CampaignConfig:
    """The collections `collections:` names, read now: each must exist, a system one or one
    in `collections_dir` (which must be a folder)."""
    # here: bot.adapters.collections_store imports bot.settings, which imports this module
    from bot.adapters.collections_store import (  # noqa: PLC0415
        SYSTEM_DIR,
        StoreError,
        all_collections_in,
    )

    if campaign.folder is not None and not campaign.folder.is_dir():
        raise document.error(
            "collections_dir",
            f"`collections_dir` {campaign.folder_name}: not a folder",
            COLLECTIONS_FIX,
        )
    try:
        stored = {item.id: item for item in all_collections_in(SYSTEM_DIR, campaign.folder)}
        files = {}
        for _, names in campaign.repos:
            for name in names:
                if name not in stored:
                    known = ", ".join(sorted(stored)) or "none"
                    raise document.error(
                        "collections",
                        f"`collections` names `{name}`, which is no collection (known: {known})",
                        COLLECTIONS_FIX,
                    )
                files[name] = (stored[name].scope, stored[name].read())
    except StoreError as error:
        raise document.error("collections_dir", str(error), COLLECTIONS_FIX) from error
    return dataclasses.replace(campaign, files=files)


def moved_files(config_dir: Path) -> list[ConfigProblem]:
    """A file of `config_dir` whose content now goes into `bot.yaml`: no longer read, it would
    be ignored in silence, and an ignored policy or issuer list changes verdicts."""
    found: list[ConfigProblem] = []
    for name, section in MOVED_INTO_BOT_CONFIG.items():
        path = config_dir / name
        if path.exists():
            found.extend(
                ConfigError.at(
                    path,
                    None,
                    f"{name} is no longer read: its content now goes under `{section}:` in "
                    f"bot.yaml beside it",
                    f"move its content, indented, under `{section}:` in "
                    f"{config_dir / 'bot.yaml'}, then delete the file "
                    '(docs/operating.md, "Configuration files")',
                ).problems
            )
    return found


def working_bot_config() -> BotConfig:
    """The CLI's: `config/bot.yaml` in the working directory, else the one shipped with
    evalbot; a file of that `config/` whose content now goes into `bot.yaml` is a problem
    too. Raises `ConfigError` naming every problem."""
    problems = moved_files(WORKING_DIRECTORY_CONFIG)
    candidate = WORKING_DIRECTORY_CONFIG / "bot.yaml"
    path = candidate if candidate.is_file() else packaged_defaults.config_file("bot.yaml")
    try:
        config = load_bot_config(path)
    except ConfigError as error:
        problems.extend(error.problems)
    if problems:
        raise ConfigError(*problems)
    return config
