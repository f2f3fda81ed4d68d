"""The issuer's decision in process, with plain inputs: the tokens it signs verify with the
bot's own verifier unchanged (both dialects), and what it refuses, it refuses for a reason."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.issuer.identity import Identity, SingleUse
from bot.issuer.integrations import Integration, IntegrationsConfig, Limits, Matcher
from bot.issuer.keyring import KeyringHolder, rotate
from bot.issuer.refusals import ContentRefusal, Refusal
from bot.issuer.requests import TokenRequest, parse_request
from bot.issuer.service import Issuer
from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.issuers import IssuerPolicy, IssuerRegistry
from bot.tokens.verify import verify_reports
from bot.validation.validate import validate_results_files
from bot.validation.yamldump import dump_entries
from evalbot_dev.emulator.seed import SAMPLES

ISSUER = "https://tokens.example.org"
MODEL = "alice/model"
SHA_A, SHA_B = "a" * 40, "b" * 40
ALICE = Identity(kind="hub", name="alice")


class Recorder:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.refusals = 0

    def write(self, **values: Any) -> None:
        self.lines.append(values)

    def write_all(self, decisions: Any) -> None:
        self.lines.extend(dict(d) for d in decisions)

    def check(self, subject: str, limits: Limits) -> None:
        return None

    def record_refusal(self, subject: str, limits: Limits) -> None:
        self.refusals += 1

    def check_spread(self, subject: str, models: Any, limits: Limits) -> None:
        return None

    def check_auth_failures(self, sources: Any) -> None:
        return None

    def record_auth_failure(self, sources: Any) -> None:
        return None


#: The issuer's clock in these tests (tokens are checked a minute later).
NOW = 1_790_000_000


def build_issuer(directory: Path) -> tuple[Issuer, Recorder]:
    """An issuer for alice's models over the sample benchmarks, its keyring in `directory`."""
    rotate(directory / "keys")
    keyring = KeyringHolder(directory / "keys")
    keyring.load()
    integration = Integration(
        name="acme",
        frameworks=("lighteval",),
        matchers=(Matcher(hub_user="alice"),),
        benchmarks=("*",),
        models=("alice/*",),
    )
    recorder = Recorder()
    source = DirectoryBenchmarkSource(SAMPLES / "benchmarks")
    issuer = Issuer(
        ISSUER,
        IntegrationsConfig((), (integration,)),
        keyring,
        recorder,
        lambda: source,
        recorder,
        now=lambda: NOW,
    )
    return issuer, recorder


def verify_with_the_bot(issuer: Issuer, report: Any) -> None:
    """Run the bot's own verifier over `report`, trusting `issuer`'s active key."""
    ring = issuer.keyring.current()
    policy = IssuerPolicy(
        issuer=ISSUER,
        frameworks=("lighteval",),
        keys={ring.active: ring.signing_key.public_key()},
    )
    verify_reports(
        [report],
        model_repo=MODEL,
        registry=IssuerRegistry([policy]),
        binder=MemoryJtiBinder(),
        reference_time=lambda file, entry: datetime.fromtimestamp(NOW + 60, UTC),
    )


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Issuer, Recorder]:
    return build_issuer(tmp_path)


TARGET: dict[str, Any] = {
    "dataset": {"id": "emulator-samples/hle-mini", "task_id": "hle", "revision": SHA_A},
    "model_revision": SHA_B,
    "framework": {"name": "lighteval", "version": "0.9.2"},
    "metrics": [
        {"metric_id": "calibration_error", "value": 12},
        {"metric_id": "accuracy", "value": 20.90},
    ],
    "notes": "2026-01-15",  # a string YAML 1.1 would read as a date: written quoted
}
LIVE = {
    "dataset": {"id": "emulator-samples/gpqa-mini", "task_id": "diamond", "revision": SHA_A},
    "model_revision": SHA_B,
    "value": 43.1,
}


