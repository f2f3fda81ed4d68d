"""`config/bot.yaml`: the maintainers' allow-list and what reconciliation watches.

Every key is documented in the shipped, commented `config/bot.yaml` and in
docs/operating.md. Unknown keys are refused (a misspelt `maintainer:` must not silently leave
the allow-list empty), and every problem names the file, the line, the field and the fix
(`bot.configfiles.ConfigError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from bot.adapters.source_datastores import source_datastores_of
from bot.configfiles import ConfigDocument, ConfigError, read_config
from bot.eee.links import DEFAULT_DATASTORES
from bot.eee.submission import DatastorePolicy
from workers.datastores import load_datastores
from workers.reconcile_plan import ReconcileLimits
from workers.standing_and_clashes import CampaignConfig, CampaignConfigError, load_campaign_config

#: The advice every problem of this file ends with.
FIX = "see the commented config/bot.yaml shipped with evalbot, or docs/operating.md"
KEYS = (
    "maintainers",
    "watched_repos",
    "reconcile",
    # the comment beyond one PR (docs/comment.md), read by `workers.standing_and_clashes`
    "collections",
    "collections_dir",
    "cross_pr_checks",
    # Every Eval Ever datastores (docs/eee.md), read by `workers.datastores`
    "datastores",
    # datastores whose records a result's `source.url` may link, checked (docs/comment.md)
    "source_datastores",
    # who may sign in to the web pages' operator view, read by `evalbot web` (bot.web.operators)
    "operators",
    # trusted token issuers and the benchmark policy (`bot.adapters.issuers_file`,
    # `bot.adapters.policy_file`), read by the workers, the web pages and the CLI
    "issuers",
    "policy",
    # where docs/*.md are published, for the web pages' links (`bot.web.wiring`)
    "docs_url",
)


@dataclass(frozen=True, slots=True)
class ReconcileConfig:
    """`watched_repos:` and `reconcile:` of `config/bot.yaml` (docs/operating.md)."""

    watched_repos: tuple[str, ...] = ()
    limits: ReconcileLimits = field(default_factory=ReconcileLimits)
    #: Seconds between runs (`reconcile.interval_s`); also the catch-up dedupe window.
    interval_s: int = 300


@dataclass(frozen=True, slots=True)
class BotConfig:
    """The whole of `config/bot.yaml`, checked."""

    #: Hub user names allowed to command the bot on any PR, besides each repo's owners.
    maintainers: frozenset[str] = frozenset()
    reconcile: ReconcileConfig = field(default_factory=ReconcileConfig)
    #: Collection standing and cross-PR checks in the comment (`workers.standing_and_clashes`).
    campaign: CampaignConfig = field(default_factory=CampaignConfig)
    #: Every Eval Ever datastores by lower-cased repo id (`workers.datastores`).
    datastores: Mapping[str, DatastorePolicy] = field(default_factory=dict)
    #: Datastores whose records a result's `source.url` is checked against.
    source_datastores: tuple[str, ...] = DEFAULT_DATASTORES


def load_bot_config(path: Path, interval_s: int) -> BotConfig:
    """Read and check `path`; a file that does not exist is an empty configuration (the
    settings refuse a configured path that does not exist, `bot.settings`). Raises
    `ConfigError` on the first problem."""
    if not path.exists():
        return BotConfig(reconcile=ReconcileConfig(interval_s=interval_s))
    document = read_config(path, fix=FIX)
    data = document.data if document.data is not None else {}
    if not isinstance(data, dict):
        raise document.error(None, "the bot config must be a mapping of the keys " + _keys())
    for key in data:
        if key not in KEYS:
            raise document.error(key, f"unknown key `{key}`; the keys are {_keys()}")
    maintainers = _names(document, data.get("maintainers"))
    repos = _repos(document, data.get("watched_repos"))
    limits = _limits(document, data.get("reconcile"))
    try:
        campaign = load_campaign_config(path)
    except CampaignConfigError as error:
        raise document.error_from(error, 'see docs/comment.md, "Collection standing"') from error
    datastores = load_datastores(document, data.get("datastores"))
    sources = source_datastores_of(document)
    return BotConfig(
        maintainers, ReconcileConfig(repos, limits, interval_s), campaign, datastores, sources
    )


def _keys() -> str:
    return ", ".join(f"`{key}`" for key in KEYS)


def _names(document: ConfigDocument, raw: object) -> frozenset[str]:
    if raw is None:
        return frozenset()
    if not isinstance(raw, list) or not all(isinstance(n, str) and n.strip() for n in raw):
        raise document.error(
            "maintainers",
            "`maintainers` must be a list of Hub user names",
            "write one name per line as `  - alice`, or `maintainers: [alice, bob]`",
        )
    return frozenset(name.strip() for name in raw)


def _repos(document: ConfigDocument, raw: object) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(
        isinstance(repo, str) and repo.count("/") == 1 and all(repo.split("/")) for repo in raw
    ):
        raise document.error(
            "watched_repos",
            "`watched_repos` must be a list of owner/name repo ids",
            "write one model repo per line as `  - owner/name`",
        )
    return tuple(raw)


def _limits(document: ConfigDocument, raw: object) -> ReconcileLimits:
    if raw is None:
        return ReconcileLimits()
    # `interval_s` (0 allowed) is read with the settings (`bot.configfiles.reconcile_interval_s`).
    names = ["interval_s", *(f.name for f in fields(ReconcileLimits))]
    if not isinstance(raw, dict):
        raise document.error("reconcile", "`reconcile` must be a mapping of " + ", ".join(names))
    raw = {name: value for name, value in raw.items() if name != "interval_s"}
    for name, value in raw.items():
        if name not in names:
            raise document.error(
                f"reconcile.{name}",
                f"unknown `reconcile` setting {name!r}",
                "the settings are " + ", ".join(names),
            )
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise document.error(
                f"reconcile.{name}", f"`reconcile.{name}` must be a positive integer"
            )
    return ReconcileLimits(**raw)


__all__ = ["FIX", "BotConfig", "ConfigError", "ReconcileConfig", "load_bot_config"]
