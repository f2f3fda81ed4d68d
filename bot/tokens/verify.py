"""The `verified` verdict on an entry's token, or the first reason it is not
(docs/decisions.md#tokens).

The checks, cheapest and most telling first, never trusting a claim before the signature over
it is verified:

1. the entry: no token -> absent; validation errors -> `entry-invalid`; a field YAML 1.1 and
   1.2 read differently -> `ambiguous-yaml`;
2. the token's form (`jws`): compact JWS only, size cap, I-JSON header and payload, a header of
   exactly `alg` (= `EdDSA`), `kid` (well formed) and `typ`;
3. the issuer: exact `iss` in the registry, then the key with this `kid` from that issuer only;
4. the signature, with PyJWT's EdDSA algorithm and nothing else;
5. standard claims with their types: `sub`, `jti`, `iat`, `exp`, `nbf`, `aud` when configured;
   lifetime and freshness at the caller's reference time with 30 s leeway;
6. the issuer's policy: framework, benchmark and model globs;
7. every content claim and the digest equal to the entry's and the repo (`claims`);
8. the reuse binding of the jti (`binding`), claimed only by a token that passed everything else.

3 to 7 are `checks.check_token`. PyJWT's `decode` is not used: it judges freshness at the wall
clock and re-parses what this package parsed strictly (docs/security.md#pyjwt-behaviour).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from bot.tokens import reasons
from bot.tokens.binding import JtiBinder
from bot.tokens.checks import check_token
from bot.tokens.claims import TOKEN_KEYS, ClaimsUnavailable, content_claims
from bot.tokens.issuers import IssuerRegistry
from bot.tokens.reasons import Unverified, VerificationUnavailable
from bot.validation.model import EntryReport, FileReport, Verification, VerificationStatus

logger = logging.getLogger(__name__)

#: Gives the reference time at which an entry's token freshness is judged: the Hub's time for
#: the commit that introduced the token (bot), or `--at` (CLI).
ReferenceTime = Callable[[FileReport, EntryReport], datetime]


def _epoch_seconds(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # docs/decisions.md#cli: no offset means UTC
    return math.floor(moment.timestamp())


def _rests_on_ambiguous_yaml(report: EntryReport) -> bool:
    """The digest covers the whole entry but its token, so any ambiguous field outside it counts."""
    return any(
        path.split(".", 1)[0].split("[", 1)[0] not in TOKEN_KEYS
        for path in report.entry.ambiguous_fields
    )


def verify_entry(
    report: EntryReport,
    *,
    model_repo: str,
    registry: IssuerRegistry,
    binder: JtiBinder,
    at: datetime,
) -> Verification:
    """The verdict on one entry's token (see the module docstring for the order of checks).

    Raises `VerificationUnavailable` when Redis (bindings, key cache) is unreachable.
    """
    token = report.entry.token
    if token is None:
        return Verification.absent()
    try:
        if not report.ok:
            raise Unverified(reasons.ENTRY_INVALID)
        if _rests_on_ambiguous_yaml(report):
            raise Unverified(reasons.AMBIGUOUS_YAML)
        try:
            expected = content_claims(report, model_repo=model_repo)
        except ClaimsUnavailable as error:
            raise Unverified(reasons.ENTRY_INVALID) from error
        checked = check_token(
            token,
            expected=expected,
            framework_stated="framework" in expected,
            registry=registry,
            at=_epoch_seconds(at),
        )
        bound = binder.bind(
            issuer=checked.issuer,
            jti=checked.jti,
            model_repo=model_repo,
            digest=checked.digest,
            expires_at=checked.expires_at,
        )
        if not bound:
            raise Unverified(reasons.TOKEN_REUSED)
    except Unverified as verdict:
        return Verification(VerificationStatus.UNVERIFIED, verdict.reason)
    except VerificationUnavailable:
        raise  # an outage of shared state: the caller retries, no verdict is published
    except Exception:
        # Like Warehouse: an exception we did not foresee is a bug to see in the logs, and the
        # token stays unverified rather than crashing the run.
        logger.exception("token verification failed unexpectedly (entry %s)", report.entry.index)
        return Verification(VerificationStatus.UNVERIFIED, reasons.INTERNAL_ERROR)
    return _VERIFIED


#: Verdicts are immutable: the one without a reason is built once.
_VERIFIED = Verification(VerificationStatus.VERIFIED)


def verify_reports(
    reports: Sequence[FileReport],
    *,
    model_repo: str,
    registry: IssuerRegistry,
    binder: JtiBinder,
    reference_time: ReferenceTime,
) -> None:
    """Set every entry's `verification` in place.

    Files are taken in sorted path order and entries in file order (docs/decisions.md#tokens), so
    when two entries carry the same jti the first one binds it and the verdicts do not depend on the
    order the caller listed the files in. Raises `VerificationUnavailable` when Redis is
    unreachable (a Celery task should retry).
    """
    for file_report in sorted(reports, key=lambda report: report.path):
        for entry_report in file_report.entries:
            entry_report.verification = verify_entry(
                entry_report,
                model_repo=model_repo,
                registry=registry,
                binder=binder,
                at=reference_time(file_report, entry_report),
            )