def test_tokens_verify_with_the_bot_verifier_in_both_dialects(
    setup: tuple[Issuer, Recorder],
) -> None:
    issuer, recorder = setup
    request = TokenRequest(MODEL, (TARGET, LIVE), framework="lighteval")
    tokens = issuer.issue(ALICE, request, "req-1")
    signed = [
        {**TARGET, "verify_token": tokens[0].verify_token},
        {**LIVE, "verifyToken": tokens[1].verify_token},
    ]
    (report,) = validate_results_files(
        {".eval_results/x.yaml": dump_entries(signed).encode()},
        DirectoryBenchmarkSource(SAMPLES / "benchmarks"),
    )
    verify_with_the_bot(issuer, report)
    assert [e.verification.status.value for e in report.entries] == ["verified", "verified"]
    assert [line["decision"] for line in recorder.lines] == ["issued", "issued"]
    assert {line["jti"] for line in recorder.lines} == {t.jti for t in tokens}


def test_a_live_entry_without_a_framework_needs_one_named(setup: tuple[Issuer, Recorder]) -> None:
    issuer, recorder = setup
    with pytest.raises(ContentRefusal) as refusal:
        issuer.issue(ALICE, TokenRequest(MODEL, (LIVE,)), "req-2")
    assert refusal.value.reason == "framework-missing"
    assert refusal.value.problems[0]["index"] == 0
    assert recorder.refusals == 1
    assert recorder.lines[-1]["reason"] == "framework-missing"


def test_a_caller_cannot_bring_its_own_digest_or_token() -> None:
    with pytest.raises(Refusal, match="request-malformed"):
        parse_request(b'{"model_repo": "a/b", "entries": [{"verify_token": "x"}]}')
    with pytest.raises(Refusal, match="request-malformed"):
        parse_request(b'{"model_repo": "a/b", "entries": [{}], "digest": "sha256:00"}')
    with pytest.raises(Refusal, match="request-not-json"):
        parse_request(b'{"model_repo": "a/b", "entries": [{"value": NaN}]}')


class CountingSource:
    """The sample benchmarks, counting the lookups made (what validation reads)."""

    def __init__(self) -> None:
        self.inner = DirectoryBenchmarkSource(SAMPLES / "benchmarks")
        self.looked_up: list[str] = []

    def lookup(self, dataset_id: str, revision: str | None) -> Any:
        self.looked_up.append(dataset_id)
        return self.inner.lookup(dataset_id, revision)


def gated_issuer(directory: Path, source: CountingSource, **gates: Any) -> Issuer:
    rotate(directory / "keys")
    keyring = KeyringHolder(directory / "keys")
    keyring.load()
    claims = {"repository_owner_id": "1001", "repository": "acme/evals"}
    integration = Integration(
        name="acme",
        frameworks=("lighteval",),
        matchers=(
            Matcher(hub_user="alice"),
            Matcher(provider="github", claims=claims),
            Matcher(
                provider="github",
                claims={
                    "repository_owner_id": "1001",
                    "repository": "acme/trusted",
                    "event_name": "pull_request_target",
                },
            ),
        ),
        **{"benchmarks": ("*",), "models": ("alice/*",), **gates},
    )
    recorder = Recorder()
    return Issuer(
        ISSUER,
        IntegrationsConfig((), (integration,)),
        keyring,
        recorder,
        lambda: source,
        recorder,
        now=lambda: NOW,
    )


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({**TARGET, "dataset": {**TARGET["dataset"], "task_id": "no-such-task"}}, "benchmark"),
        ({**TARGET, "framework": {"name": "inspect-ai"}}, "framework"),
    ],
)
def test_entries_outside_the_gates_are_refused_before_any_validation_detail(
    tmp_path: Path, entry: dict[str, Any], reason: str
) -> None:
    """An entry for a benchmark outside the caller's gate used to be validated first: the
    caller got a 422 listing that benchmark's tasks (hints) instead of the generic refusal."""
    source = CountingSource()
    gates = {"benchmarks": ("emulator-samples/gpqa-mini",)} if reason == "benchmark" else {}
    issuer = gated_issuer(tmp_path, source, **gates)
    if reason == "framework":
        entry = {**entry, "dataset": {**entry["dataset"], "task_id": "no-such-task"}}
    with pytest.raises(Refusal) as refusal:
        issuer.issue(ALICE, TokenRequest(MODEL, (LIVE, entry), framework="lighteval"), "r")
    assert not isinstance(refusal.value, ContentRefusal)
    assert (refusal.value.reason, refusal.value.status) == (f"{reason}-not-allowed", 403)
    assert source.looked_up == []


