"""Every reason a token can be unverified, with the text users read about it, in one place.

Reason codes are a public interface: they appear in `evalbot validate --format json`, in the PR
comment and in `docs/verification.md`, so they are stable, short and kebab-case. Codes that
concern one claim carry it after a colon (`claim-mismatch:task_id`); the part before the colon
is the family documented here.

`VerificationUnavailable` is the one outcome that is no verdict at all: the shared state
verification depends on is unreachable, and the run is retried.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ReasonText:
    """What a user reads about a reason: what went wrong, and what to do about it."""

    cause: str
    fix: str


MALFORMED_TOKEN = "malformed-token"  # noqa: S105 - a reason code, not a secret
DUPLICATE_CLAIMS = "duplicate-claims"
ALG_NOT_ALLOWED = "alg-not-allowed"
TYP_NOT_ALLOWED = "typ-not-allowed"
HEADER_NOT_ALLOWED = "header-not-allowed"
KID_MISSING = "kid-missing"
KID_MALFORMED = "kid-malformed"
KID_UNKNOWN = "kid-unknown"
KEYS_UNAVAILABLE = "keys-unavailable"
ISSUER_UNTRUSTED = "issuer-untrusted"
BAD_SIGNATURE = "bad-signature"
CLAIM_MISSING = "claim-missing"
CLAIM_INVALID = "claim-invalid"
CLAIM_UNEXPECTED = "claim-unexpected"
CLAIM_MISMATCH = "claim-mismatch"
AUDIENCE_MISMATCH = "audience-mismatch"
EXPIRED = "expired"
NOT_YET_VALID = "not-yet-valid"
LIFETIME_TOO_LONG = "lifetime-too-long"
FRAMEWORK_NOT_ALLOWED = "framework-not-allowed"
BENCHMARK_NOT_ALLOWED = "benchmark-not-allowed"
MODEL_NOT_ALLOWED = "model-not-allowed"
DIGEST_MISMATCH = "digest-mismatch"
TOKEN_REUSED = "token-reused"  # noqa: S105 - a reason code, not a secret
ENTRY_INVALID = "entry-invalid"
AMBIGUOUS_YAML = "ambiguous-yaml"
MODEL_REPO_UNKNOWN = "model-repo-unknown"
INTERNAL_ERROR = "internal-error"


def for_claim(family: str, claim: str) -> str:
    """A per-claim reason code, e.g. `claim-mismatch:task_id`."""
    return f"{family}:{claim}"


def family_of(reason: str) -> str:
    """The documented family of a reason code (`claim-mismatch:task_id` -> `claim-mismatch`)."""
    return reason.split(":", 1)[0]


REASONS: dict[str, ReasonText] = {
    MALFORMED_TOKEN: ReasonText(
        "The token is not a compact JWS of three base64url segments whose header and payload "
        "are JSON objects (or it is too large, contains whitespace or padding, is a JWE, or "
        "its JSON holds NaN, Infinity or an integer beyond 2^53).",
        "Copy the token exactly as the issuer returned it, on one line, without quotes "
        "inside the string or line breaks.",
    ),
    DUPLICATE_CLAIMS: ReasonText(
        "The token's header or payload names the same member twice; readers would disagree "
        "on which value counts.",
        "Ask the issuer for a new token; a conforming signer never emits duplicate names.",
    ),
    ALG_NOT_ALLOWED: ReasonText(
        "The header's `alg` is not `EdDSA`. Only Ed25519 signatures are accepted (no `none`, "
        "HMAC, RSA or ECDSA; the RFC 9864 name `Ed25519` is not accepted yet).",
        "Sign with an Ed25519 key and `alg: EdDSA` (`evalbot token sign` does).",
    ),
    TYP_NOT_ALLOWED: ReasonText(
        "The header's `typ` names another kind of token; only `eval-result+jwt` (or `JWT`, "
        "or no `typ`) is accepted, so tokens minted for other purposes cannot pass as results.",
        "Set `typ: eval-result+jwt` in the header.",
    ),
    HEADER_NOT_ALLOWED: ReasonText(
        "The header carries a parameter other than `alg`, `kid` and `typ` (for example "
        "`jku`, `x5u`, `jwk`, `x5c`, `crit`, `b64` or `zip`). Keys are never taken from a "
        "token, and extensions are not supported.",
        "Sign with a header of exactly `alg`, `kid` and optionally `typ`.",
    ),
    KID_MISSING: ReasonText(
        "The header has no `kid`; the bot only uses the key the issuer registered under it.",
        "Put the key id of the signing key (as registered or published in the issuer's JWKS) "
        "in the header's `kid`.",
    ),
    KID_MALFORMED: ReasonText(
        "The header's `kid` is not 1 to 128 characters of letters, digits, `.`, `_` and `-`.",
        "Use a plain key id such as `2026-01` for your keys.",
    ),
    KID_UNKNOWN: ReasonText(
        "The issuer has no key with this `kid`, neither in the configuration nor in its "
        "published JWKS (refetched at most once a minute per issuer).",
        "Publish the new key in the issuer's JWKS (or have it added to `issuers:` in "
        "`config/bot.yaml`) before signing with it, then ask a maintainer to re-run the check.",
    ),
    KEYS_UNAVAILABLE: ReasonText(
        "The issuer's keys are published only through its JWKS URL, which could not be "
        "fetched (down, too slow, too large, redirected elsewhere or not a valid key set), "
        "and no copy evalbot holds has a key with this `kid`.",
        "Retry later (`/evalbot recheck`); issuers should serve a valid JWKS with at least one "
        "Ed25519 key over https.",
    ),
    ISSUER_UNTRUSTED: ReasonText(
        "The token's `iss` is not exactly one of the trusted issuers (no trailing slash, case "
        "or prefix variations).",
        "Use a token from a trusted issuer, or ask the bot's operators to register yours "
        "(docs/verification.md, 'Registering an issuer').",
    ),
    BAD_SIGNATURE: ReasonText(
        "The signature does not verify under the issuer's key with this `kid`: the token was "
        "altered after signing, or signed with another key.",
        "Use the token exactly as the issuer returned it; an issuer must sign with the "
        "private key matching the registered public key.",
    ),
    CLAIM_MISSING: ReasonText(
        "The token lacks a claim it must carry (`iss`, `sub`, `iat`, `exp`, `jti`, `digest`, "
        "`framework`, `metrics`, or a content claim for a field the entry states).",
        "Build the claims with `evalbot token claims` and have the issuer sign all of them.",
    ),
    CLAIM_INVALID: ReasonText(
        "A claim has the wrong type or an impossible value: times that are not integers "
        "(strings, floats, booleans), `exp` not after `iat`, a `jti` that is empty or longer "
        "than 256 characters, metrics that are not `{metric_id, value}` objects with a "
        "numeric value, a framework without a `name`, a digest that is not `sha256:<hex>`.",
        "Sign claims with JSON types as documented in docs/verification.md.",
    ),
    CLAIM_UNEXPECTED: ReasonText(
        "The token carries a content claim for a field the entry does not state (e.g. "
        "`benchmark_revision` while the entry has no `dataset.revision`).",
        "Sign exactly the claims `evalbot token claims` prints for the entry, or add the field "
        "to the entry.",
    ),
    CLAIM_MISMATCH: ReasonText(
        "A content claim differs from the entry or the PR: the model repo, a revision, the "
        "benchmark, the task, a metric (reordered, added, removed or another value: `20.9` "
        'and `20.90` are equal numbers, the string `"20.90"` is not), or the framework.',
        "Do not edit a result after it was signed; sign again for the content you publish, "
        "on the repo you publish it to.",
    ),
    AUDIENCE_MISMATCH: ReasonText(
        "The issuer is configured with an audience and the token's `aud` is missing, a list, "
        "or another string.",
        "Request tokens for the audience the bot is configured with (a single string).",
    ),
    EXPIRED: ReasonText(
        "The token had expired (`exp`, with 30 s leeway) when the commit that introduced it "
        "was recorded (offline: at `--at`, default now).",
        "Push results soon after signing; request a new token if it expired.",
    ),
    NOT_YET_VALID: ReasonText(
        "The token's `iat` or `nbf` lies in the future (beyond 30 s leeway) at the reference "
        "time: the issuer's clock is off, or the token was made for later.",
        "Fix the issuer's clock; sign with `iat` set to the current time.",
    ),
    LIFETIME_TOO_LONG: ReasonText(
        "`exp - iat` exceeds the issuer's `max_lifetime_s`; long-lived tokens are refused "
        "even when still fresh.",
        "Issue short-lived tokens (within the issuer's configured maximum lifetime).",
    ),
    FRAMEWORK_NOT_ALLOWED: ReasonText(
        "The issuer is not trusted to vouch for this `framework.name`.",
        "Use an issuer registered for the framework, or ask the bot's operators to extend the "
        "issuer's `frameworks` list.",
    ),
    BENCHMARK_NOT_ALLOWED: ReasonText(
        "The benchmark repo is outside the issuer's `benchmarks` globs.",
        "Use an issuer trusted for this benchmark.",
    ),
    MODEL_NOT_ALLOWED: ReasonText(
        "The model repo is outside the issuer's `models` globs.",
        "Use an issuer trusted for this model repo.",
    ),
    DIGEST_MISMATCH: ReasonText(
        "The `digest` claim differs from sha256 over the RFC 8785 canonical JSON of the entry "
        "without its token: some field of the entry (notes, date, source, extensions...) "
        "changed after signing, or the token was copied from another entry.",
        "Sign the entry exactly as it is published; recompute with `evalbot token claims`.",
    ),
    TOKEN_REUSED: ReasonText(
        "This token's `jti` is already bound to another entry content or another model repo. "
        "Re-checking the same token on the same content is fine; moving it is not.",
        "Request a new token for each result you publish.",
    ),
    ENTRY_INVALID: ReasonText(
        "The entry has validation errors, so its token is not checked.",
        "Fix the errors reported for the entry; the token is then checked.",
    ),
    AMBIGUOUS_YAML: ReasonText(
        "A field of the entry is written so that YAML 1.1 and YAML 1.2 readers read it "
        "differently (`1e3`, `012`, `on`, an unquoted date...); a signature cannot vouch for "
        "content whose meaning depends on the reader.",
        "Quote the string, or write the number unambiguously (`1000.0`, `20.9`), and sign again.",
    ),
    MODEL_REPO_UNKNOWN: ReasonText(
        "An offline run was not told which model repo the results belong to, so no token "
        "can be matched to its `model_repo` claim.",
        "Pass `--model-repo OWNER/NAME` to `evalbot validate`.",
    ),
    INTERNAL_ERROR: ReasonText(
        "The verifier failed unexpectedly on this token; it is treated as unverified.",
        "Report it to the bot's operators with the token's entry.",
    ),
}


class VerificationUnavailable(RuntimeError):
    """The shared state verification depends on (Redis) is unreachable: retry the whole run.

    Raised instead of a verdict because an outage is not a property of the token: reporting
    `unverified` would publish a wrong answer, and reporting `verified` without the reuse check
    would fail open (docs/security.md#replay-protection: it is mandatory).
    """


class Unverified(Exception):
    """A verdict, raised to leave the checks at the first failing one; `reason` is its code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
