"""The issuer's decision for one authenticated request: integration, limits, policy, content, then
one signed token per entry, its claims rebuilt from the entry as the bot will. No I/O of its own."""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.hub.errors import HubError
from bot.issuer.identity import Identity
from bot.issuer.integrations import Integration, IntegrationsConfig, Limits
from bot.issuer.keyring import KeyringHolder
from bot.issuer.refusals import ContentRefusal, Refusal, Unauthenticated, Unavailable
from bot.issuer.requests import TokenRequest
from bot.tokens.claims import ClaimsUnavailable, claims_for_entry, stated_framework
from bot.tokens.signer import sign, token_claims
from bot.validation.model import BenchmarkSource, FileReport, is_sha40
from bot.validation.validate import validate_results_files
from bot.validation.yamldump import dump_entries

#: The path entries are validated under; its name carries no meaning for the checks made here.
VALIDATION_PATH = ".eval_results/submitted.yaml"


class Limiter(Protocol):
    def check(self, subject: str, limits: Limits) -> None: ...
    def record_refusal(self, subject: str, limits: Limits) -> None: ...
    def check_spread(self, subject: str, models: Sequence[str], limits: Limits) -> None: ...


class ReplayGuard(Protocol):
    def first_use(self, key: str, ttl_s: int) -> bool: ...


class Audit(Protocol):
    def write(self, **values: Any) -> None: ...
    def write_all(self, decisions: Sequence[Mapping[str, Any]]) -> None: ...


@dataclass(frozen=True)
class IssuedToken:
    index: int
    benchmark: str
    task_id: str
    jti: str
    expires_at: int
    verify_token: str

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "benchmark": self.benchmark,
            "task_id": self.task_id,
            "jti": self.jti,
            "expires_at": self.expires_at,
            "verify_token": self.verify_token,
        }


@dataclass
class Issuer:
    """Everything a decision needs, built once at start-up by `bot.issuer.wiring`."""

    issuer_url: str
    config: IntegrationsConfig
    keyring: KeyringHolder
    limiter: Limiter
    benchmarks: Callable[[], BenchmarkSource]
    audit: Audit
    #: Claims a single-use credential's key (`Identity.single_use`); None refuses them all.
    replay: ReplayGuard | None = None
    token_audience: str | None = None
    now: Callable[[], float] = time.time

    def issue(
        self, identity: Identity, request: TokenRequest, request_id: str
    ) -> list[IssuedToken]:
        """Tokens for every entry of `request`, or a `Refusal` (audited either way)."""
        integration = self.config.match(identity)
        context: dict[str, Any] = {
            "request_id": request_id,
            "identity": identity.subject,
            "model": request.model_repo,
        }
        if integration is None:
            self.audit.write(decision="refused", reason="no-integration", status=403, **context)
            raise Refusal("no-integration", audited=True)
        context["integration"] = integration.name
        try:
            self.limiter.check(identity.subject, integration.limits)
            issued = self._issue(identity, integration, request)
            self.limiter.check_spread(identity.subject, [request.model_repo], integration.limits)
            self._claim(identity)
        except Refusal as refusal:
            if refusal.status in (403, 422):
                self.limiter.record_refusal(identity.subject, integration.limits)
            self.audit.write(
                decision="refused",
                reason=refusal.reason,
                status=refusal.status,
                benchmark=getattr(refusal, "benchmark", None),
                **context,
            )
            refusal.audited = True
            raise
        self.audit.write_all(
            [
                {
                    "decision": "issued",
                    "benchmark": token.benchmark,
                    "task": token.task_id,
                    "jti": token.jti,
                    "status": 200,
                    **context,
                }
                for token in issued
            ]
        )
        return issued

    def _claim(self, identity: Identity) -> None:
        """Spend a single-use credential, last: only a request granted in every other respect
        uses up an ID token, so nobody holding it can waste it with a request that fails."""
        once = identity.single_use
        if once is None:
            return
        if self.replay is None or not self.replay.first_use(once.key, once.ttl_s):
            raise Unauthenticated("id-token-reused")

    def _issue(
        self, identity: Identity, integration: Integration, request: TokenRequest
    ) -> list[IssuedToken]:
        event = integration.refused_event(identity)
        if event is not None:
            raise Refusal(f"event-not-named:{event}")
        if not integration.allows_model(request.model_repo):
            raise Refusal("model-not-allowed")
        _check_policy(integration, request)
        report = self._validate(request)
        for entry_report in report.entries:
            # The gate on the canonical id, before any of the entry's problems is told: an id
            # that passed the case-insensitive check above can name a benchmark the exact gate
            # refuses, whose tasks and hints are not this caller's to see.
            found = entry_report.benchmark
            if found is not None and not integration.allows_benchmark(found.repo_id):
                raise _PolicyRefusal("benchmark-not-allowed", entry_report)
        problems: list[dict[str, Any]] = []
        for entry_report in report.entries:
            problems.extend(_content_problems(entry_report.entry.index, entry_report))
        if problems:
            raise ContentRefusal("entry-invalid", problems)
        keyring = self.keyring.current()
        issued_at = int(self.now())
        tokens: list[IssuedToken] = []
        for entry_report in report.entries:
            index = entry_report.entry.index
            stated = stated_framework(entry_report)
            framework = (stated or {}).get("name") or request.framework
            if framework is None:
                raise ContentRefusal(
                    "framework-missing",
                    [
                        _problem(
                            index,
                            "framework",
                            "the entry states no framework; send "
                            "`framework` with the request or state it in the entry",
                        )
                    ],
                )
            if framework not in integration.frameworks:
                raise _PolicyRefusal("framework-not-allowed", entry_report)
            assert entry_report.benchmark is not None  # no errors: the benchmark is known
            if not integration.allows_benchmark(entry_report.benchmark.repo_id):
                raise _PolicyRefusal("benchmark-not-allowed", entry_report)
            try:
                content = claims_for_entry(
                    report,
                    index,
                    model_repo=request.model_repo,
                    framework=None if stated else framework,
                )
            except ClaimsUnavailable as error:
                raise ContentRefusal(
                    "entry-invalid", [_problem(index, None, str(error))]
                ) from error
            claims = token_claims(
                content,
                issuer=self.issuer_url,
                subject=identity.subject,
                issued_at=issued_at,
                lifetime_s=integration.token_lifetime_s,
                audience=self.token_audience,
            )
            token = sign(claims, key=keyring.signing_key, kid=keyring.active)
            tokens.append(
                IssuedToken(
                    index=index,
                    benchmark=str(content["benchmark_repo"]),
                    task_id=str(content["task_id"]),
                    jti=str(claims["jti"]),
                    expires_at=int(claims["exp"]),
                    verify_token=token,
                )
            )
        return tokens

    def _validate(self, request: TokenRequest) -> FileReport:
        text = dump_entries(request.entries).encode("utf-8")
        try:
            (report,) = validate_results_files({VALIDATION_PATH: text}, self.benchmarks())
        except HubError as error:
            raise Unavailable("hub-unavailable") from error
        if len(report.entries) != len(request.entries) or any(
            dict(e.entry.data) != request.entries[e.entry.index] for e in report.entries
        ):
            # The written form reads back differently: refuse rather than sign something else.
            raise ContentRefusal(
                "entry-not-representable",
                [_problem(None, None, "the entries do not survive being written as YAML")],
            )
        file_errors = [d for d in report.diagnostics if d.is_error]
        if file_errors:
            raise ContentRefusal(
                "entry-invalid", [_problem(None, d.field, d.message, d.code) for d in file_errors]
            )
        return report


