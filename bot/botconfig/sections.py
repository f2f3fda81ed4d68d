"""`config/bot.yaml` as a typed, frozen `BotConfig`, each section parsed on its own, unknown keys
refused (docs/operating.md, "Start-up checks"). No I/O."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from bot.botconfig.document import ConfigDocument, ConfigError, ConfigProblem, parse_document
from bot.collections.model import Scope
from bot.eee.links import DEFAULT_DATASTORES
from bot.eee.submission import DatastorePolicy
from bot.tokens.issuers import IssuerConfigError, IssuerPolicy, policies_from_mapping
from bot.validation.eee import VERSIONS
from bot.validation.policy import DEFAULT_POLICY, Policy, PolicyError, policy_from_mapping

#: The advice every problem of the file ends with, unless its section has its own page.
FIX = "see the commented config/bot.yaml shipped with evalbot, or docs/operating.md"
RECONCILE_FIX = 'see docs/operating.md, "Reconciliation"'
COLLECTIONS_FIX = 'see docs/comment.md, "Collection standing"'
DATASTORES_FIX = 'see docs/eee.md, "Installing"'
SOURCES_FIX = 'see docs/comment.md, "Sources"'
OPERATORS_FIX = 'see docs/web.md, "Operators"'
ISSUERS_FIX = 'see docs/verification.md, "For operators: registering an issuer"'
POLICY_FIX = 'see docs/validate.md, "Benchmark policy"'
DOCS_URL_FIX = 'see docs/web.md, "Settings"'

KEYS = (
    "maintainers",
    "watched_repos",
    "reconcile",
    # the comment beyond one PR (docs/comment.md)
    "collections",
    "collections_dir",
    "cross_pr_checks",
    # Every Eval Ever datastores (docs/eee.md)
    "datastores",
    # datastores whose records a result's `source.url` may link, checked (docs/comment.md)
    "source_datastores",
    # who may sign in to the web pages' operator view (docs/web.md)
    "operators",
    # trusted token issuers and the benchmark policy
    "issuers",
    "policy",
    # where docs/*.md are published, for the web pages' links
    "docs_url",
)

#: Seconds between two reconciliation runs when the file says nothing (docs/operating.md,
#: "Reconciliation"): a missed webhook's PR is caught within five minutes, at a few Hub
#: calls per run.
DEFAULT_RECONCILE_INTERVAL_S = 300
DATASTORE_SETTINGS = ("versions", "warnings_block", "collection")
_HUB_ID = re.compile(r"[0-9a-f]{24}")


@dataclass(frozen=True, slots=True)
class ReconcileLimits:
    """Bounds on one reconciliation run, so a run stays short and within the Hub's rate limits
    (docs/hub-api.md#rate-limits: 1,000 API calls per 5 minutes for a free account; the defaults
    spend at most a tenth)."""

    max_repos: int = 50  # repos visited per run (the rest wait for the next runs, in turn)
    max_prs_per_repo: int = 100  # open PRs looked at per repo (lowest numbers first)
    max_queued: int = 50  # catch-up events queued per run
    max_hub_calls: int = 100  # Hub API calls per run
    max_backlog: int = 200  # skip the run while the queue holds more (the workers are behind)


@dataclass(frozen=True, slots=True)
class ReconcileConfig:
    """`watched_repos:` and `reconcile:`."""

    watched_repos: tuple[str, ...] = ()
    limits: ReconcileLimits = field(default_factory=ReconcileLimits)
    #: Seconds between runs (`reconcile.interval_s`), 0 for none; also the catch-up dedupe
    #: window.
    interval_s: int = DEFAULT_RECONCILE_INTERVAL_S


@dataclass(frozen=True, slots=True)
class CampaignConfig:
    """`collections:`, `collections_dir:` and `cross_pr_checks:`: which collections each
    repo's comment shows, and whether it compares with the claims of other PRs."""

    repos: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (repo glob, collection ids)
    #: The named collections' bytes, read at start (`bot.botconfig.files`).
    files: Mapping[str, tuple[Scope, bytes]] = field(default_factory=dict)
    cross_pr: bool = False
    #: `collections_dir` as written, and the folder it names (relative to the file's folder).
    folder_name: str | None = None
    folder: Path | None = None

    def collections_for(self, repo_id: str) -> list[str]:
        ids: list[str] = []
        for pattern, names in self.repos:
            if fnmatch.fnmatchcase(repo_id, pattern):
                ids.extend(name for name in names if name not in ids)
        return ids

    @property
    def enabled(self) -> bool:
        return bool(self.repos) or self.cross_pr


