"""Trusted issuers read from a file: the `issuers:` section of `config/bot.yaml` for the
workers, the web pages and the CLI, or an issuers file given to `evalbot validate --issuers`.

The registry itself (`bot.tokens.issuers`) takes a parsed mapping; this module reads the file,
names it (and the line) in every error, and wires in the HTTP fetcher for issuers with a
`jwks_url`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from bot import packaged_defaults
from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.configfiles import ConfigDocument, ConfigError, read_config, refuse_moved_files
from bot.tokens.issuers import (
    REFETCH_INTERVAL_S,
    IssuerConfigError,
    IssuerPolicy,
    IssuerRegistry,
    policies_from_mapping,
)
from bot.tokens.jwks import JwksFetcher
from bot.tokens.keycache import KeyCache


def load_issuers(
    path: str | Path,
    *,
    fetcher: JwksFetcher | None = None,
    cache: KeyCache | None = None,
    refetch_interval_s: float = REFETCH_INTERVAL_S,
    unavailable_keys_raise: bool = False,
) -> IssuerRegistry:
    """Load `issuers.yaml` (an operator's file, trusted; still parsed with safe_load).

    JWKS are fetched with `fetcher`, by default over HTTP (`HttpxJwksFetcher`).
    """
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise IssuerConfigError(f"{path}: not valid YAML: {error}") from error
    try:
        return IssuerRegistry.from_mapping(
            data,
            fetcher=fetcher if fetcher is not None else HttpxJwksFetcher(),
            cache=cache,
            refetch_interval_s=refetch_interval_s,
            unavailable_keys_raise=unavailable_keys_raise,
        )
    except IssuerConfigError as error:
        raise IssuerConfigError(f"{path}: {error}") from error


ISSUERS_FIX = 'see docs/verification.md, "For operators: registering an issuer"'


def bot_config_issuers(bot_config: Path) -> tuple[IssuerPolicy, ...]:
    """The `issuers:` section of `bot_config` (`config/bot.yaml`); none when the file does not
    exist. Raises `ConfigError` naming the file and the line of the first problem."""
    if not bot_config.exists():
        return ()
    return issuers_of(read_config(bot_config, fix=ISSUERS_FIX))


def issuers_of(document: ConfigDocument) -> tuple[IssuerPolicy, ...]:
    """The `issuers:` section of a read `config/bot.yaml`."""
    data = document.data if isinstance(document.data, dict) else {}
    try:
        return tuple(policies_from_mapping({"issuers": data.get("issuers")}))
    except IssuerConfigError as error:
        raise document.error_from(error, ISSUERS_FIX) from error


#: Where the CLI looks for the bot's configuration in the working directory.
WORKING_DIRECTORY_CONFIG = Path("config")


def working_bot_config() -> Path:
    """`config/bot.yaml` in the working directory, else the one shipped with evalbot, as the
    CLI reads it; raises `ConfigError` when the working directory's `config/` still holds a
    file whose content now goes into `bot.yaml` (`refuse_moved_files`)."""
    refuse_moved_files(WORKING_DIRECTORY_CONFIG)
    candidate = WORKING_DIRECTORY_CONFIG / "bot.yaml"
    return candidate if candidate.is_file() else packaged_defaults.config_file("bot.yaml")


def registry_for_cli(
    issuers_path: str | Path | None, *, fetcher: JwksFetcher | None = None
) -> IssuerRegistry:
    """The registry for one CLI run: `--issuers FILE`, else the `issuers:` of `config/bot.yaml`
    in the working directory, else of the packaged default (no trusted issuers). Raises
    `IssuerConfigError` (a ValueError) for an invalid file, OSError if `--issuers` names a
    file that cannot be read.
    """
    if issuers_path is not None:
        return load_issuers(issuers_path, fetcher=fetcher)
    try:
        policies = bot_config_issuers(working_bot_config())
    except ConfigError as error:
        raise IssuerConfigError(str(error)) from error
    return IssuerRegistry(policies, fetcher=fetcher)
