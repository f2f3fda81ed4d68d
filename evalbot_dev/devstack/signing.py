"""A throwaway token issuer for the demo and the end-to-end tests: real keys, real tokens.

It does what a framework's issuer does (docs/verification.md): validate the results file,
build the canonical content claims of one entry, sign them with an Ed25519 key, and hand back
a token to paste into the entry. Its public key goes into `issuers:` of the stack's
`config/bot.yaml`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
from bot.tokens.claims import claims_for_entry
from bot.tokens.signer import generate_private_key, public_jwk, sign, token_claims
from bot.validation.validate import validate_results_files


@dataclass
class LocalIssuer:
    """An issuer trusted by a local stack for `frameworks`, with a fresh key each run."""

    issuer: str = "https://tokens.evalbot.local"
    kid: str = "local-1"
    frameworks: Sequence[str] = ("inspect-ai", "math-arena", "lighteval")
    key: Ed25519PrivateKey = field(default_factory=generate_private_key)

    def config(self) -> dict[str, Any]:
        """This issuer's entry for `issuers:` in `config/bot.yaml`."""
        return {
            "issuer": self.issuer,
            "keys": [public_jwk(self.key, self.kid)],
            "frameworks": list(self.frameworks),
            "max_lifetime_s": 3600,
        }

    def token_for(
        self,
        results_yaml: str,
        index: int,
        *,
        model_repo: str,
        benchmarks: Path,
        issued_at: int | None = None,
        framework: str | None = None,
    ) -> str:
        """A token for entry `index` of `results_yaml`, whose benchmarks live in `benchmarks`."""
        path = ".eval_results/results.yaml"
        (report,) = validate_results_files(
            {path: results_yaml.encode("utf-8")}, DirectoryBenchmarkSource(benchmarks)
        )
        content = claims_for_entry(report, index, model_repo=model_repo, framework=framework)
        claims = token_claims(
            content,
            issuer=self.issuer,
            subject="evalbot-local-ci",
            issued_at=int(time.time()) if issued_at is None else issued_at,
            lifetime_s=900,
        )
        return sign(claims, key=self.key, kid=self.kid)