@dataclass(frozen=True, slots=True)
class Operators:
    """`operators:`: who may sign in to the operator view, by the account's immutable Hub id
    (a name alone would follow an account deleted and registered again by someone else),
    each id mapped to the name the file gives it."""

    users: Mapping[str, str] = field(default_factory=dict)
    orgs: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.users or self.orgs)

    def allows(self, via: str) -> bool:
        """Whether the user or org id a session was granted through is still listed."""
        return via in self.users or via in self.orgs


@dataclass(frozen=True, slots=True)
class BotConfig:
    """The whole of `config/bot.yaml`, checked; `BotConfig()` is a deployment without one."""

    #: Hub user names allowed to command the bot on any PR, besides each repo's owners.
    maintainers: frozenset[str] = frozenset()
    reconcile: ReconcileConfig = field(default_factory=ReconcileConfig)
    #: Collection standing and cross-PR checks in the comment (`workers.standing_and_clashes`).
    campaign: CampaignConfig = field(default_factory=CampaignConfig)
    #: Every Eval Ever datastores by lower-cased repo id (`workers.datastore_pr`).
    datastores: Mapping[str, DatastorePolicy] = field(default_factory=dict)
    #: Datastores whose records a result's `source.url` is checked against.
    source_datastores: tuple[str, ...] = DEFAULT_DATASTORES
    operators: Operators = field(default_factory=Operators)
    issuers: tuple[IssuerPolicy, ...] = ()
    policy: Policy = DEFAULT_POLICY
    #: Where docs/*.md are published, for the web pages' links (None: their paths are shown).
    docs_url: str | None = None


@dataclass(frozen=True, slots=True)
class Parsed:
    """What the bytes say: the configuration (a section with a problem at its default), every
    problem, and the document (None when the bytes are no YAML mapping)."""

    config: BotConfig
    problems: tuple[ConfigProblem, ...]
    document: ConfigDocument | None = None


def parse_bot_config(content: bytes, path: Path) -> Parsed:
    """Every section of the file at `path`, with every problem (one per section at most, and
    one per unknown key)."""
    try:
        document = parse_document(content, path, fix=FIX)
    except ConfigError as error:
        return Parsed(BotConfig(), error.problems)
    data = document.data if document.data is not None else {}
    if not isinstance(data, dict):
        problem = document.error(None, "the bot config must be a mapping of the keys " + _keys())
        return Parsed(BotConfig(), problem.problems)
    problems: list[ConfigProblem] = []
    for key in data:
        if key not in KEYS:
            unknown = document.error(key, f"unknown key `{key}`; the keys are {_keys()}")
            problems.extend(unknown.problems)
    sections = _Sections(document, data, problems)
    reconcile = ReconcileConfig(
        sections.read(_repos, "watched_repos", ()),
        sections.read(_limits, "reconcile", ReconcileLimits()),
        sections.read(_interval, "reconcile", DEFAULT_RECONCILE_INTERVAL_S),
    )
    config = BotConfig(
        maintainers=sections.read(_names, "maintainers", frozenset()),
        reconcile=reconcile,
        campaign=sections.whole(_campaign, CampaignConfig()),
        datastores=sections.read(_datastores, "datastores", {}),
        source_datastores=sections.whole(_source_datastores, DEFAULT_DATASTORES),
        operators=sections.read(_operators, "operators", Operators()),
        issuers=sections.whole(_issuers, ()),
        policy=sections.whole(_policy, DEFAULT_POLICY),
        docs_url=sections.read(_docs_url, "docs_url", None),
    )
    return Parsed(config, tuple(problems), document)


T = TypeVar("T")


