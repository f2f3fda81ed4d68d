"""The benchmark policy: which draft-only warnings count as errors, everywhere or per benchmark
(docs/validate.md, "Benchmark policy")."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.validation.catalogue import CATALOGUE, Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.yamlload import load_yaml


class PolicyError(ValueError):
    """The policy file is unreadable or names a code that is not a warning."""


@dataclass(frozen=True, slots=True)
class Policy:
    errors: frozenset[str] = frozenset()
    #: lower-cased benchmark id -> codes that are errors for that benchmark's entries
    benchmark_errors: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def apply(self, diagnostic: Diagnostic, benchmark_id: str | None) -> Diagnostic:
        """The diagnostic, promoted to an error when the policy says so."""
        if diagnostic.severity is not Severity.WARNING:
            return diagnostic
        codes = self.errors
        if benchmark_id is not None:
            codes = codes | self.benchmark_errors.get(benchmark_id.lower(), frozenset())
        if diagnostic.code in codes:
            return dataclasses.replace(diagnostic, severity=Severity.ERROR)
        return diagnostic


DEFAULT_POLICY = Policy()


def policy_from_yaml(content: bytes) -> Policy:
    """Parse a policy document (`errors`, `benchmarks`); see `policy_from_mapping`."""
    loaded = load_yaml(content)
    if not loaded.ok:
        raise PolicyError("; ".join(diagnostic.message for diagnostic in loaded.diagnostics))
    return policy_from_mapping(loaded.data)


def policy_from_mapping(data: Any, *, section: str = "") -> Policy:
    """The policy in `data`, a mapping of `errors` and `benchmarks` (None: the default), as the
    `policy:` section of `config/bot.yaml` holds it; unknown keys, unknown codes and codes that
    are not warnings are refused. `section` is the mapping's place in its file (`policy.`):
    every message names the field from the top of the file, so the file's line can be found."""
    if data is None:
        return DEFAULT_POLICY
    if not isinstance(data, dict) or set(data) - {"errors", "benchmarks"}:
        where = f"`{section.rstrip('.')}` " if section else ""
        raise PolicyError(f"{where}policy must be a mapping with `errors` and `benchmarks`")
    errors = _codes(data.get("errors", []), f"{section}errors")
    benchmarks = data.get("benchmarks", {}) or {}
    if not isinstance(benchmarks, dict):
        raise PolicyError(f"`{section}benchmarks` must map benchmark ids to lists of codes")
    per_benchmark = {
        str(benchmark_id).lower(): _codes(codes, f"{section}benchmarks.{benchmark_id}")
        for benchmark_id, codes in benchmarks.items()
    }
    return Policy(errors=errors, benchmark_errors=per_benchmark)


def _codes(raw: Any, where: str) -> frozenset[str]:
    if raw is None:
        return frozenset()
    if not isinstance(raw, list) or not all(isinstance(code, str) for code in raw):
        raise PolicyError(f"`{where}` must be a list of diagnostic codes")
    for code in raw:
        message = CATALOGUE.get(code)
        if message is None:
            raise PolicyError(f"`{where}`: unknown diagnostic code {code!r}")
        if message.severity is not Severity.WARNING:
            raise PolicyError(f"`{where}`: {code} is already an error")
    return frozenset(raw)
