"""`config/integrations.yaml`: the issuer's `issuer:` options, CI providers and integrations, and
which identity matches which (exact equality of every claim; docs/issuer.md, "Integrations")."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from bot.issuer.configfile import ConfigError, line_of, load_config
from bot.issuer.identity import Identity
from bot.tokens.jwks import is_https_or_loopback

#: Algorithms an OIDC provider may be pinned to; never `none` nor HMAC (a shared secret).
ASYMMETRIC_ALGORITHMS = frozenset({"RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"})
#: What GitHub Actions and GitLab CI sign their ID tokens with.
DEFAULT_ALGORITHMS = ("RS256",)
#: The kinds of CI provider the issuer knows the claims of; `other` pins no id claim.
PROVIDER_TYPES = ("github", "gitlab", "other")
#: The public issuers whose type needs no saying (self-hosted ones state `type:`).
KNOWN_ISSUERS = {
    "https://token.actions.githubusercontent.com": "github",
    "https://gitlab.com": "gitlab",
}
#: Where GitHub's per-enterprise issuers live (`.../<enterprise slug>`).
GITHUB_ENTERPRISE_ISSUERS = "https://token.actions.githubusercontent.com/"
#: The immutable id a rule of each provider type must pin: names can be deleted and
#: re-registered by someone else, ids are never reused (PyPI trusted publishing pins them too).
OWNER_ID_CLAIMS = {"github": "repository_owner_id", "gitlab": "namespace_id"}
#: Claims that are numeric ids (GitHub, GitLab send them as strings of digits).
ID_CLAIMS = frozenset({"repository_owner_id", "repository_id", "namespace_id", "project_id"})
#: GitHub events whose runs execute in the base repository's context (its secrets, its
#: `id-token`) on code or text that someone outside it controls: a fork's pull request
#: (`pull_request_target`), a run that follows another a fork's PR may have started and reads
#: its artifacts (`workflow_run`), or a comment, issue or discussion anyone can write. A run of
#: one of them is refused unless the rule it matches pins `event_name` to that event
#: (docs/issuer.md, "Events", with GitHub's sources). `pull_request`,
#: `pull_request_review[_comment]` from a fork run in the fork's context, with no `id-token`.
EVENTS_NAMED_ONLY = frozenset(
    {
        "pull_request_target",
        "workflow_run",
        "issue_comment",
        "issues",
        "discussion",
        "discussion_comment",
    }
)
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
#: Claims that name whose workload it is (GitHub Actions, GitLab CI). A matcher must pin one:
#: `environment: release` or `ref: refs/heads/main` alone is true of anyone's job.
BINDING_CLAIMS = frozenset(
    {
        "sub",
        "repository",
        "repository_id",
        "repository_owner",
        "repository_owner_id",
        "workflow_ref",
        "job_workflow_ref",
        "project_path",
        "project_id",
        "namespace_path",
        "namespace_id",
        "ci_config_ref_uri",
    }
)


@dataclass(frozen=True)
class Provider:
    """A CI provider trusted to vouch for workloads, by its exact `iss` URL."""

    name: str
    issuer: str
    algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS
    #: `github`, `gitlab` or `other`: which claims name the workload's owner by id.
    type: str = "other"


@dataclass(frozen=True)
class Limits:
    """Abuse controls for one integration, applied per identity (docs/issuer.md, "Limits")."""

    per_minute: int = 30
    per_hour: int = 300
    #: After this many refusals within `refusal_window_s`, the identity is cooled down.
    refusals_before_cooldown: int = 5
    refusal_window_s: int = 600
    cooldown_s: int = 900
    #: More distinct model repos than this within `spread_window_s` is an unusual spread.
    max_models: int = 20
    spread_window_s: int = 3600


@dataclass(frozen=True)
class Matcher:
    """One way to be this integration: provider claims, a Hub account, or an OAuth client."""

    provider: str | None = None
    claims: Mapping[str, str] = field(default_factory=dict)
    hub_user: str | None = None
    client_id: str | None = None
    client_secret_sha256: str | None = None

    def refused_event(self, identity: Identity) -> str | None:
        """The event of `identity`'s run when this rule may not vouch for it: one of
        `EVENTS_NAMED_ONLY`, which the rule does not name by pinning `event_name` to it."""
        event = identity.claims.get("event_name") if identity.kind == "oidc" else None
        if event in EVENTS_NAMED_ONLY and self.claims.get("event_name") != event:
            return str(event)
        return None

    def matches(self, identity: Identity) -> bool:
        if identity.kind == "oidc":
            return self.provider == identity.provider and all(
                identity.claims.get(name) == value for name, value in self.claims.items()
            )
        if identity.kind == "hub":
            return self.hub_user is not None and self.hub_user == identity.name
        return self.client_id is not None and self.client_id == identity.name


@dataclass(frozen=True)
class Integration:
    name: str
    frameworks: tuple[str, ...]
    matchers: tuple[Matcher, ...]
    #: Policy gates: an empty tuple allows nothing, `("*",)` anything.
    benchmarks: tuple[str, ...]
    models: tuple[str, ...]
    #: Owners (users or orgs) whose model repos this integration may sign for; None: any.
    orgs: tuple[str, ...] | None = None
    token_lifetime_s: int = 900
    limits: Limits = field(default_factory=Limits)

    def refused_event(self, identity: Identity) -> str | None:
        """The event of `identity`'s run when every rule it matches refuses it, else None."""
        matching = [m for m in self.matchers if m.matches(identity)]
        refused = [m.refused_event(identity) for m in matching]
        return refused[0] if matching and all(refused) else None

    def allows_benchmark(self, repo_id: str) -> bool:
        return any(fnmatch.fnmatchcase(repo_id, pattern) for pattern in self.benchmarks)

    def allows_model(self, repo_id: str) -> bool:
        owner = repo_id.split("/", 1)[0]
        if self.orgs is not None and owner not in self.orgs:
            return False
        return any(fnmatch.fnmatchcase(repo_id, pattern) for pattern in self.models)