class _Sections:
    """Reads each section on its own; a section's problem is kept and its default used."""

    def __init__(
        self, document: ConfigDocument, data: dict[str, Any], problems: list[ConfigProblem]
    ) -> None:
        self.document = document
        self.data = data
        self.problems = problems

    def read(self, reader: Callable[[ConfigDocument, Any], T], key: str, default: T) -> T:
        """`reader` of the value under `key` (None when absent)."""
        return self.whole(lambda document, data: reader(document, data.get(key)), default)

    def whole(self, reader: Callable[[ConfigDocument, dict[str, Any]], T], default: T) -> T:
        """`reader` of the whole mapping (a section spread over several keys, or one whose
        absence differs from null)."""
        try:
            return reader(self.document, self.data)
        except ConfigError as error:
            self.problems.extend(error.problems)
            return default


def _keys() -> str:
    return ", ".join(f"`{key}`" for key in KEYS)


def _is_repo_id(value: object) -> bool:
    return isinstance(value, str) and value.count("/") == 1 and all(value.split("/"))


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
    if not isinstance(raw, list) or not all(_is_repo_id(repo) for repo in raw):
        raise document.error(
            "watched_repos",
            "`watched_repos` must be a list of owner/name repo ids",
            "write one model repo per line as `  - owner/name`",
        )
    return tuple(raw)


def _limits(document: ConfigDocument, raw: object) -> ReconcileLimits:
    if raw is None:
        return ReconcileLimits()
    names = ["interval_s", *(f.name for f in fields(ReconcileLimits))]
    if not isinstance(raw, dict):
        raise document.error("reconcile", "`reconcile` must be a mapping of " + ", ".join(names))
    limits = {name: value for name, value in raw.items() if name != "interval_s"}
    for name, value in limits.items():
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
    return ReconcileLimits(**limits)


def _interval(document: ConfigDocument, raw: object) -> int:
    if not isinstance(raw, dict) or "interval_s" not in raw:
        return DEFAULT_RECONCILE_INTERVAL_S  # a `reconcile` that is no mapping: `_limits`
    value = raw["interval_s"]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise document.error(
            "reconcile.interval_s",
            "`reconcile.interval_s` must be a whole number of seconds, 0 or more "
            "(0: no reconciliation)",
            RECONCILE_FIX,
        )
    return value


def _campaign(document: ConfigDocument, data: dict[str, Any]) -> CampaignConfig:
    """The collections' names and folder; `bot.botconfig.files` checks they exist."""
    cross_pr = data.get("cross_pr_checks", False)
    if not isinstance(cross_pr, bool):
        raise document.error(
            "cross_pr_checks", "`cross_pr_checks` must be true or false", COLLECTIONS_FIX
        )
    raw = data.get("collections", {})
    if not isinstance(raw, dict) or not all(
        isinstance(key, str) and isinstance(value, list) and all(isinstance(v, str) for v in value)
        for key, value in raw.items()
    ):
        raise document.error(
            "collections",
            "`collections` must map repo ids (or globs) to lists of collection ids",
            COLLECTIONS_FIX,
        )
    name = data.get("collections_dir")
    if name is not None and not isinstance(name, str):
        raise document.error(
            "collections_dir", "`collections_dir` must be a folder path", COLLECTIONS_FIX
        )
    return CampaignConfig(
        repos=tuple((key, tuple(value)) for key, value in raw.items()),
        cross_pr=cross_pr,
        folder_name=name,
        folder=document.path.parent / name if name is not None else None,
    )


