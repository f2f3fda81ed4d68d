"""The web process's clients, built once from its configuration (fail fast on broken files)."""

from __future__ import annotations

import redis
from huggingface_hub import HfApi

from bot import store
from bot.adapters.jwks_http import HttpxJwksFetcher
from bot.adapters.mappings_file import load_mapping_table, mapping_files
from bot.botconfig.sections import Operators
from bot.hub.client import HfHubClient
from bot.hub.timeouts import use_hub_timeout
from bot.queue.publishing import QUEUE
from bot.settings import SettingsError
from bot.tokens.issuers import IssuerRegistry
from bot.web.benchmarks import CachedHubBenchmarks
from bot.web.config import WebConfig
from bot.web.guards import OperatorGate, session_key
from bot.web.hubsignin import HubSignIn
from bot.web.page_context import WebContext
from bot.web.standing import load_collections


def build_context(config: WebConfig) -> WebContext:
    settings = config.settings
    bot = settings.bot
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
    registry = IssuerRegistry(bot.issuers, fetcher=HttpxJwksFetcher())
    operators = bot.operators
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
        policy=bot.policy,
        sample_interval_s=config.sample_interval_s,
        playground_slots=config.playground_slots,
        playground_max_benchmarks=config.playground_max_benchmarks,
        docs_url=bot.docs_url,
        collections=load_collections(bot.campaign),
        results_reader=hub,
        mappings=load_mapping_table(mapping_files()),
    )