@dataclass(frozen=True)
class IntegrationsConfig:
    providers: tuple[Provider, ...]
    integrations: tuple[Integration, ...]

    def provider_for_issuer(self, issuer: str) -> Provider | None:
        return next((p for p in self.providers if p.issuer == issuer), None)

    def match(self, identity: Identity) -> Integration | None:
        """The one integration `identity` belongs to; None for none, or for more than one."""
        found = [i for i in self.integrations if any(m.matches(identity) for m in i.matchers)]
        return found[0] if len(found) == 1 else None

    def matcher_for_client(self, client_id: str) -> Matcher | None:
        for integration in self.integrations:
            for matcher in integration.matchers:
                if matcher.client_id == client_id:
                    return matcher
        return None


class _Fields:
    """Reads one mapping of the file, naming file, line and field in every complaint."""

    def __init__(self, path: Path, raw: Any, where: str, known: set[str]) -> None:
        self.path = path
        self.where = where
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: {where}: expected a mapping")
        self.raw = raw
        self.line = line_of(raw)
        unknown = sorted(set(raw) - known)
        if unknown:
            self.fail("", f"unknown keys {unknown} (known: {sorted(known)})")

    def fail(self, name: str, message: str) -> NoReturn:
        field_name = f"{self.where}.{name}" if name else self.where
        raise ConfigError(f"{self.path}: line {self.line}: {field_name}: {message}")

    def string(self, name: str, *, required: bool = True) -> str | None:
        value = self.raw.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            self.fail(name, "expected a non-empty string")
        return str(value)

    def strings(self, name: str, default: tuple[str, ...] | None) -> tuple[str, ...] | None:
        value = self.raw.get(name)
        if value is None:
            if default is None and name not in self.raw:
                return None
            if default is not None:
                return default
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.fail(name, "expected a list of non-empty strings")
        return tuple(value)

    def gate(self, name: str, what: str) -> tuple[str, ...]:
        """A policy gate: required (`["*"]` allows anything, said in so many words); an empty
        list allows nothing."""
        if name not in self.raw:
            self.fail(
                name,
                f"missing: list the {what} this integration may sign for, or write "
                f'`{name}: ["*"]` to allow any',
            )
        return self.strings(name, None) or ()

    def integer(self, name: str, default: int, minimum: int = 1) -> int:
        value = self.raw.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.fail(name, f"expected an integer >= {minimum}")
        return int(value)