class _PolicyRefusal(Refusal):
    def __init__(self, reason: str, entry_report: Any) -> None:
        super().__init__(reason)
        benchmark = entry_report.benchmark
        self.benchmark = benchmark.repo_id if benchmark is not None else None


class _GateRefusal(Refusal):
    def __init__(self, reason: str, benchmark: str | None) -> None:
        super().__init__(reason)
        self.benchmark = benchmark


def _check_policy(integration: Integration, request: TokenRequest) -> None:
    """Refuse, with the generic refusal, any entry naming a benchmark or framework outside the
    caller's gates, before anything is validated: validation reads the benchmark's eval.yaml
    and answers with its tasks and hints, which are not this caller's to see.

    Benchmark ids are compared case-insensitively here (the Hub's ids are), and exactly again
    against the canonical id once the benchmark is read. An entry whose id or framework is
    missing or malformed passes to validation, which names the field without reading any
    benchmark."""
    patterns = [pattern.lower() for pattern in integration.benchmarks]
    for entry in request.entries:
        dataset = entry.get("dataset")
        benchmark = dataset.get("id") if isinstance(dataset, dict) else None
        if isinstance(benchmark, str) and not any(
            fnmatch.fnmatchcase(benchmark.lower(), pattern) for pattern in patterns
        ):
            raise _GateRefusal("benchmark-not-allowed", benchmark)
        framework = _named_framework(entry) or request.framework
        if framework is not None and framework not in integration.frameworks:
            raise _GateRefusal(
                "framework-not-allowed", benchmark if isinstance(benchmark, str) else None
            )


def _named_framework(entry: Mapping[str, Any]) -> str | None:
    """The framework name an entry states (`framework.name`, or a live entry's
    `evaluation_framework`), when it is a string."""
    stated = entry.get("framework")
    name = stated.get("name") if isinstance(stated, dict) else entry.get("evaluation_framework")
    return name if isinstance(name, str) else None


def _problem(
    index: int | None, field: str | None, message: str, code: str | None = None
) -> dict[str, Any]:
    return {"index": index, "field": field, "code": code, "message": message}


def _content_problems(index: int, entry_report: Any) -> list[dict[str, Any]]:
    """What the caller must fix: validation errors, then revisions that are not full SHAs."""
    problems = [
        {**_problem(index, d.field, d.message, d.code), "hint": d.hint}
        for d in entry_report.diagnostics
        if d.is_error
    ]
    data = entry_report.entry.data
    dataset = data.get("dataset") if isinstance(data.get("dataset"), dict) else {}
    for field, value in (
        ("model_revision", data.get("model_revision")),
        ("dataset.revision", dataset.get("revision")),
    ):
        if not isinstance(value, str) or not is_sha40(value):
            problems.append(
                _problem(
                    index,
                    field,
                    f"`{field}` must be a full 40-hex commit SHA (the "
                    "issuer signs only pinned revisions)",
                    "REVISION-NOT-PINNED",
                )
            )
    return problems
