"""Trusted issuers for a CLI run: `evalbot validate --issuers FILE`, else the `issuers:` section
of `config/bot.yaml`, with the HTTP fetcher for a `jwks_url`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

from bot.adapters.jwks_http import HttpxJwksFetcher
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
        return IssuerRegistry(
            policies_from_mapping(data),
            fetcher=fetcher if fetcher is not None else HttpxJwksFetcher(),
            cache=cache,
            refetch_interval_s=refetch_interval_s,
            unavailable_keys_raise=unavailable_keys_raise,
        )
    except IssuerConfigError as error:
        raise IssuerConfigError(f"{path}: {error}") from error


def registry_for_cli(
    issuers_path: str | Path | None,
    configured: Sequence[IssuerPolicy],
    *,
    fetcher: JwksFetcher | None = None,
) -> IssuerRegistry:
    """The registry for one CLI run: `--issuers FILE`, else the issuers `configured` in the
    bot config the command read (`bot.botconfig.files.working_bot_config`). Raises
    `IssuerConfigError` (a ValueError) for an invalid file, OSError if `--issuers` names a
    file that cannot be read.
    """
    if issuers_path is not None:
        return load_issuers(issuers_path, fetcher=fetcher)
    return IssuerRegistry(configured, fetcher=fetcher)