def _provider(path: Path, raw: Any, position: int) -> Provider:
    fields = _Fields(path, raw, f"providers[{position}]", {"name", "issuer", "algorithms", "type"})
    issuer = str(fields.string("issuer"))
    # As a URL parser reads it: `http://127.0.0.1.evil.example` or `http://127.0.0.1@evil`
    # begin like loopback but are not.
    if not issuer.startswith(("https://", "http://")) or not is_https_or_loopback(issuer):
        fields.fail("issuer", "expected an https URL (http on loopback for tests)")
    algorithms = fields.strings("algorithms", DEFAULT_ALGORITHMS) or DEFAULT_ALGORITHMS
    bad = sorted(set(algorithms) - ASYMMETRIC_ALGORITHMS)
    if bad:
        fields.fail("algorithms", f"{bad} not allowed; use {sorted(ASYMMETRIC_ALGORITHMS)}")
    known = _known_type(issuer)
    kind = fields.string("type", required=known is None) or known
    if kind not in PROVIDER_TYPES:
        fields.fail("type", f"expected one of {list(PROVIDER_TYPES)}")
    if known is not None and kind != known:
        fields.fail("type", f"{issuer} is a {known} issuer, not {kind}")
    return Provider(
        name=str(fields.string("name")), issuer=issuer, algorithms=algorithms, type=str(kind)
    )


def _known_type(issuer: str) -> str | None:
    """The type of a public issuer: GitHub's own, GitLab.com's, and GitHub's per-enterprise
    ones (`https://token.actions.githubusercontent.com/<enterprise>`), whose tokens carry the
    same claims: calling one of those `other` would pin no id."""
    if issuer in KNOWN_ISSUERS:
        return KNOWN_ISSUERS[issuer]
    if issuer.startswith(GITHUB_ENTERPRISE_ISSUERS):
        return "github"
    return None


def _claims(fields: _Fields, provider: Provider) -> dict[str, str]:
    """The claims a rule pins, checked: ids are digits (YAML integers are read as such), and a
    GitHub or GitLab rule pins the owner's id."""
    claims = fields.raw.get("claims")
    if not isinstance(claims, dict) or not claims:
        fields.fail("claims", "expected a non-empty mapping of claim names to strings")
    pinned: dict[str, str] = {}
    for name, written in claims.items():
        is_number = isinstance(written, int) and not isinstance(written, bool)
        value = str(written) if name in ID_CLAIMS and is_number else written
        if not isinstance(name, str) or not isinstance(value, str) or not value:
            fields.fail("claims", "expected a non-empty mapping of claim names to strings")
        if name in ID_CLAIMS and not (value.isascii() and value.isdigit()):
            fields.fail(f"claims.{name}", f"expected a numeric id, not {value!r}")
        pinned[name] = value
    if not BINDING_CLAIMS & set(pinned):
        fields.fail(
            "claims",
            f"pins no claim naming the workload's owner, so any {provider.name} job could "
            f"match; add one of {sorted(BINDING_CLAIMS)} (e.g. `repository` and `workflow_ref`)",
        )
    owner_id = OWNER_ID_CLAIMS.get(provider.type)
    if owner_id is not None and owner_id not in pinned:
        fields.fail(
            "claims",
            f"pins no `{owner_id}`: a {provider.type} name can be deleted and registered again "
            f"by someone else, its id cannot; add `{owner_id}` (and "
            f"`{'repository_id' if provider.type == 'github' else 'project_id'}`), which "
            "`evalbot issuer identity` prints from one of the job's ID tokens",
        )
    return pinned


