"""The worker's issuer registry takes its JWKS refetch cooldown from the settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis
import yaml

from bot.settings import Settings
from bot.tokens.signer import public_jwk
from evalbot_dev.devstack.redis import RedisServer
from evalbot_dev.devstack.signing import LocalIssuer
from tests.support.jwks_server import Answer, running_jwks_server
from workers.runtime import build_runtime

pytestmark = pytest.mark.integration


def test_the_refetch_cooldown_is_the_configured_interval(
    tmp_path: Path, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("workers.runtime.REFETCH_INTERVAL_S", 37.0)
    signer = LocalIssuer()
    with running_jwks_server() as jwks:
        document = {"keys": [public_jwk(signer.key, signer.kid)]}
        jwks.respond(Answer(body=json.dumps(document).encode()))
        issuers = {
            "issuers": [
                {"issuer": signer.issuer, "jwks_url": jwks.url(), "frameworks": ["inspect-ai"]}
            ]
        }
        (tmp_path / "bot.yaml").write_text(yaml.safe_dump(issuers))
        settings = Settings.from_env(
            {
                "HF_TOKEN": "hf_test",
                "HF_ENDPOINT": "http://127.0.0.1:9",
                "REDIS_URL": redis_server.url,
                "EVALBOT_WEBHOOK_SECRET": "s",
                "EVALBOT_BOT_NAME": "evalbot",
                "EVALBOT_CONFIG_DIR": str(tmp_path),
            }
        )
        runtime = build_runtime(settings)
        try:
            assert runtime.registry.key(signer.issuer, signer.kid) is not None
            assert jwks.fetches == 1
        finally:
            runtime.redis.close()
    client = redis.Redis.from_url(redis_server.url)
    try:
        ttl = client.ttl(f"evalbot:jwks:refetch:{signer.issuer}")
    finally:
        client.close()
    assert 30 < ttl <= 37
