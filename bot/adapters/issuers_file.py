"""Trusted issuers read from a file: `config/issuers.yaml`, for the workers and the CLI.

The registry itself (`bot.tokens.issuers`) takes a parsed mapping; this module reads the file,
names it in every error, and wires in the HTTP fetcher for issuers with a `jwks_url`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from bot import packaged
from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.tokens.issuers import REFETCH_INTERVAL_S, IssuerConfigError, IssuerRegistry
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


#: Where `evalbot validate` looks for trusted issuers when `--issuers` is not given.
WORKING_DIRECTORY_ISSUERS = Path("config") / "issuers.yaml"


def _packaged_issuers() -> Path | None:
    candidate = packaged.config_file("issuers.yaml")
    return candidate if candidate.is_file() else None


def registry_for_cli(
    issuers_path: str | Path | None, *, fetcher: JwksFetcher | None = None
) -> IssuerRegistry:
    """The registry for one CLI run: `--issuers FILE`, else `config/issuers.yaml` in the working
    directory, else the packaged default; no file at all means no trusted issuers (not an
    error). Raises `IssuerConfigError` (a ValueError) for an invalid file, OSError if
    `--issuers` names a file that cannot be read.
    """
    if issuers_path is not None:
        return load_issuers(issuers_path, fetcher=fetcher)
    if WORKING_DIRECTORY_ISSUERS.is_file():
        return load_issuers(WORKING_DIRECTORY_ISSUERS, fetcher=fetcher)
    packaged = _packaged_issuers()
    if packaged is not None:
        return load_issuers(packaged, fetcher=fetcher)
    return IssuerRegistry([], fetcher=fetcher)