def _matcher(path: Path, raw: Any, where: str, providers: Sequence[Provider]) -> Matcher:
    known = {
        "provider",
        "claims",
        "allow_pull_request_target",  # replaced; named in its own error below
        "hub_user",
        "hub_scopes",
        "client_id",
        "client_secret_sha256",
    }
    fields = _Fields(path, raw, where, known)
    kinds = [name for name in ("provider", "hub_user", "client_id") if name in fields.raw]
    if len(kinds) != 1:
        fields.fail("", "expected exactly one of provider, hub_user, client_id")
    if "hub_scopes" in fields.raw:
        fields.fail(
            "hub_scopes",
            "no longer read: a Hub token only identifies its account (a read token is "
            "enough, and safer); remove this line",
        )
    if "allow_pull_request_target" in fields.raw:
        fields.fail(
            "allow_pull_request_target",
            "no longer read: a rule names each event it vouches for among "
            f"{sorted(EVENTS_NAMED_ONLY)} by pinning it, `event_name: pull_request_target` "
            'under `claims` (a rule per event; docs/issuer.md, "Events")',
        )
    if "provider" in fields.raw:
        name = str(fields.string("provider"))
        provider = next((p for p in providers if p.name == name), None)
        if provider is None:
            fields.fail("provider", f"{name!r} is not one of providers[].name")
        return Matcher(provider=name, claims=_claims(fields, provider))
    if "hub_user" in fields.raw:
        return Matcher(hub_user=fields.string("hub_user"))
    digest = str(fields.string("client_secret_sha256"))
    if not _SHA256_HEX.fullmatch(digest):
        fields.fail("client_secret_sha256", "expected 64 lowercase hex digits (sha256 of it)")
    return Matcher(client_id=fields.string("client_id"), client_secret_sha256=digest)


def _limits(path: Path, raw: Any, where: str) -> Limits:
    if raw is None:
        return Limits()
    defaults = Limits()
    names = set(Limits.__dataclass_fields__)
    fields = _Fields(path, raw, where, names)
    return Limits(**{name: fields.integer(name, getattr(defaults, name)) for name in names})


def _integration(path: Path, raw: Any, position: int, providers: Sequence[Provider]) -> Integration:
    where = f"integrations[{position}]"
    known = {
        "name",
        "frameworks",
        "identities",
        "benchmarks",
        "models",
        "orgs",
        "token_lifetime_s",
        "limits",
    }
    fields = _Fields(path, raw, where, known)
    identities = fields.raw.get("identities")
    if not isinstance(identities, list) or not identities:
        fields.fail("identities", "expected a non-empty list")
    matchers = tuple(
        _matcher(path, item, f"{where}.identities[{n}]", providers)
        for n, item in enumerate(identities)
    )
    frameworks = fields.strings("frameworks", None)
    if not frameworks:
        fields.fail("frameworks", "expected the framework.name values it may request")
    lifetime = fields.integer("token_lifetime_s", 900, minimum=60)
    if lifetime > 3600:
        fields.fail("token_lifetime_s", "at most 3600 (tokens are short-lived)")
    return Integration(
        name=str(fields.string("name")),
        frameworks=frameworks,
        matchers=matchers,
        benchmarks=fields.gate("benchmarks", "benchmark repos (globs over canonical ids)"),
        models=fields.gate("models", "model repos (globs)"),
        orgs=fields.strings("orgs", None),
        token_lifetime_s=lifetime,
        limits=_limits(path, fields.raw.get("limits"), f"{where}.limits"),
    )


