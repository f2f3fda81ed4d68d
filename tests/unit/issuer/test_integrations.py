"""integrations.yaml: exact-claim matching, and errors that name the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.issuer.configfile import ConfigError
from bot.issuer.identity import Identity
from bot.issuer.integrations import IntegrationsConfig, load_integrations

GOOD = """\
providers:
  - name: github
    issuer: https://token.actions.githubusercontent.com
integrations:
  - name: acme
    frameworks: [lighteval]
    identities:
      - provider: github
        claims: {repository: acme/evals, environment: release}
      - hub_user: acme-bot
    models: ["acme/*"]
    orgs: [acme]
  - name: other
    frameworks: [inspect-ai]
    identities:
      - hub_user: acme-bot
"""


def load(tmp_path: Path, text: str) -> IntegrationsConfig:
    path = tmp_path / "integrations.yaml"
    path.write_text(text)
    return load_integrations(path)


def github(**claims: str) -> Identity:
    return Identity(kind="oidc", name="repo:x", provider="github", claims=claims)


def test_claims_match_exactly_and_every_listed_claim_is_required(tmp_path: Path) -> None:
    config = load(tmp_path, GOOD)
    matched = config.match(github(repository="acme/evals", environment="release"))
    assert matched is not None
    assert matched.name == "acme"
    assert config.match(github(repository="acme/evals")) is None  # environment missing
    assert config.match(github(repository="ACME/evals", environment="release")) is None
    assert config.match(github(repository="acme/evals-x", environment="release")) is None
    other_provider = Identity(
        kind="oidc", name="x", provider="gitlab", claims={"repository": "acme/evals"}
    )
    assert config.match(other_provider) is None


def test_an_identity_matching_two_integrations_gets_nothing(tmp_path: Path) -> None:
    config = load(tmp_path, GOOD)
    assert config.match(Identity(kind="hub", name="acme-bot")) is None


def test_model_policy_combines_orgs_and_globs(tmp_path: Path) -> None:
    (acme, _) = load(tmp_path, GOOD).integrations
    assert acme.allows_model("acme/llama")
    assert not acme.allows_model("evil/llama")
    assert acme.allows_benchmark("cais/hle")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("integrations: [{name: x}]\n", "line 1: integrations[0].identities: expected"),
        (
            "providers:\n  - name: g\n    issuer: https://g.example\n    algorithms: [HS256]\n",
            "line 2: providers[0].algorithms: ['HS256'] not allowed",
        ),
        (
            "integrations:\n  - name: x\n    frameworks: [a]\n    identities:\n"
            "      - provider: nowhere\n        claims: {a: b}\n",
            "line 5: integrations[0].identities[0].provider: 'nowhere' is not one of",
        ),
        (
            "integrations:\n  - name: x\n    frameworks: [a]\n    identities:\n"
            "      - client_id: c\n        client_secret_sha256: plain-secret\n",
            "client_secret_sha256: expected 64 lowercase hex digits",
        ),
        (
            "providers:\n  - name: g\n    issuer: https://g.example\n"
            "integrations:\n  - name: x\n    frameworks: [a]\n    identities:\n"
            "      - provider: g\n        claims: {environment: release, ref: refs/heads/main}\n",
            "line 8: integrations[0].identities[0].claims: pins no claim naming the workload",
        ),
        ("providers: []\nproviders: []\n", "line 2: duplicate key 'providers'"),
        ("integrations: [\n", "not valid YAML"),
        (
            "integrations:\n  - name: x\n    frameworks: [a]\n    token_lifetime_s: 86400\n"
            "    identities: [{hub_user: a}]\n",
            "token_lifetime_s: at most 3600",
        ),
    ],
)
def test_broken_files_name_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as error:
        load(tmp_path, text)
    assert str(error.value).startswith(str(tmp_path / "integrations.yaml"))
    assert expected in str(error.value)


def test_the_shipped_example_loads() -> None:
    config = load_integrations(Path(__file__).parents[3] / "config" / "integrations.yaml")
    assert config.providers
