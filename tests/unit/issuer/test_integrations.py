"""integrations.yaml: exact-claim matching, and errors that name the file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.issuer.configfile import ConfigError
from bot.issuer.identity import Identity
from bot.issuer.integrations import EVENTS_NAMED_ONLY, IntegrationsConfig, load_integrations

GOOD = """\
providers:
  - name: github
    issuer: https://token.actions.githubusercontent.com
integrations:
  - name: acme
    frameworks: [lighteval]
    identities:
      - provider: github
        claims:
          repository_owner_id: 1001
          repository_id: "2002"
          repository: acme/evals
          environment: release
      - hub_user: acme-bot
    benchmarks: ["*"]
    models: ["acme/*"]
    orgs: [acme]
  - name: other
    frameworks: [inspect-ai]
    identities:
      - hub_user: acme-bot
    benchmarks: []
    models: ["*"]
"""


def load(tmp_path: Path, text: str) -> IntegrationsConfig:
    path = tmp_path / "integrations.yaml"
    path.write_text(text)
    return load_integrations(path)


def github(**claims: str) -> Identity:
    ids = {"repository_owner_id": "1001", "repository_id": "2002"}
    return Identity(kind="oidc", name="repo:x", provider="github", claims={**ids, **claims})


def test_claims_match_exactly_and_every_listed_claim_is_required(tmp_path: Path) -> None:
    config = load(tmp_path, GOOD)
    matched = config.match(github(repository="acme/evals", environment="release"))
    assert matched is not None
    assert matched.name == "acme"
    assert config.match(github(repository="acme/evals")) is None  # environment missing
    assert config.match(github(repository="ACME/evals", environment="release")) is None
    assert config.match(github(repository="acme/evals-x", environment="release")) is None


def test_a_name_registered_again_by_someone_else_does_not_match(tmp_path: Path) -> None:
    """The owner deleted, its name taken by another account: same names, new ids."""
    config = load(tmp_path, GOOD)
    reborn = github(
        repository="acme/evals",
        environment="release",
        repository_owner_id="9999",
        repository_id="8888",
    )
    assert config.match(reborn) is None
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
            "providers:\n  - name: g\n    issuer: https://g.example\n    type: other\n"
            "    algorithms: [HS256]\n",
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
            "providers:\n  - name: g\n    issuer: https://g.example\n    type: other\n"
            "integrations:\n  - name: x\n    frameworks: [a]\n    identities:\n"
            "      - provider: g\n        claims: {environment: release, ref: refs/heads/main}\n",
            "line 9: integrations[0].identities[0].claims: pins no claim naming the workload",
        ),
        ("providers: []\nproviders: []\n", "line 2: duplicate key 'providers'"),
        # YAML 1.1 reads these as 83 and 11420: an id pinned so would be another one
        (
            "integrations:\n  - name: x\n    identities:\n      - provider: github\n"
            "        claims: {repository_owner_id: 0123}\n",
            "line 5: '0123' is read as an integer in another notation than decimal",
        ),
        (
            "integrations:\n  - name: x\n    identities:\n      - provider: github\n"
            "        claims:\n          repository_owner_id: 190:20\n",
            "line 6: '190:20' is read as an integer in another notation than decimal",
        ),
        (
            "providers:\n  - name: g\n    issuer: http://127.0.0.1.evil.example\n    type: other\n",
            "line 2: providers[0].issuer: expected an https URL",
        ),
        (
            "providers:\n  - name: g\n    issuer: http://127.0.0.1@evil.example\n    type: other\n",
            "line 2: providers[0].issuer: expected an https URL",
        ),
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


PINNED_HEAD = """\
providers:
  - name: github
    issuer: https://token.actions.githubusercontent.com
  - name: gitlab
    issuer: https://gitlab.com
  - name: ghes
    issuer: https://github.example.org/_services/token
    type: github
integrations:
  - name: x
    frameworks: [a]
    benchmarks: ["*"]
    models: ["*"]
    identities:
"""


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            "      - provider: github\n        claims: {repository: acme/evals}\n",
            "line 15: integrations[0].identities[0].claims: pins no `repository_owner_id`",
        ),
        (
            "      - provider: ghes\n        claims: {repository: acme/evals, repository_id: 5}\n",
            "line 15: integrations[0].identities[0].claims: pins no `repository_owner_id`",
        ),
        (
            "      - provider: gitlab\n        claims: {project_path: acme/evals, project_id: 7}\n",
            "line 15: integrations[0].identities[0].claims: pins no `namespace_id`",
        ),
        (
            "      - provider: github\n"
            "        claims: {repository: acme/evals, repository_owner_id: acme}\n",
            "claims.repository_owner_id: expected a numeric id, not 'acme'",
        ),
    ],
)
def test_github_and_gitlab_rules_must_pin_the_owner_id(
    tmp_path: Path, rule: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as error:
        load(tmp_path, PINNED_HEAD + rule)
    assert expected in str(error.value)
    assert "evalbot issuer identity" in str(error.value) or "numeric id" in expected


def test_ids_may_be_written_as_yaml_integers(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        PINNED_HEAD
        + "      - provider: gitlab\n        claims: {namespace_id: 72, project_id: 20}\n",
    )
    (matcher,) = config.integrations[0].matchers
    assert matcher.claims == {"namespace_id": "72", "project_id": "20"}


def test_a_provider_at_an_unknown_issuer_states_its_type(tmp_path: Path) -> None:
    text = "providers:\n  - name: ghes\n    issuer: https://github.example.org/_services/token\n"
    with pytest.raises(ConfigError, match=r"line 2: providers\[0\]\.type: expected"):
        load(tmp_path, text)
    wrong = "providers:\n  - name: g\n    issuer: https://gitlab.com\n    type: github\n"
    with pytest.raises(ConfigError, match="is a gitlab issuer, not github"):
        load(tmp_path, wrong)


def test_a_github_enterprise_issuer_is_github_and_pins_the_owner_id(tmp_path: Path) -> None:
    """GitHub's per-enterprise issuer sends GitHub's claims: as `type: other` it pinned no id."""
    issuer = "https://token.actions.githubusercontent.com/acme-enterprise"
    rule = (
        "integrations:\n  - name: x\n    frameworks: [a]\n    identities:\n"
        "      - provider: g\n        claims: {repository: acme/evals}\n"
        '    benchmarks: ["*"]\n    models: ["*"]\n'
    )
    other = f"providers:\n  - name: g\n    issuer: {issuer}\n    type: other\n"
    with pytest.raises(ConfigError, match="is a github issuer, not other"):
        load(tmp_path, other + rule)
    untyped = f"providers:\n  - name: g\n    issuer: {issuer}\n"
    with pytest.raises(ConfigError, match="pins no `repository_owner_id`"):
        load(tmp_path, untyped + rule)


@pytest.mark.parametrize("gate", ["benchmarks", "models"])
def test_a_missing_gate_stops_the_start(tmp_path: Path, gate: str) -> None:
    """A gate left out used to mean `*` without a word."""
    text = GOOD.replace(f"    {gate}: " + ('["*"]' if gate == "benchmarks" else '["acme/*"]'), "")
    with pytest.raises(ConfigError) as error:
        load(tmp_path, text)
    assert f"line 5: integrations[0].{gate}: missing" in str(error.value)
    assert f'`{gate}: ["*"]`' in str(error.value)


def test_an_empty_gate_allows_nothing(tmp_path: Path) -> None:
    """`benchmarks: []` used to load as `*`."""
    (_, other) = load(tmp_path, GOOD).integrations
    assert other.benchmarks == ()
    assert not other.allows_benchmark("cais/hle")
    assert other.allows_model("anyone/model")
    empty_models = load(tmp_path, GOOD.replace('models: ["*"]', "models: []")).integrations[1]
    assert not empty_models.allows_model("anyone/model")
    empty_orgs = load(tmp_path, GOOD.replace("orgs: [acme]", "orgs: []")).integrations[0]
    assert not empty_orgs.allows_model("acme/llama")


def test_hub_scopes_is_refused_with_what_to_do(tmp_path: Path) -> None:
    text = GOOD.replace(
        "      - hub_user: acme-bot\n    benchmarks: []",
        "      - hub_user: acme-bot\n        hub_scopes: [repo.write]\n    benchmarks: []",
    )
    with pytest.raises(ConfigError, match=r"hub_scopes: no longer read.*remove this line"):
        load(tmp_path, text)


@pytest.mark.parametrize("event", sorted(EVENTS_NAMED_ONLY))
def test_runs_of_events_outsiders_steer_are_refused_unless_a_rule_names_them(
    tmp_path: Path, event: str
) -> None:
    config = load(tmp_path, GOOD)
    run = github(repository="acme/evals", environment="release", event_name=event)
    push = github(repository="acme/evals", environment="release", event_name="push")
    acme = config.integrations[0]
    assert config.match(run) is acme
    assert acme.refused_event(run) == event
    assert acme.refused_event(push) is None
    named = load(
        tmp_path,
        GOOD.replace(
            "          environment: release\n",
            f"          environment: release\n          event_name: {event}\n",
        ),
    ).integrations[0]
    assert named.refused_event(run) is None


def test_allow_pull_request_target_is_refused_with_what_to_do(tmp_path: Path) -> None:
    text = GOOD.replace(
        "          environment: release\n",
        "          environment: release\n        allow_pull_request_target: true\n",
    )
    with pytest.raises(
        ConfigError, match=r"allow_pull_request_target: no longer read.*event_name: pull_request"
    ):
        load(tmp_path, text)


def test_the_shipped_example_loads() -> None:
    config = load_integrations(Path(__file__).parents[3] / "config" / "integrations.yaml")
    assert config.providers


def test_the_shipped_commented_example_loads_and_pins_ids(tmp_path: Path) -> None:
    shipped = (Path(__file__).parents[3] / "config" / "integrations.yaml").read_text()
    head = shipped[: shipped.index("integrations: []")]
    example = [line[2:] for line in shipped.splitlines() if line.startswith("#  ")]
    digest = "a" * 64
    text = (
        head
        + "integrations:\n"
        + "\n".join(example).replace("<`evalbot issuer client-secret` prints it>", digest)
    )
    (acme,) = load(tmp_path, text).integrations
    github_rule, gitlab_rule = acme.matchers[:2]
    assert github_rule.claims["repository_owner_id"] == "583231"
    assert gitlab_rule.claims["namespace_id"] == "72"