def _datastores(document: ConfigDocument, raw: object) -> dict[str, DatastorePolicy]:
    """Lower-cased repo id -> its policy; repo ids compare case-insensitively, as on the Hub."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise document.error(
            "datastores", "`datastores` must map dataset repo ids to their settings", DATASTORES_FIX
        )
    found: dict[str, DatastorePolicy] = {}
    for repo_id, settings in raw.items():
        where = f"datastores.{repo_id}"
        if not _is_repo_id(repo_id):
            raise document.error(
                where, f"{repo_id!r} is not a dataset repo id (owner/name)", DATASTORES_FIX
            )
        found[repo_id.lower()] = _datastore(document, where, settings)
    return found


def _datastore(document: ConfigDocument, where: str, raw: object) -> DatastorePolicy:
    if raw is None:
        return DatastorePolicy()
    if not isinstance(raw, Mapping):
        raise document.error(where, f"the settings of `{where}` must be a mapping", DATASTORES_FIX)
    for name in raw:
        if name not in DATASTORE_SETTINGS:
            raise document.error(
                f"{where}.{name}",
                f"unknown datastore setting {name!r}; the settings are "
                f"{', '.join(DATASTORE_SETTINGS)}",
                DATASTORES_FIX,
            )
    versions = raw.get("versions", list(VERSIONS))
    if (
        not isinstance(versions, list)
        or not versions
        or not all(isinstance(v, str) and v in VERSIONS for v in versions)
    ):
        raise document.error(
            f"{where}.versions",
            f"`versions` must be a non-empty list of schema versions evalbot ships"
            f" ({', '.join(VERSIONS)})",
            'quote each version, e.g. `versions: ["0.2.2", "0.3.0"]`',
        )
    blocking = raw.get("warnings_block", False)
    if not isinstance(blocking, bool):
        raise document.error(f"{where}.warnings_block", "`warnings_block` must be true or false")
    collection = raw.get("collection", "any")
    if collection == "any":
        return DatastorePolicy(tuple(versions), blocking, "any")
    if collection == "source":
        return DatastorePolicy(tuple(versions), blocking, "source")
    raise document.error(
        f"{where}.collection", "`collection` must be `any` or `source`", DATASTORES_FIX
    )


def _source_datastores(document: ConfigDocument, data: dict[str, Any]) -> tuple[str, ...]:
    """Absent: EEE's own datastore; `[]`: no source is checked."""
    if "source_datastores" not in data:
        return DEFAULT_DATASTORES
    raw = data["source_datastores"]
    if not isinstance(raw, list) or not all(_is_repo_id(repo) for repo in raw):
        raise document.error(
            "source_datastores",
            "`source_datastores` must be a list of owner/name dataset repo ids",
            "write `source_datastores: [evaleval/EEE_datastore]`, or `[]` to check no source",
        )
    return tuple(raw)


def _operators(document: ConfigDocument, raw: object) -> Operators:
    if raw is None:
        return Operators()
    if not isinstance(raw, dict) or not set(raw) <= {"users", "orgs"}:
        raise document.error(
            "operators", "`operators` must be a mapping with `users` and `orgs`", OPERATORS_FIX
        )
    return Operators(_accounts(document, raw, "users"), _accounts(document, raw, "orgs"))


def _accounts(document: ConfigDocument, raw: dict[str, object], kind: str) -> dict[str, str]:
    entries = raw.get(kind) or []
    where = f"operators.{kind}"
    if not isinstance(entries, list):
        raise document.error(
            where, f"`{where}` must be a list of {{name, id}} entries", OPERATORS_FIX
        )
    found: dict[str, str] = {}
    for index, entry in enumerate(entries):
        at = f"{where}[{index}]"
        if not (isinstance(entry, dict) and set(entry) == {"name", "id"}):
            raise document.error(
                at, f"`{at}` must be `{{name: <hub name>, id: <24-hex id>}}`", OPERATORS_FIX
            )
        name, hub_id = entry["name"], entry["id"]
        if not isinstance(hub_id, str) or not _HUB_ID.fullmatch(hub_id):
            raise document.error(
                f"{at}.id",
                f"`{at}.id` must be the account's 24-hex Hub id, got {hub_id!r}",
                f"read it from the Hub: GET /api/{'users' if kind == 'users' else 'organizations'}"
                f"/{name}/overview, field `_id`",
            )
        if not isinstance(name, str) or not name.strip():
            raise document.error(
                f"{at}.name", f"`{at}.name` must be the account's Hub name", OPERATORS_FIX
            )
        found[hub_id] = name.strip()
    return found


def _issuers(document: ConfigDocument, data: dict[str, Any]) -> tuple[IssuerPolicy, ...]:
    try:
        return tuple(policies_from_mapping({"issuers": data.get("issuers")}))
    except IssuerConfigError as error:
        raise document.error_from(error, ISSUERS_FIX) from error


def _policy(document: ConfigDocument, data: dict[str, Any]) -> Policy:
    try:
        return policy_from_mapping(data.get("policy"), section="policy.")
    except PolicyError as error:
        raise document.error_from(error, POLICY_FIX) from error


def _docs_url(document: ConfigDocument, raw: object) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or urlsplit(raw.strip()).scheme not in ("http", "https"):
        raise document.error("docs_url", "`docs_url` must be an http or https URL", DOCS_URL_FIX)
    return raw.strip()