def parse_integrations(path: Path, raw: Any) -> IntegrationsConfig:
    # `issuer:` is the issuer's own settings, read at start with the environment's
    # (`load_issuer_options`, `bot.issuer.settings`).
    top = _Fields(
        path, raw if raw is not None else {}, "(top level)", {"issuer", "providers", "integrations"}
    )
    raw_providers = top.raw.get("providers", [])
    raw_integrations = top.raw.get("integrations", [])
    if not isinstance(raw_providers, list):
        top.fail("providers", "expected a list")
    if not isinstance(raw_integrations, list):
        top.fail("integrations", "expected a list")
    providers = tuple(_provider(path, item, n) for n, item in enumerate(raw_providers))
    for kind in ("name", "issuer"):
        values = [getattr(p, kind) for p in providers]
        if len(set(values)) != len(values):
            top.fail("providers", f"two providers share a {kind}")
    integrations = tuple(
        _integration(path, item, n, providers) for n, item in enumerate(raw_integrations)
    )
    names = [i.name for i in integrations]
    if len(set(names)) != len(names):
        top.fail("integrations", "two integrations share a name")
    clients = [m.client_id for i in integrations for m in i.matchers if m.client_id]
    if len(set(clients)) != len(clients):
        top.fail("integrations", "a client_id is registered twice")
    return IntegrationsConfig(providers=providers, integrations=integrations)


@dataclass(frozen=True)
class IssuerOptions:
    """The `issuer:` section: what an operator sets for the issuer itself (docs/issuer.md,
    "Settings"); its URL and its Hub read token stay in the environment (the token is a
    secret, the URL is the one the CI jobs set too)."""

    #: The `aud` CI ID tokens must be minted for; None: the issuer's URL.
    audience: str | None = None
    #: The `aud` put into verify tokens, when the bot's `config/bot.yaml` sets one for us.
    token_audience: str | None = None
    #: The keyring directory and the append-only audit log (relative: to the working folder).
    keyring: Path = Path("keys")
    audit_log: Path = Path("audit/issuer.jsonl")
    #: Seconds a `whoami-v2` answer (or a refusal) is reused for one Hub token; 0: never. It is
    #: also how long a revoked Hub token keeps working, hence an operator's choice.
    whoami_cache_s: int = 60
    #: Failed authentications per client address (and per presented client id) within
    #: `limits.AUTH_FAILURE_WINDOW_S` before that address or client id gets 429 until the
    #: window ends. Raised where many honest callers share one address (a CI provider's NAT).
    auth_failures: int = 10


def parse_issuer_options(path: Path, raw: Any) -> IssuerOptions:
    """The `issuer:` section of the file at `path` (None: every default)."""
    if raw is None:
        return IssuerOptions()
    defaults = IssuerOptions()
    fields = _Fields(path, raw, "issuer", set(IssuerOptions.__dataclass_fields__))
    keyring = fields.string("keyring", required=False)
    audit_log = fields.string("audit_log", required=False)
    return IssuerOptions(
        audience=fields.string("audience", required=False),
        token_audience=fields.string("token_audience", required=False),
        keyring=Path(keyring) if keyring else defaults.keyring,
        audit_log=Path(audit_log) if audit_log else defaults.audit_log,
        whoami_cache_s=fields.integer("whoami_cache_s", defaults.whoami_cache_s, minimum=0),
        auth_failures=fields.integer("auth_failures", defaults.auth_failures),
    )


def load_issuer_options(path: Path) -> IssuerOptions:
    """The `issuer:` section of the configuration at `path`; `ConfigError` (file, line,
    field) when it is wrong."""
    raw = load_config(path)
    return parse_issuer_options(path, raw.get("issuer") if isinstance(raw, dict) else None)


def load_integrations(path: Path) -> IntegrationsConfig:
    """The configuration at `path`; `ConfigError` (file, line, field) when it is wrong."""
    return parse_integrations(path, load_config(path))
