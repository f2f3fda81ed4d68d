"""Property tests: no token, however mangled or strangely signed, crashes the verifier or
verifies by accident; every verdict carries a documented reason."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.tokens import reasons
from bot.tokens.binding import MemoryJtiBinder
from bot.tokens.checks import json_equal
from bot.tokens.issuers import IssuerRegistry, policies_from_mapping
from bot.tokens.verify import verify_entry
from bot.validation.model import Verification, VerificationStatus
from tests.support.tokens import (
    MODEL_REPO,
    NOW,
    TARGET_FILE,
    SigningIssuer,
    entries_from_yaml,
    entry_report,
)

ISSUER = SigningIssuer()
REGISTRY = IssuerRegistry(policies_from_mapping({"issuers": [ISSUER.config()]}))
DATA = entries_from_yaml(TARGET_FILE)[0]
GOOD_CLAIMS = ISSUER.claims_for(entry_report(DATA))
GOOD_TOKEN = ISSUER.sign(GOOD_CLAIMS)


def verdict_for(token: str) -> Verification:
    return verify_entry(
        entry_report(DATA, token=token),
        model_repo=MODEL_REPO,
        registry=REGISTRY,
        binder=MemoryJtiBinder(),
        at=datetime.fromtimestamp(NOW, tz=UTC),
    )


def decoded(token: str) -> tuple[bytes, ...] | None:
    """The three segments' bytes, for a token in compact form only (no padding, no junk)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", token):
        return None
    try:
        return tuple(base64.urlsafe_b64decode(part + "==") for part in token.split("."))
    except ValueError:
        return None


def assert_documented_refusal(result: Verification) -> None:
    assert result.status is VerificationStatus.UNVERIFIED
    assert result.reason is not None
    assert reasons.family_of(result.reason) in reasons.REASONS
    assert result.reason != reasons.INTERNAL_ERROR


def test_the_unmangled_token_verifies() -> None:
    assert verdict_for(GOOD_TOKEN) == Verification(VerificationStatus.VERIFIED)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    position=st.integers(min_value=0, max_value=len(GOOD_TOKEN) - 1),
    replacement=st.sampled_from(
        list("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.= \n+/\u00e9\x00")
    ),
)
def test_one_changed_character_never_verifies_unless_the_bytes_are_the_same(
    position: int, replacement: str
) -> None:
    mangled = GOOD_TOKEN[:position] + replacement + GOOD_TOKEN[position + 1 :]
    result = verdict_for(mangled)
    signing_input_kept = mangled.rsplit(".", 1)[0] == GOOD_TOKEN.rsplit(".", 1)[0]
    if signing_input_kept and decoded(mangled) == decoded(GOOD_TOKEN):
        # The signature's last character carries spare bits: a few spellings decode to the
        # same signature. (A respelled header or payload changes the signed input: refused.)
        assert result.status is VerificationStatus.VERIFIED
    else:
        assert_documented_refusal(result)


json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats()
    | st.text(max_size=12)
)
json_any = st.recursive(
    json_leaf,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)
content_names = st.sampled_from(
    [name for name in GOOD_CLAIMS if name not in {"iss", "sub", "iat", "exp", "jti"}]
)
any_names = st.sampled_from([*sorted(GOOD_CLAIMS), "nbf", "aud", "x"])


def signed_with(changes: dict[str, Any]) -> str:
    claims = {**GOOD_CLAIMS, **changes}
    return ISSUER.forge({"alg": "EdDSA", "kid": ISSUER.kid}, json.dumps(claims))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.dictionaries(content_names, json_any, min_size=1, max_size=3))
def test_any_signed_change_of_content_claims_is_refused(changes: dict[str, Any]) -> None:
    assume(any(not json_equal(value, GOOD_CLAIMS[name]) for name, value in changes.items()))
    assert_documented_refusal(verdict_for(signed_with(changes)))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.dictionaries(any_names, json_any, min_size=1, max_size=3))
def test_no_signed_claim_set_crashes_the_verifier(changes: dict[str, Any]) -> None:
    result = verdict_for(signed_with(changes))
    if result.status is not VerificationStatus.VERIFIED:
        assert_documented_refusal(result)


def test_a_respelled_payload_with_identical_bytes_is_still_refused() -> None:
    header, payload, signature = GOOD_TOKEN.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    respellings = [
        payload[:-1] + other
        for other in alphabet
        if other != payload[-1]
        and decoded(f"{header}.{payload[:-1] + other}.{signature}") == decoded(GOOD_TOKEN)
    ]
    if len(payload) % 4 == 0:  # no spare bits in this payload: nothing to respell
        assert respellings == []
    for respelled in respellings:
        result = verdict_for(f"{header}.{respelled}.{signature}")
        assert result == Verification(VerificationStatus.UNVERIFIED, "bad-signature")
