"""The web process's clients, built once from its configuration (fail fast on broken files)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import redis
from huggingface_hub import HfApi

from bot import store
from bot.adapters.issuers_file import bot_config_issuers
from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.adapters.mappings_file import load_mapping_table, mapping_files
from bot.adapters.policy_file import load_policy
from bot.configfiles import read_config
from bot.hub.client import HfHubClient, use_hub_timeout
from bot.queue.publishing import QUEUE
from bot.settings import SettingsError
from bot.tokens.issuers import IssuerRegistry
from bot.web.benchmarks import CachedHubBenchmarks
from bot.web.config import WebConfig
from bot.web.guards import OperatorGate, session_key
from bot.web.hubsignin import HubSignIn
from bot.web.operators import Operators, load_operators
from bot.web.page_context import WebContext
from bot.web.standing import load_collections

#: The advice a bad `docs_url` comes with.
DOCS_URL_FIX = 'see docs/web.md, "Settings"'


def load_docs_url(path: Path) -> str | None:
    """`docs_url:` of the bot config at `path`: where `docs/*.md` are published, for the
    landing page's links (None: their paths are shown); `ConfigError` when it is not an http
    or https URL."""
    if not path.exists():
        return None
    document = read_config(path, fix=DOCS_URL_FIX)
    data = document.data if isinstance(document.data, dict) else {}
    raw = data.get("docs_url")
    if raw is None:
        return None
    if not isinstance(raw, str) or urlsplit(raw.strip()).scheme not in ("http", "https"):
        raise document.error("docs_url", "`docs_url` must be an http or https URL")
    return raw.strip()


def build_context(config: WebConfig) -> WebContext:
    settings = config.settings
    client = redis.Redis.from_url(
        settings.redis_url,
        socket_timeout=store.REDIS_TIMEOUT_S,
        socket_connect_timeout=store.REDIS_TIMEOUT_S,
        health_check_interval=30,
    )
    use_hub_timeout(settings.hub_timeout_s)
    # Anonymous, not the bot's token: every Hub read a page makes (benchmarks for the
    # playground, a model's results for a standing) then sees what an anonymous visitor sees,
    # so no page shows a private repo the bot can read nor a gated repo's files it was granted.
    api = HfApi(endpoint=settings.hf_endpoint, token=False)
    hub = HfHubClient(api)
    # The playground verifies tokens the way `evalbot validate` does: jti bindings last one
    # request (in memory), so a pasted token is never bound, nor anything else written.
    registry = IssuerRegistry(
        bot_config_issuers(settings.bot_config_file), fetcher=HttpxJwksFetcher()
    )
    operators = load_operators(settings.bot_config_file)
    if config.signin is not None and not operators:
        raise SettingsError(
            f"{settings.bot_config_file}: OAuth sign-in is configured (OAUTH_CLIENT_ID) but "
            "`operators:` lists no Hub user or org, so no one could sign in (fix: add "
            'them, see docs/web.md, "Operators")'
        )
    key = session_key(config.signin.client_secret if config.signin else None, config.admin_token)
    signin = HubSignIn(config.signin, operators, key) if config.signin else None
    gate = OperatorGate(
        key,
        config.admin_token,
        operators if signin else Operators(),
        membership=signin.membership if signin else None,
    )
    return WebContext(
        redis=client,
        queue=QUEUE,
        hub_url=settings.hf_endpoint.rstrip("/"),
        bot_name=settings.bot_name,
        operators=gate,
        signin=signin,
        public_https=config.public_https,
        benchmarks=CachedHubBenchmarks(hub),
        registry=registry,
        policy=load_policy(settings.bot_config_file),
        sample_interval_s=config.sample_interval_s,
        playground_slots=config.playground_slots,
        playground_max_benchmarks=config.playground_max_benchmarks,
        docs_url=load_docs_url(settings.bot_config_file),
        collections=load_collections(settings.bot_config_file),
        results_reader=hub,
        mappings=load_mapping_table(mapping_files()),
    )
