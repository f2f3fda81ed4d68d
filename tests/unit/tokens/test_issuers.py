"""`config/issuers.yaml`: the format of docs/verification.md, and every way an operator can get it
wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.adapters.issuers_file import load_issuers
from bot.botconfig.document import ConfigError
from bot.botconfig.files import load_bot_config
from bot.tokens.issuers import IssuerConfigError, IssuerRegistry, KeyNotFound, policies_from_mapping
from bot.tokens.jwks import JwksFetchError, check_jwks_url
from bot.tokens.signer import generate_private_key, public_jwk
from tests.conftest import REPO_ROOT

JWK = public_jwk(generate_private_key(), "k1")


def issuer_entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "issuer": "https://tokens.example.org",
        "keys": [JWK],
        "frameworks": ["inspect-ai"],
    }
    entry.update(changes)
    return {key: value for key, value in entry.items() if value is not None}


def test_the_design_example_loads_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "issuers.yaml"
    path.write_text(
        "issuers:\n"
        "  - issuer: https://tokens.example.org\n"
        "    audience: evalbot\n"
        "    keys:\n"
        f"      - {{kty: OKP, crv: Ed25519, kid: k1, x: {JWK['x']}}}\n"
        "    jwks_url: https://tokens.example.org/.well-known/jwks.json\n"
        "    frameworks: [inspect-ai, lighteval]\n"
        '    benchmarks: ["*"]\n'
        '    models: ["*"]\n'
        "    max_lifetime_s: 3600\n"
    )
    registry = load_issuers(path)
    policy = registry.policy("https://tokens.example.org")
    assert policy is not None
    assert policy.audience == "evalbot"
    assert policy.frameworks == ("inspect-ai", "lighteval")
    assert policy.max_lifetime_s == 3600
    assert registry.key("https://tokens.example.org", "k1") is policy.keys["k1"]


def test_the_shipped_default_trusts_no_one() -> None:
    assert load_bot_config(REPO_ROOT / "config" / "bot.yaml").issuers == ()


def test_an_issuer_error_in_bot_yaml_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text("maintainers: []\nissuers:\n  - issuer: https://i.example\n    keyz: []\n")
    with pytest.raises(ConfigError) as raised:
        load_bot_config(path)
    assert str(raised.value).startswith(f"{path}:3: ")
    assert "keyz" in str(raised.value)


def test_defaults_for_optional_fields() -> None:
    registry = IssuerRegistry(policies_from_mapping({"issuers": [issuer_entry()]}))
    policy = registry.policy("https://tokens.example.org")
    assert policy is not None
    assert (policy.benchmarks, policy.models, policy.audience) == (("*",), ("*",), None)
    assert policy.max_lifetime_s == 3600
    assert registry.policy("https://tokens.example.org/") is None
    with pytest.raises(KeyNotFound) as missing:
        registry.key("https://tokens.example.org", "k2")
    assert missing.value.reason == "kid-unknown"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"issuers": [issuer_entry(frameworks=None)]}, "frameworks"),
        ({"issuers": [issuer_entry(frameworks="inspect-ai")]}, "frameworks"),
        ({"issuers": [issuer_entry(keys=None)]}, "needs `keys`, `jwks_url`"),
        ({"issuers": [issuer_entry(keys=[{**JWK, "d": JWK["x"]}])]}, "private key"),
        ({"issuers": [issuer_entry(keys=[{**JWK, "crv": "Ed448"}])]}, "Ed25519"),
        ({"issuers": [issuer_entry(keys=[{**JWK, "kty": "RSA"}])]}, "Ed25519"),
        ({"issuers": [issuer_entry(keys=[{**JWK, "x": JWK["x"][:-3]}])]}, "32 bytes"),
        ({"issuers": [issuer_entry(keys=[{**JWK, "kid": "../k"}])]}, "kid"),
        ({"issuers": [issuer_entry(keys=[JWK, JWK])]}, "twice"),
        ({"issuers": [issuer_entry(), issuer_entry()]}, "configured twice"),
        ({"issuers": [issuer_entry(issuer="")]}, "issuer"),
        ({"issuers": [issuer_entry(audience=["a"])]}, "audience"),
        ({"issuers": [issuer_entry(max_lifetime_s="3600")]}, "max_lifetime_s"),
        ({"issuers": [issuer_entry(max_lifetime_s=0)]}, "max_lifetime_s"),
        ({"issuers": [issuer_entry(jwks_url="http://tokens.example.org/jwks")]}, "https only"),
        ({"issuers": [issuer_entry(jwks_url="file:///etc/passwd")]}, "https only"),
        ({"issuers": [issuer_entry(kid_policy="x")]}, "unknown keys"),
        ({"issuers": {"https://x": {}}}, "expected a list"),
        ({"trusted": []}, "one key"),
    ],
)
def test_configuration_errors_say_what_is_wrong(document: Any, message: str) -> None:
    with pytest.raises(IssuerConfigError, match=message):
        IssuerRegistry(policies_from_mapping(document))


def test_a_file_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "issuers.yaml"
    path.write_text(yaml.safe_dump({"issuers": [issuer_entry(frameworks=None)]}))
    with pytest.raises(IssuerConfigError, match=str(path)):
        load_issuers(path)
    path.write_text("issuers: [\n")
    with pytest.raises(IssuerConfigError, match="not valid YAML"):
        load_issuers(path)


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://tokens.example.org/jwks", True),
        ("http://127.0.0.1:8080/jwks", True),
        ("http://localhost/jwks", True),
        ("http://[::1]/jwks", True),
        ("http://tokens.example.org/jwks", False),
        ("ftp://tokens.example.org/jwks", False),
        ("file:///etc/passwd", False),
        ("data:application/json,{}", False),
        ("https:///jwks", False),
    ],
)
def test_jwks_urls(url: str, allowed: bool) -> None:
    if allowed:
        check_jwks_url(url)
    else:
        with pytest.raises(JwksFetchError):
            check_jwks_url(url)
