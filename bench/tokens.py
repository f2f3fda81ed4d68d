"""Token verification throughput, against raw Ed25519 signature checks on the same tokens.

Prints verifications per second through `verify_entry` (every check: strict parsing, issuer
and key lookup, PyJWT signature check, claims, RFC 8785 digest of the entry, binding) and raw
`cryptography` Ed25519 verifications per second over the same signing inputs and signatures,
then their ratio (target: at least 0.7). Run: `.venv/bin/python bench/tokens.py`.
"""

from __future__ import annotations

import base64
import copy
import statistics
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import yaml

from bench.timing import median_seconds, report
from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.claims import content_claims
from bot.tokens.issuers import IssuerRegistry, policies_from_mapping
from bot.tokens.signer import generate_private_key, public_jwk, sign, token_claims
from bot.tokens.verify import verify_entry
from bot.validation.model import (
    Benchmark,
    Dialect,
    EntryReport,
    MetricDef,
    ResultEntry,
    TaskDef,
)

TOKENS = 2000
ROUNDS = 5
CHUNK = 200
ISSUER = "https://tokens.example.org"
MODEL_REPO = "acme/llama-9b"
NOW = 1_790_000_000

BENCHMARK = Benchmark(
    repo_id="cais/hle",
    tasks=(TaskDef("hle"),),
    metrics=(
        MetricDef("accuracy", "Accuracy", True, primary=True),
        MetricDef("calibration_error", "Calibration error", False),
    ),
)

ENTRY = yaml.safe_load(
    """
dataset: {id: cais/hle, task_id: hle, revision: 5a1b2c3d4e5f60718293a4b5c6d7e8f901234567}
model_revision: 0123456789abcdef0123456789abcdef01234567
metrics:
  - {metric_id: accuracy, value: 20.9}
  - {metric_id: calibration_error, value: 12}
framework: {name: inspect-ai, version: 0.3.120, command: inspect eval inspect_evals/hle}
date: "2026-09-20"
notes: pass@1
source: {url: "https://huggingface.co/acme/llama-9b", name: Model card}
"""
)


def make_reports() -> tuple[IssuerRegistry, list[EntryReport]]:
    key = generate_private_key()
    registry = IssuerRegistry(
        policies_from_mapping(
            {
                "issuers": [
                    {
                        "issuer": ISSUER,
                        "keys": [public_jwk(key, "k1")],
                        "frameworks": ["inspect-ai"],
                    }
                ]
            }
        )
    )
    reports = []
    for index in range(TOKENS):
        data: dict[str, Any] = copy.deepcopy(ENTRY)
        data["metrics"][0]["value"] = round(20 + index / 1000, 3)
        bare = EntryReport(
            entry=ResultEntry(index=index, line=1, data=data, dialect=Dialect.TARGET),
            benchmark=BENCHMARK,
        )
        claims = token_claims(
            content_claims(bare, model_repo=MODEL_REPO),
            issuer=ISSUER,
            subject="ci:acme",
            issued_at=NOW - 60,
        )
        token = sign(claims, key=key, kid="k1")
        entry = ResultEntry(
            index=index,
            line=1,
            data={**data, "verify_token": token},
            dialect=Dialect.TARGET,
            token=token,
        )
        reports.append(EntryReport(entry=entry, benchmark=BENCHMARK))
    return registry, reports


def main() -> None:
    registry, reports = make_reports()
    at = datetime.fromtimestamp(NOW, tz=UTC)
    public_key = registry.key(ISSUER, "k1")

    raw_inputs = []
    for entry_report in reports:
        token = entry_report.entry.token
        assert token is not None
        signing_input, _, signature = token.rpartition(".")
        raw_inputs.append(
            (
                signing_input.encode(),
                base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)),
            )
        )

    def verify_chunk(chunk: list[EntryReport]) -> None:
        binder = MemoryJtiBinder()
        for entry_report in chunk:
            verdict = verify_entry(
                entry_report, model_repo=MODEL_REPO, registry=registry, binder=binder, at=at
            )
            if verdict.reason is not None:
                raise AssertionError(verdict)

    def raw_chunk(chunk: list[tuple[bytes, bytes]]) -> None:
        for signing_input, signature in chunk:
            public_key.verify(signature, signing_input)

    # The machine is shared, and other processes come and go in bursts: interleave the two
    # measurements in chunks of CHUNK tokens (tens of milliseconds each), so both sides of a
    # ratio see the same load, and report the median of the per-chunk ratios along with each
    # side's median throughput.
    def timed(action: Callable[[], None]) -> float:
        return median_seconds(action, repeat=1, warmup=0)

    verify_chunk(reports)  # warm up: imports, the header cache, the key lookup
    fulls: list[float] = []
    raws: list[float] = []
    for _ in range(ROUNDS):
        for start in range(0, TOKENS, CHUNK):
            fulls.append(timed(partial(verify_chunk, reports[start : start + CHUNK])))
            raws.append(timed(partial(raw_chunk, raw_inputs[start : start + CHUNK])))
    ratios = [raw / full for raw, full in zip(raws, fulls, strict=True)]
    report(
        "token verifications (verify_entry, all checks)", CHUNK / statistics.median(fulls), "per s"
    )
    report("raw Ed25519 verifications (cryptography)", CHUNK / statistics.median(raws), "per s")
    report(
        f"ratio, median of {len(ratios)} interleaved chunks of {CHUNK} (target >= 0.7)",
        statistics.median(ratios),
        "",
    )


if __name__ == "__main__":
    main()
