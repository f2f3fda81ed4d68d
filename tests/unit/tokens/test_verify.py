"""The verifier against every token case of docs/security.md#adversarial-inputs items 13-19, with
inline keys.

Each test signs real tokens with real Ed25519 keys; a forgery differs from a good token only in
the trick under test, and every family also has a passing control, so a check that silently
rejects everything would fail here.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import unicodedata
from datetime import UTC, datetime
from typing import Any, cast

import jwt
import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.issuers import IssuerRegistry, policies_from_mapping
from bot.tokens.signer import generate_private_key
from bot.tokens.verify import verify_entry, verify_reports
from bot.validation.catalogue import Severity
from bot.validation.diagnostics import Diagnostic
from bot.validation.model import EntryReport, Verification, VerificationStatus
from tests.support.tokens import (
    DROP,
    GPQA,
    ISSUER,
    LIVE_FILE,
    MODEL_REPO,
    NOW,
    TARGET_FILE,
    SigningIssuer,
    b64,
    entries_from_yaml,
    entry_report,
    file_report,
    segment,
    signed_report,
)

VERIFIED = Verification(VerificationStatus.VERIFIED)


def unverified(reason: str) -> Verification:
    return Verification(VerificationStatus.UNVERIFIED, reason)


def at_time(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


@pytest.fixture
def issuer() -> SigningIssuer:
    return SigningIssuer()


@pytest.fixture
def other_issuer() -> SigningIssuer:
    return SigningIssuer(issuer="https://other-issuer.example.net", kid="b1")


@pytest.fixture
def registry(issuer: SigningIssuer, other_issuer: SigningIssuer) -> IssuerRegistry:
    return IssuerRegistry(
        policies_from_mapping({"issuers": [issuer.config(), other_issuer.config()]})
    )


@pytest.fixture
def target() -> dict[str, Any]:
    return entries_from_yaml(TARGET_FILE)[0]


def verdict(
    report: EntryReport,
    registry: IssuerRegistry,
    *,
    at: int = NOW,
    model_repo: str = MODEL_REPO,
    binder: MemoryJtiBinder | None = None,
) -> Verification:
    return verify_entry(
        report,
        model_repo=model_repo,
        registry=registry,
        binder=binder or MemoryJtiBinder(),
        at=at_time(at),
    )


def with_token(data: dict[str, Any], token: str, **kwargs: Any) -> EntryReport:
    return entry_report(data, token=token, **kwargs)


# --- the controls: good tokens verify -------------------------------------------------------


def test_a_token_signed_for_the_entry_verifies(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    assert verdict(signed_report(issuer, target), registry) == VERIFIED


def test_live_entry_with_camel_case_token_verifies(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    live = entries_from_yaml(LIVE_FILE)[0]
    report = signed_report(issuer, live, benchmark=GPQA, token_key="verifyToken")
    assert report.entry.data["verifyToken"] == report.entry.token
    assert verdict(report, registry) == VERIFIED


def test_no_token_is_absent(registry: IssuerRegistry, target: dict[str, Any]) -> None:
    assert verdict(entry_report(target), registry) == Verification.absent()


# --- the entry itself -----------------------------------------------------------------------


def test_token_on_an_invalid_entry_is_entry_invalid(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    report = signed_report(issuer, target)
    report.diagnostics.append(Diagnostic("task-unknown", Severity.ERROR, "no such task"))
    assert verdict(report, registry) == unverified("entry-invalid")
    report.diagnostics[0] = Diagnostic("unknown-key", Severity.WARNING, "extra key")
    assert verdict(report, registry) == VERIFIED  # warnings do not block verification


def test_token_resting_on_ambiguous_yaml_is_unverified(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    good = signed_report(issuer, target)
    for fields, expected in [
        (frozenset({"metrics[1].value"}), unverified("ambiguous-yaml")),
        (frozenset({"framework.version"}), unverified("ambiguous-yaml")),
        (frozenset({"verify_token"}), VERIFIED),  # the token itself is not signed content
    ]:
        report = entry_report(target, token=good.entry.token, ambiguous=fields)
        assert verdict(report, registry) == expected, fields


# --- §7(a) 13: algorithms -------------------------------------------------------------------


def _hmac_token(header: dict[str, Any], payload: dict[str, Any], secret: bytes) -> str:
    signing_input = f"{segment(header)}.{segment(payload)}"
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(mac)}"


def test_alg_none_hmac_with_public_key_and_other_algorithms_are_refused(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    bare = entry_report(target)
    claims = issuer.claims_for(bare)
    public = issuer.key.public_key()
    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    jwk_json = json.dumps(issuer.jwk()).encode()
    ec_key = ec.generate_private_key(ec.SECP256R1())

    unsigned = f"{segment({'alg': 'none', 'kid': 'k1'})}.{segment(claims)}"
    assert verdict(with_token(target, unsigned + "."), registry) == unverified("malformed-token")
    forgeries = [
        f"{unsigned}.{b64(b'x')}",
        f"{segment({'alg': 'NoNe', 'kid': 'k1'})}.{segment(claims)}.{b64(b'x')}",
        _hmac_token({"alg": "HS256", "kid": "k1"}, claims, pem),
        _hmac_token({"alg": "HS256", "kid": "k1"}, claims, raw),
        _hmac_token({"alg": "HS256", "kid": "k1"}, claims, jwk_json),
        issuer.forge({"alg": "RS256", "kid": "k1"}, claims),
        issuer.forge({"alg": "ES256", "kid": "k1"}, claims),
        issuer.forge({"alg": "Ed25519", "kid": "k1"}, claims),  # RFC 9864: refused for now
        issuer.forge({"alg": "eddsa", "kid": "k1"}, claims),
        issuer.forge({"kid": "k1"}, claims),
        jwt.encode(claims, ec_key, algorithm="ES256", headers={"kid": "k1"}),
    ]
    for token in forgeries:
        assert verdict(with_token(target, token), registry) == unverified("alg-not-allowed")
    # ... and the same claims with the real algorithm pass, so the refusals are about alg.
    assert (
        verdict(with_token(target, issuer.forge({"alg": "EdDSA", "kid": "k1"}, claims)), registry)
        == VERIFIED
    )


# --- §7(a) 14: header tricks and token shapes -----------------------------------------------


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ({"alg": "EdDSA"}, "kid-missing"),
        ({"alg": "EdDSA", "kid": "nope"}, "kid-unknown"),
        ({"alg": "EdDSA", "kid": "../../etc/passwd"}, "kid-malformed"),
        ({"alg": "EdDSA", "kid": "k1' OR '1'='1"}, "kid-malformed"),
        ({"alg": "EdDSA", "kid": "*)(uid=*))(|(uid=*"}, "kid-malformed"),
        ({"alg": "EdDSA", "kid": "k" * 129}, "kid-malformed"),
        ({"alg": "EdDSA", "kid": "k" * 10_000}, "malformed-token"),  # header over 1 KiB
        ({"alg": "EdDSA", "kid": ""}, "kid-malformed"),
        ({"alg": "EdDSA", "kid": 1}, "kid-malformed"),
        (
            {"alg": "EdDSA", "kid": "k1", "jku": "https://attacker.example/jwks"},
            "header-not-allowed",
        ),
        ({"alg": "EdDSA", "kid": "k1", "x5u": "file:///etc/passwd"}, "header-not-allowed"),
        ({"alg": "EdDSA", "kid": "k1", "jwk": {"kty": "OKP"}}, "header-not-allowed"),
        ({"alg": "EdDSA", "kid": "k1", "x5c": ["MIIB"]}, "header-not-allowed"),
        ({"alg": "EdDSA", "kid": "k1", "crit": ["x-foo"], "x-foo": 1}, "header-not-allowed"),
        ({"alg": "EdDSA", "kid": "k1", "b64": False}, "header-not-allowed"),
        ({"alg": "EdDSA", "kid": "k1", "zip": "DEF"}, "header-not-allowed"),
        ({"alg": "EdDSA", "kid": "k1", "typ": "at+jwt"}, "typ-not-allowed"),
        ({"alg": "EdDSA", "kid": "k1", "typ": "JWT"}, None),
        ({"alg": "EdDSA", "kid": "k1", "typ": "eval-result+jwt"}, None),
    ],
)
def test_header_tricks(
    header: dict[str, Any],
    reason: str | None,
    issuer: SigningIssuer,
    registry: IssuerRegistry,
    target: dict[str, Any],
) -> None:
    token = issuer.forge(header, issuer.claims_for(entry_report(target)))
    expected = VERIFIED if reason is None else unverified(reason)
    assert verdict(with_token(target, token), registry) == expected


def test_token_shapes_other_than_compact_jws_are_malformed(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    good = issuer.token_for(entry_report(target))
    head, body, signature = good.split(".")
    not_utf8 = b64(b"\xff\xfe{}")
    shapes = [
        f"{head}.{body}",  # 2 segments
        f"{head}.{body}.{signature}.{signature}",  # 4 segments
        f"{head}.{body}.{signature}.{signature}.{signature}",  # JWE-like, 5 segments
        json.dumps({"protected": head, "payload": body, "signature": signature}),  # JSON form
        f"{head}.{body}.{signature}=",  # padding
        f"{head}.{body}+.{signature}",  # not base64url
        f"{head}.{body[:10]} {body[10:]}.{signature}",  # whitespace inside
        f"{head}.{body}.\n{signature}",  # newline inside
        f" {good}",
        f"{segment([1, 2])}.{body}.{signature}",  # header not an object
        f"{not_utf8}.{body}.{signature}",  # header not UTF-8
        "",
    ]
    for token in shapes:
        assert verdict(with_token(target, token), registry) == unverified("malformed-token"), token
    assert verdict(with_token(target, good), registry) == VERIFIED


def test_tampered_or_foreign_signatures_are_bad_signature(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    claims = issuer.claims_for(entry_report(target))
    head, _, signature = issuer.sign(claims).split(".")
    tampered = f"{head}.{segment({**claims, 'sub': 'someone-else'})}.{signature}"
    other_key = issuer.forge({"alg": "EdDSA", "kid": "k1"}, claims, key=generate_private_key())
    flipped = "B" if signature[0] == "A" else "A"
    altered_signature = f"{head}.{segment(claims)}.{flipped}{signature[1:]}"
    for token in (tampered, other_key, altered_signature):
        assert verdict(with_token(target, token), registry) == unverified("bad-signature")


# --- §7(a) 15: registered claims ------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"exp": DROP}, "claim-missing:exp"),
        ({"iat": DROP}, "claim-missing:iat"),
        ({"jti": DROP}, "claim-missing:jti"),
        ({"sub": DROP}, "claim-missing:sub"),
        ({"iss": DROP}, "claim-missing:iss"),
        ({"exp": "9999999999"}, "claim-invalid:exp"),
        ({"exp": NOW + 600.0}, "claim-invalid:exp"),
        ({"exp": NOW + 600.5}, "claim-invalid:exp"),
        ({"exp": True}, "claim-invalid:exp"),
        ({"exp": None}, "claim-invalid:exp"),
        ({"exp": -1}, "claim-invalid:exp"),
        ({"iat": "1789999940"}, "claim-invalid:iat"),
        ({"nbf": "0"}, "claim-invalid:nbf"),
        ({"exp": NOW - 60}, "claim-invalid:exp"),  # exp == iat
        ({"jti": ""}, "claim-invalid:jti"),
        ({"jti": "j" * 257}, "claim-invalid:jti"),
        ({"jti": 7}, "claim-invalid:jti"),
        ({"sub": {"id": 1}}, "claim-invalid:sub"),
        ({"iat": NOW + 31, "exp": NOW + 600}, "not-yet-valid"),
        ({"nbf": NOW + 31}, "not-yet-valid"),
        ({"iat": NOW - 365 * 86400, "exp": NOW + 600}, "lifetime-too-long"),
        ({"iat": NOW - 60, "exp": NOW - 60 + 30 * 86400}, "lifetime-too-long"),
        ({"iat": NOW - 60, "exp": NOW - 60 + 3601}, "lifetime-too-long"),
        ({"iat": NOW - 60, "exp": NOW - 60 + 3600}, None),  # exactly the maximum
        ({"iat": NOW + 29, "exp": NOW + 600}, None),  # within the leeway
        ({"nbf": NOW + 29}, None),
        ({"iat": NOW - 900, "exp": NOW - 10}, None),  # expired 10 s ago: within the leeway
        ({"iat": NOW - 900, "exp": NOW - 29}, None),
        ({"iat": NOW - 900, "exp": NOW - 30}, "expired"),
        ({"iat": NOW - 900, "exp": NOW - 31}, "expired"),
        ({"iat": NOW - 1200, "exp": NOW - 300}, "expired"),
        ({"aud": "somebody-else"}, None),  # aud is only checked when configured
    ],
)
def test_registered_claims(
    overrides: dict[str, Any],
    reason: str | None,
    issuer: SigningIssuer,
    registry: IssuerRegistry,
    target: dict[str, Any],
) -> None:
    token = issuer.sign(issuer.claims_for(entry_report(target), **overrides))
    expected = VERIFIED if reason is None else unverified(reason)
    assert verdict(with_token(target, token), registry) == expected


@pytest.mark.parametrize(
    ("aud", "reason"),
    [
        ("evalbot", None),
        (["evalbot"], "audience-mismatch"),
        (["evalbot", "other"], "audience-mismatch"),
        (DROP, "audience-mismatch"),
        ("other-rp", "audience-mismatch"),
        ("EVALBOT", "audience-mismatch"),
    ],
)
def test_audience_when_configured(aud: Any, reason: str | None, target: dict[str, Any]) -> None:
    issuer = SigningIssuer(extra={"audience": "evalbot"})
    registry = IssuerRegistry(policies_from_mapping({"issuers": [issuer.config()]}))
    token = issuer.sign(issuer.claims_for(entry_report(target), aud=aud))
    expected = VERIFIED if reason is None else unverified(reason)
    assert verdict(with_token(target, token), registry) == expected


@pytest.mark.parametrize(
    "iss",
    [
        ISSUER + "/",
        ISSUER.upper(),
        "https://TOKENS.example.org",
        "https://tokens.example.or",
        ISSUER + ".evil.example",
        ISSUER + "/../x",
        "http://tokens.example.org",
        " " + ISSUER,
    ],
)
def test_look_alike_issuers_are_untrusted(
    iss: str, issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    token = issuer.sign(issuer.claims_for(entry_report(target), iss=iss))
    assert verdict(with_token(target, token), registry) == unverified("issuer-untrusted")


def test_keys_never_cross_issuers(
    issuer: SigningIssuer,
    other_issuer: SigningIssuer,
    registry: IssuerRegistry,
    target: dict[str, Any],
) -> None:
    claims = issuer.claims_for(entry_report(target))
    # issuer A's iss with a kid that only issuer B has: not found under A
    b_kid_on_a = other_issuer.sign(claims, kid=other_issuer.kid)
    assert verdict(with_token(target, b_kid_on_a), registry) == unverified("kid-unknown")
    # issuer A's iss and kid, signed with issuer B's key
    b_key_as_a = issuer.forge({"alg": "EdDSA", "kid": issuer.kid}, claims, key=other_issuer.key)
    assert verdict(with_token(target, b_key_as_a), registry) == unverified("bad-signature")
    # issuer B's own token for the same content verifies (B trusts inspect-ai too)
    b_token = other_issuer.sign({**claims, "iss": other_issuer.issuer})
    assert verdict(with_token(target, b_token), registry) == VERIFIED


def test_an_issuer_that_is_not_a_string_is_invalid(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    claims = issuer.claims_for(entry_report(target), iss=[ISSUER])
    token = issuer.forge({"alg": "EdDSA", "kid": issuer.kid}, claims)
    assert verdict(with_token(target, token), registry) == unverified("claim-invalid:iss")


def test_an_empty_registry_trusts_no_one(issuer: SigningIssuer, target: dict[str, Any]) -> None:
    token = issuer.token_for(entry_report(target))
    empty = IssuerRegistry(policies_from_mapping({"issuers": []}))
    assert verdict(with_token(target, token), empty) == unverified("issuer-untrusted")


# --- §7(a) 16: content binding --------------------------------------------------------------


def test_each_content_claim_mismatched(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    bare = entry_report(target)
    good = issuer.claims_for(bare)
    nfd_task = unicodedata.normalize("NFD", "hlé")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"model_repo": "acme/llama-9b-instruct"}, "claim-mismatch:model_repo"),
        ({"model_repo": "ACME/llama-9b"}, "claim-mismatch:model_repo"),
        ({"model_revision": "f" * 40}, "claim-mismatch:model_revision"),
        ({"model_revision": DROP}, "claim-missing:model_revision"),
        ({"benchmark_repo": "CAIS/hle"}, "claim-mismatch:benchmark_repo"),
        ({"benchmark_repo": "cais/other"}, "claim-mismatch:benchmark_repo"),
        ({"benchmark_revision": DROP}, "claim-missing:benchmark_revision"),
        ({"benchmark_revision": "0" * 40}, "claim-mismatch:benchmark_revision"),
        ({"task_id": "HLE"}, "claim-mismatch:task_id"),
        ({"task_id": nfd_task}, "claim-mismatch:task_id"),
        ({"metrics": list(reversed(good["metrics"]))}, "claim-mismatch:metrics"),
        ({"metrics": [*good["metrics"], {"metric_id": "z", "value": 1}]}, "claim-mismatch:metrics"),
        ({"metrics": good["metrics"][:1]}, "claim-mismatch:metrics"),
        (
            {
                "metrics": [
                    {"metric_id": "accuracy", "value": 20.900000000000002},
                    good["metrics"][1],
                ]
            },
            "claim-mismatch:metrics",
        ),
        (
            {"framework": {**good["framework"], "version": "0.3.120+local"}},
            "claim-mismatch:framework",
        ),
        ({"framework": {"name": "inspect-ai"}}, "claim-mismatch:framework"),
        ({"framework": {**good["framework"], "seed": 1}}, "claim-mismatch:framework"),
        ({"digest": "sha256:" + "0" * 64}, "digest-mismatch"),
        ({"digest": "sha256:" + "0" * 63}, "claim-invalid:digest"),
        ({"digest": DROP}, "claim-missing:digest"),
        ({"metrics": DROP}, "claim-missing:metrics"),
        ({"framework": DROP}, "claim-missing:framework"),
        ({"task_id": DROP}, "claim-missing:task_id"),
    ]
    for overrides, reason in cases:
        claims = dict(good)
        for name, value in overrides.items():
            if value is DROP:
                del claims[name]
            else:
                claims[name] = value
        token = issuer.sign(claims)
        assert verdict(with_token(target, token), registry) == unverified(reason), overrides


def test_claims_present_only_in_the_token_are_unexpected(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    second = entries_from_yaml(TARGET_FILE)[1]  # no revisions stated
    claims = issuer.claims_for(entry_report(second))
    for name in ("benchmark_revision", "model_revision"):
        token = issuer.sign({**claims, name: "0" * 40})
        assert verdict(with_token(second, token), registry) == unverified(
            f"claim-unexpected:{name}"
        )
    assert verdict(with_token(second, issuer.sign(claims)), registry) == VERIFIED


def test_metric_values_compare_as_numbers_never_as_strings(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    def entry(value_text: str) -> dict[str, Any]:
        loaded = yaml.safe_load(
            "dataset: {id: cais/hle, task_id: hle}\n"
            f"metrics: [{{metric_id: accuracy, value: {value_text}}}]\n"
            "framework: {name: inspect-ai}\n"
        )
        assert isinstance(loaded, dict)
        return loaded

    signed_for_20_9 = issuer.claims_for(entry_report(entry("20.9")))
    # The digest is over parsed values: 20.90 and 2.09e+1 (a PyYAML float) are the same entry.
    for spelling in ("20.90", "20.9", "2.09e+1"):
        report = with_token(entry(spelling), issuer.sign(signed_for_20_9))
        assert verdict(report, registry) == VERIFIED, spelling
    as_string = {**signed_for_20_9, "metrics": [{"metric_id": "accuracy", "value": "20.90"}]}
    assert verdict(with_token(entry("20.9"), issuer.sign(as_string)), registry) == unverified(
        "claim-invalid:metrics"
    )
    # An integer-valued metric may arrive as 21 or 21.0: JCS writes both as 21.
    signed_for_21 = issuer.claims_for(entry_report(entry("21")))
    as_float = {**signed_for_21, "metrics": [{"metric_id": "accuracy", "value": 21.0}]}
    assert verdict(with_token(entry("21"), issuer.sign(as_float)), registry) == VERIFIED
    as_bool = {**signed_for_21, "metrics": [{"metric_id": "accuracy", "value": True}]}
    assert verdict(with_token(entry("21"), issuer.sign(as_bool)), registry) == unverified(
        "claim-invalid:metrics"
    )


def test_edited_entry_after_signing_is_digest_mismatch(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    token = issuer.token_for(entry_report(target))
    for field, value in [("notes", "pass@1, with tools"), ("date", "2026-09-21"), ("extra", 1)]:
        edited = {**target, field: value}
        assert verdict(with_token(edited, token), registry) == unverified("digest-mismatch")
    reordered = {**target, "metrics": list(reversed(target["metrics"]))}
    assert verdict(with_token(reordered, token), registry) == unverified("digest-mismatch")
    improved = {
        **target,
        "metrics": [target["metrics"][0], {"metric_id": "accuracy", "value": 25.0}],
    }
    assert verdict(with_token(improved, token), registry) == unverified("claim-mismatch:metrics")


@pytest.mark.parametrize(
    ("policy", "reason"),
    [
        ({"frameworks": ["lighteval"]}, "framework-not-allowed"),
        ({"frameworks": ["Inspect-AI"]}, "framework-not-allowed"),
        ({"benchmarks": ["openai/*"]}, "benchmark-not-allowed"),
        ({"benchmarks": ["CAIS/*"]}, "benchmark-not-allowed"),  # globs are case-sensitive
        ({"benchmarks": ["cais/*"]}, None),
        ({"models": ["other/*"]}, "model-not-allowed"),
        ({"models": ["acme/*"], "benchmarks": ["cais/hle", "openai/*"]}, None),
    ],
)
def test_issuer_policy(policy: dict[str, Any], reason: str | None, target: dict[str, Any]) -> None:
    issuer = SigningIssuer(extra=policy)
    registry = IssuerRegistry(policies_from_mapping({"issuers": [issuer.config()]}))
    token = issuer.token_for(entry_report(target))
    expected = VERIFIED if reason is None else unverified(reason)
    assert verdict(with_token(target, token), registry) == expected


def test_framework_claim_is_required_and_checked_when_the_entry_states_none(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    live = entries_from_yaml(LIVE_FILE)[0]
    bare = entry_report(live, benchmark=GPQA)
    cases: list[tuple[Any, Verification]] = [
        ({"name": "inspect-ai", "version": "0.3.120"}, VERIFIED),
        ({"name": "mteb"}, unverified("framework-not-allowed")),
        ({"version": "1"}, unverified("claim-invalid:framework")),
        ({"name": ""}, unverified("claim-invalid:framework")),
        ("inspect-ai", unverified("claim-invalid:framework")),
        ({"name": "inspect-ai", "seed": 1}, unverified("claim-invalid:framework")),
        ({"name": "inspect-ai", "version": 3}, unverified("claim-invalid:framework")),
    ]
    for framework, expected in cases:
        token = issuer.sign(
            issuer.claims_for(bare, framework={"name": "x"}) | {"framework": framework}
        )
        report = with_token(live, token, benchmark=GPQA)
        assert verdict(report, registry) == expected, framework


# --- §7(a) 17-18: reuse and moved tokens ------------------------------------------------------


def test_token_moved_to_another_repo_or_entry_fails(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    first, second = entries_from_yaml(TARGET_FILE)
    token_a = issuer.token_for(entry_report(first))
    assert verdict(
        with_token(first, token_a), registry, model_repo="mallory/copycat"
    ) == unverified("claim-mismatch:model_repo")
    assert verdict(with_token(second, token_a, index=1), registry).status is (
        VerificationStatus.UNVERIFIED
    )


def test_same_token_same_content_verifies_again_and_reuse_elsewhere_is_refused(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    binder = MemoryJtiBinder()
    first, second = entries_from_yaml(TARGET_FILE)
    report = signed_report(issuer, first, jti="jti-1")
    for _ in range(3):  # webhook retries, re-runs, a second PR with the same content
        assert verdict(report, registry, binder=binder) == VERIFIED
    # An issuer that signs a second token with the same jti for other content.
    other = signed_report(issuer, second, jti="jti-1")
    assert verdict(other, registry, binder=binder) == unverified("token-reused")
    # The same jti for the same content on another repo (token signed for that repo).
    elsewhere = signed_report(issuer, first, jti="jti-1", model_repo="acme/other")
    assert verdict(elsewhere, registry, binder=binder, model_repo="acme/other") == unverified(
        "token-reused"
    )
    assert verdict(report, registry, binder=binder) == VERIFIED


def test_only_a_token_that_passes_everything_binds_its_jti(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    binder = MemoryJtiBinder()
    first, second = entries_from_yaml(TARGET_FILE)
    expired = signed_report(issuer, second, jti="j", issued_at=NOW - 2000)
    assert verdict(expired, registry, binder=binder) == unverified("expired")
    assert verdict(signed_report(issuer, first, jti="j"), registry, binder=binder) == VERIFIED


def test_verify_reports_binds_in_sorted_path_order(
    issuer: SigningIssuer, registry: IssuerRegistry
) -> None:
    first, second = entries_from_yaml(TARGET_FILE)
    in_b = signed_report(issuer, first, jti="shared")
    in_a = signed_report(issuer, second, jti="shared")
    unsigned = entry_report(first, index=1)
    reports = [
        file_report(".eval_results/b.yaml", in_b, unsigned),
        file_report(".eval_results/a.yaml", in_a),
    ]
    verify_reports(
        reports,
        model_repo=MODEL_REPO,
        registry=registry,
        binder=MemoryJtiBinder(),
        reference_time=lambda _file, _entry: at_time(NOW),
    )
    assert in_a.verification == VERIFIED
    assert in_b.verification == unverified("token-reused")
    assert unsigned.verification == Verification.absent()


def test_reference_time_is_per_entry_and_naive_means_utc(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    report = signed_report(issuer, target)
    a_week_later = datetime.fromtimestamp(NOW + 7 * 86400, tz=UTC)
    verify_reports(
        [file_report("f.yaml", report)],
        model_repo=MODEL_REPO,
        registry=registry,
        binder=MemoryJtiBinder(),
        reference_time=lambda _file, _entry: a_week_later,
    )
    assert report.verification == unverified("expired")
    naive = datetime.fromtimestamp(NOW, tz=UTC).replace(tzinfo=None)
    assert (
        verify_entry(
            report, model_repo=MODEL_REPO, registry=registry, binder=MemoryJtiBinder(), at=naive
        )
        == VERIFIED
    )


# --- §7(a) 19: huge and odd payloads ------------------------------------------------------------


def test_huge_and_odd_payloads(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    good = issuer.claims_for(entry_report(target))
    many = [{"metric_id": f"m{i:05d}", "value": i} for i in range(10_000)]
    head = segment({"alg": "EdDSA", "kid": "k1"})
    raw_payload = json.dumps(good)[:-1] + ', "task_id": "hle_text"}'
    deep = b"[" * 20_000 + b"]" * 20_000
    cases: list[tuple[str, str]] = [
        (issuer.sign({**good, "metrics": many}), "malformed-token"),
        # Nested past the recursion limit, in the header (also over its length cap) and in
        # the payload: a verdict, not an internal error.
        (b64(deep) + "." + segment({}) + "." + b64(b"x"), "malformed-token"),
        (
            issuer.forge({"alg": "EdDSA", "kid": "k1"}, "[" * 10_000 + "]" * 10_000),
            "malformed-token",
        ),
        (issuer.sign({**good, "notes": "x" * 1_000_000}), "malformed-token"),
        (issuer.forge({"alg": "EdDSA", "kid": "k1"}, raw_payload), "duplicate-claims"),
        (
            issuer.forge({"alg": "EdDSA", "kid": "k1"}, json.dumps(good)[:-1] + ', "exp": 1}'),
            "duplicate-claims",
        ),
        (
            issuer.forge(
                {"alg": "EdDSA", "kid": "k1"},
                json.dumps({**good, "metrics": [{"metric_id": "accuracy", "value": float("nan")}]}),
            ),
            "malformed-token",
        ),
        (
            issuer.forge({"alg": "EdDSA", "kid": "k1"}, json.dumps(good)[:-1] + ', "x": 1e400}'),
            "malformed-token",
        ),
        (issuer.sign({**good, "exp": 2**60}), "malformed-token"),
        (issuer.sign({**good, "task_id": {"id": "hle"}}), "claim-invalid:task_id"),
        (issuer.sign({**good, "model_repo": ["acme/llama-9b"]}), "claim-invalid:model_repo"),
        (
            issuer.sign({**good, "metrics": [{"metric_id": "accuracy", "value": {"v": 20.9}}]}),
            "claim-invalid:metrics",
        ),
        (issuer.sign({**good, "metrics": {"accuracy": 20.9}}), "claim-invalid:metrics"),
        (issuer.sign({**good, "metrics": []}), "claim-invalid:metrics"),
        (
            issuer.sign({**good, "metrics": [{"metric_id": "accuracy", "value": 20.9, "x": 1}]}),
            "claim-invalid:metrics",
        ),
        (f"{head}.{b64(b'[1,2,3]')}.{b64(b'sig')}", "malformed-token"),
    ]
    for token, reason in cases:
        assert verdict(with_token(target, token), registry) == unverified(reason), reason[:40]


def test_an_unexpected_failure_is_internal_error_not_a_crash(
    issuer: SigningIssuer, target: dict[str, Any]
) -> None:
    def broken_fetcher(url: str) -> bytes:
        raise RuntimeError("a bug in a fetcher")

    registry = IssuerRegistry(
        policies_from_mapping(
            {
                "issuers": [
                    issuer.config(inline=False) | {"jwks_url": "https://tokens.example.org/jwks"}
                ]
            }
        ),
        fetcher=broken_fetcher,
    )
    token = issuer.token_for(entry_report(target))
    assert verdict(with_token(target, token), registry) == unverified("internal-error")


def test_token_verification_is_deterministic_across_spellings_of_the_token_key(
    issuer: SigningIssuer, registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    token = issuer.token_for(entry_report(target))
    snake = entry_report(target, token=token, token_key="verify_token")
    camel = entry_report(target, token=token, token_key="verifyToken")
    assert verdict(snake, registry) == verdict(camel, registry) == VERIFIED


def test_a_token_that_is_not_a_string_is_malformed(
    registry: IssuerRegistry, target: dict[str, Any]
) -> None:
    # The loader keeps YAML types: `verify_token: 12345` reaches the verifier as an int.
    report = entry_report(target, token=cast(str, 12345))
    assert verdict(report, registry) == unverified("malformed-token")
