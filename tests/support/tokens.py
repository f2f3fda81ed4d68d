"""Real keys, real entries and real tokens for the token tests (no stubbed verification).

Entries are written as YAML text and read with `yaml.safe_load`, so that these tests depend on
the token layer alone, not on the strict loader of `bot.validation`; tokens are signed with real
Ed25519 keys, through the reference signer or, for forgeries, segment by segment.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot.tokens.claims import content_claims
from bot.tokens.signer import generate_private_key, public_jwk, sign, token_claims
from bot.validation.model import (
    Benchmark,
    Dialect,
    EntryReport,
    FileReport,
    MetricDef,
    ResultEntry,
    TaskDef,
)

#: A fixed reference time (2026-09-21T14:13:20Z): tokens are issued a minute before it.
NOW = 1_790_000_000
ISSUER = "https://tokens.example.org"
MODEL_REPO = "acme/llama-9b"
BENCH_REVISION = "5a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
MODEL_REVISION = "0123456789abcdef0123456789abcdef01234567"

HLE = Benchmark(
    repo_id="cais/hle",
    tasks=(TaskDef("hle"), TaskDef("hle_text")),
    metrics=(
        MetricDef("accuracy", "Accuracy", True, primary=True),
        MetricDef("calibration_error", "Calibration error", False),
    ),
    revision=BENCH_REVISION,
)
GPQA = Benchmark(repo_id="Idavidrein/gpqa", tasks=(TaskDef("diamond"),), metrics=())

TARGET_FILE = f"""\
- dataset:
    id: cais/hle
    task_id: hle
    revision: "{BENCH_REVISION}"
  model_revision: "{MODEL_REVISION}"
  metrics:
    - metric_id: calibration_error
      value: 12
    - metric_id: accuracy
      value: 20.90
  framework:
    name: inspect-ai
    version: 0.3.120
    command: inspect eval inspect_evals/hle --model hf/acme/llama-9b
  date: "2026-09-20"
  notes: pass@1, no tools
- dataset:
    id: cais/hle
    task_id: hle_text
  metrics:
    - metric_id: accuracy
      value: 18.5
  framework:
    name: inspect-ai
"""

LIVE_FILE = """\
- dataset:
    id: Idavidrein/gpqa
    task_id: diamond
  value: 61.2
  date: "2026-09-20"
  source:
    url: https://huggingface.co/acme/llama-9b
    name: Model card
"""


def entries_from_yaml(text: str) -> list[dict[str, Any]]:
    loaded = yaml.safe_load(text)
    assert isinstance(loaded, list)
    return loaded


def entry_report(
    data: Mapping[str, Any],
    *,
    token: str | None = None,
    benchmark: Benchmark | None = HLE,
    index: int = 0,
    dialect: Dialect | None = None,
    token_key: str = "verify_token",
    ambiguous: frozenset[str] = frozenset(),
) -> EntryReport:
    """An EntryReport as the validator would build it; `token` is also written into the data."""
    content = dict(copy.deepcopy(data))
    if token is not None:
        content[token_key] = token
    if dialect is None:
        dialect = Dialect.LIVE if "value" in content else Dialect.TARGET
    dataset = content.get("dataset", {})
    entry = ResultEntry(
        index=index,
        line=1 + index,
        data=content,
        dialect=dialect,
        dataset_id=dataset.get("id"),
        task_id=dataset.get("task_id"),
        token=token,
        ambiguous_fields=ambiguous,
    )
    return EntryReport(entry=entry, benchmark=benchmark)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def segment(value: Any) -> str:
    return b64(json.dumps(value, separators=(",", ":")).encode())


DROP = object()  # an override value meaning "leave this claim out"


@dataclass
class SigningIssuer:
    """An issuer with a real key pair; `config()` is its entry for `issuers:` in bot.yaml."""

    issuer: str = ISSUER
    kid: str = "k1"
    key: Ed25519PrivateKey = field(default_factory=generate_private_key)
    frameworks: tuple[str, ...] = ("inspect-ai", "lighteval")
    extra: dict[str, Any] = field(default_factory=dict)

    def jwk(self) -> dict[str, str]:
        return public_jwk(self.key, self.kid)

    def config(self, *, inline: bool = True) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "issuer": self.issuer,
            "frameworks": list(self.frameworks),
            "max_lifetime_s": 3600,
        }
        if inline:
            entry["keys"] = [self.jwk()]
        entry.update(self.extra)
        return entry

    def claims_for(
        self,
        report: EntryReport,
        *,
        model_repo: str = MODEL_REPO,
        issued_at: int = NOW - 60,
        lifetime_s: int = 900,
        jti: Any = None,
        framework: Mapping[str, Any] | None = None,
        **overrides: Any,
    ) -> dict[str, Any]:
        content = content_claims(report, model_repo=model_repo)
        if "framework" not in content:
            content["framework"] = dict(framework or {"name": "inspect-ai"})
        claims = token_claims(
            content,
            issuer=self.issuer,
            subject="ci:acme/evals",
            issued_at=issued_at,
            lifetime_s=lifetime_s,
            jti=None if jti is DROP else jti,
        )
        if jti is DROP:
            del claims["jti"]
        for name, value in overrides.items():
            if value is DROP:
                claims.pop(name, None)
            else:
                claims[name] = value
        return claims

    def sign(self, claims: Mapping[str, Any], *, kid: str | None = None) -> str:
        return sign(claims, key=self.key, kid=kid or self.kid)

    def token_for(self, report: EntryReport, **kwargs: Any) -> str:
        return self.sign(self.claims_for(report, **kwargs))

    def forge(
        self,
        header: Mapping[str, Any],
        payload: Mapping[str, Any] | str,
        *,
        key: Ed25519PrivateKey | None = None,
    ) -> str:
        """A token built segment by segment (for headers and payloads no signer would emit),
        signed with a real Ed25519 key so only the trick under test can make it fail."""
        payload_segment = (
            b64(payload.encode()) if isinstance(payload, str) else segment(dict(payload))
        )
        signing_input = f"{segment(dict(header))}.{payload_segment}"
        signature = (key or self.key).sign(signing_input.encode())
        return f"{signing_input}.{b64(signature)}"


def signed_report(
    issuer: SigningIssuer,
    data: Mapping[str, Any],
    *,
    benchmark: Benchmark | None = HLE,
    token_key: str = "verify_token",
    index: int = 0,
    **claim_kwargs: Any,
) -> EntryReport:
    """The entry with a token its issuer signed for exactly this content."""
    bare = entry_report(data, benchmark=benchmark, index=index)
    token = issuer.token_for(bare, **claim_kwargs)
    return entry_report(data, token=token, benchmark=benchmark, index=index, token_key=token_key)


def file_report(path: str, *entries: EntryReport) -> FileReport:
    return FileReport(path=path, kind="results", entries=list(entries))