def test_the_benchmark_gate_is_checked_again_on_the_canonical_id(tmp_path: Path) -> None:
    source = CountingSource()
    issuer = gated_issuer(tmp_path, source, benchmarks=("EMULATOR-SAMPLES/hle-*",))
    with pytest.raises(Refusal) as refusal:
        issuer.issue(ALICE, TokenRequest(MODEL, (TARGET,)), "r")
    assert refusal.value.reason == "benchmark-not-allowed"
    assert source.looked_up == ["emulator-samples/hle-mini"]


def test_an_entry_the_exact_gate_refuses_gets_no_validation_detail(tmp_path: Path) -> None:
    """The id passes the gate compared case-insensitively, the canonical id fails it compared
    exactly: the entry's problems (the benchmark's task list) were answered before the exact
    gate was checked."""
    source = CountingSource()
    issuer = gated_issuer(tmp_path, source, benchmarks=("EMULATOR-SAMPLES/hle-*",))
    entry = {**TARGET, "dataset": {**TARGET["dataset"], "task_id": "no-such-task"}}
    with pytest.raises(Refusal) as refusal:
        issuer.issue(ALICE, TokenRequest(MODEL, (entry,)), "r")
    assert not isinstance(refusal.value, ContentRefusal)
    assert (refusal.value.reason, refusal.value.status) == ("benchmark-not-allowed", 403)


def github_run(repository: str, event: str) -> Identity:
    claims = {"repository_owner_id": "1001", "repository": repository, "event_name": event}
    return Identity(kind="oidc", name=f"repo:{repository}", provider="github", claims=claims)


def test_pull_request_target_runs_are_refused_unless_the_rule_names_the_event(
    tmp_path: Path,
) -> None:
    """`pull_request_target` runs a fork's code with the base repository's identity."""
    issuer = gated_issuer(tmp_path, CountingSource())
    request = TokenRequest(MODEL, (TARGET,))
    with pytest.raises(Refusal) as refusal:
        issuer.issue(github_run("acme/evals", "pull_request_target"), request, "r")
    assert (refusal.value.reason, refusal.value.status) == (
        "event-not-named:pull_request_target",
        403,
    )
    assert issuer.issue(github_run("acme/evals", "push"), request, "r")
    assert issuer.issue(github_run("acme/trusted", "pull_request_target"), request, "r")


class Claims:
    """A replay guard that remembers the keys claimed."""

    def __init__(self) -> None:
        self.claimed: list[str] = []

    def first_use(self, key: str, ttl_s: int) -> bool:
        if key in self.claimed:
            return False
        self.claimed.append(key)
        return True


def test_an_id_token_is_spent_only_by_a_request_that_is_granted(tmp_path: Path) -> None:
    issuer, _recorder = build_issuer(tmp_path)
    issuer.replay = claims = Claims()
    job = Identity(kind="hub", name="alice", single_use=SingleUse("ci\njti-1", 600))
    with pytest.raises(ContentRefusal):
        issuer.issue(job, TokenRequest(MODEL, ({"value": 1},), framework="lighteval"), "r1")
    with pytest.raises(Refusal, match="model-not-allowed"):
        issuer.issue(job, TokenRequest("bob/model", (LIVE,), framework="lighteval"), "r2")
    assert claims.claimed == []
    assert issuer.issue(job, TokenRequest(MODEL, (LIVE,), framework="lighteval"), "r3")
    assert claims.claimed == ["ci\njti-1"]
    with pytest.raises(Refusal, match="id-token-reused"):
        issuer.issue(job, TokenRequest(MODEL, (LIVE,), framework="lighteval"), "r4")


def test_without_a_replay_guard_a_single_use_credential_is_refused(tmp_path: Path) -> None:
    issuer, _recorder = build_issuer(tmp_path)
    job = Identity(kind="hub", name="alice", single_use=SingleUse("ci\njti-1", 600))
    with pytest.raises(Refusal, match="id-token-reused"):
        issuer.issue(job, TokenRequest(MODEL, (LIVE,), framework="lighteval"), "r1")
