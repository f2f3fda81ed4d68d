"""The issuer's keyring for real: `evalbot keys rotate` while `evalbot issuer` runs (no
restart), tokens signed before a rotation verifying until their key is retired, and an
issuer that refuses to start on a signing key others can read or it cannot load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from bot.tokens.jwks import parse_jwks
from evalbot_dev.devstack.issuer import IssuerProcess
from evalbot_dev.devstack.waiting import wait_until
from tests.integration.issuer.conftest import IssuerEnv

pytestmark = pytest.mark.integration


def published(env: IssuerEnv) -> set[str]:
    response = httpx.get(f"{env.issuer.url}/.well-known/jwks.json", timeout=10)
    assert response.headers["Cache-Control"] == "public, max-age=300"
    return set(parse_jwks(response.content))


def kid_of(token: str) -> str:
    return str(jwt.get_unverified_header(token)["kid"])


def signed(env: IssuerEnv) -> str:
    response = env.post(f"Bearer {env.id_token()}", env.body())
    assert response.status_code == 200, response.text
    return str(response.json()["tokens"][0]["verify_token"])


def rotate(keyring: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "keys", "rotate", "--keyring", str(keyring)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(json.loads(done.stdout)["keyring"])


def test_rotation_while_running_keeps_earlier_tokens_verifiable(env: IssuerEnv) -> None:
    before = signed(env)
    old = kid_of(before)
    state = json.loads((env.issuer.keyring_dir / "keyring.json").read_text())
    assert published(env) == {state["active"], state["next"]}

    first = rotate(env.issuer.keyring_dir)
    assert first["active"] == state["next"]
    assert first["previous"] == [old]

    def signed_with_another_key() -> str | None:
        token = signed(env)
        return token if kid_of(token) != old else None

    after = wait_until(
        signed_with_another_key,
        timeout=10,
        what="the running issuer to sign with the rotated key",
    )
    assert kid_of(after) == first["active"]
    keys = parse_jwks(httpx.get(f"{env.issuer.url}/.well-known/jwks.json", timeout=10).content)
    assert old in keys  # the token signed before the rotation still verifies
    jwt.decode(before, keys[old], algorithms=["EdDSA"], options={"verify_aud": False})

    second = rotate(env.issuer.keyring_dir)
    assert second["retired"] == [old]
    wait_until(lambda: old not in published(env), timeout=10, what="the old key retired")
    assert not (env.issuer.keyring_dir / f"{old}.pem").exists()


def start(issuer: IssuerProcess) -> subprocess.CompletedProcess[str]:
    """`evalbot issuer` expected to refuse to start (exit 2, the reason on stderr)."""
    listen, pass_fds = issuer.address.spawn_arguments()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bot", "issuer", *listen],
            env=issuer.environment(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            pass_fds=pass_fds,
        )
    finally:
        issuer.address.close()
    assert done.returncode == 2, done.stderr
    return done


def start_failure(tmp_path: Path, env: IssuerEnv, prepare: str) -> str:
    issuer = IssuerProcess(
        tmp_path, hub_url=env.hub.url, redis_url=env.issuer.redis_url, integrations=[]
    )
    issuer.write_config()
    state = json.loads((issuer.keyring_dir / "keyring.json").read_text())
    key = issuer.keyring_dir / f"{state['active']}.pem"
    if prepare == "world-readable":
        os.chmod(key, 0o644)
    elif prepare == "missing":
        key.unlink()
    else:
        key.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    done = start(issuer)
    assert str(key) in done.stderr
    assert "PRIVATE KEY" not in done.stderr
    return done.stderr


def test_a_signing_key_readable_by_others_stops_the_issuer(tmp_path: Path, env: IssuerEnv) -> None:
    stderr = start_failure(tmp_path, env, "world-readable")
    assert "readable by others" in stderr
    assert "chmod 600" in stderr


@pytest.mark.parametrize("prepare", ["missing", "garbage"])
def test_an_unreadable_signing_key_stops_the_issuer(
    tmp_path: Path, env: IssuerEnv, prepare: str
) -> None:
    assert "signing key" in start_failure(tmp_path, env, prepare)


def test_a_broken_integrations_file_stops_the_issuer_naming_its_line(
    tmp_path: Path, env: IssuerEnv
) -> None:
    issuer = IssuerProcess(tmp_path, hub_url=env.hub.url, redis_url=env.issuer.redis_url)
    issuer.write_config()
    issuer.integrations_file.write_text(
        "providers: []\nintegrations:\n  - name: x\n    frameworks: [lighteval]\n"
        "    identities:\n      - hub_user: alice\n        scope: write\n"
    )
    done = start(issuer)
    assert f"{issuer.integrations_file}: line 6: integrations[0].identities[0]" in done.stderr
    assert "unknown keys ['scope']" in done.stderr


def test_a_github_rule_pinning_no_owner_id_stops_the_issuer(tmp_path: Path, env: IssuerEnv) -> None:
    """A rule by names alone would pass to whoever registers the name after its owner left."""
    issuer = IssuerProcess(tmp_path, hub_url=env.hub.url, redis_url=env.issuer.redis_url)
    issuer.write_config()
    issuer.integrations_file.write_text(
        "providers:\n  - name: github\n    issuer: https://token.actions.githubusercontent.com\n"
        "integrations:\n  - name: x\n    frameworks: [lighteval]\n"
        '    benchmarks: ["*"]\n    models: ["*"]\n'
        "    identities:\n      - provider: github\n"
        "        claims: {repository: acme/evals, workflow_ref: acme/evals/e.yml@main}\n"
    )
    done = start(issuer)
    assert (
        f"{issuer.integrations_file}: line 10: integrations[0].identities[0].claims: "
        "pins no `repository_owner_id`"
    ) in done.stderr
