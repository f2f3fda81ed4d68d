"""What `evalbot parked` and `evalbot replay` share: settings and a Redis client for an operator."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import redis

    from bot.settings import Settings
    from bot.store.deadletters import ParkedEvent


def connect(command: str) -> tuple[Settings, redis.Redis] | None:
    """Settings from the environment and a Redis client; None (after saying why) on failure."""
    import redis as redis_module

    from bot import store
    from bot.settings import Settings, SettingsError

    try:
        # the environment alone: parked events are listed and replayed whatever the bot
        # config file says (the workers that run them read it)
        settings = Settings.from_env(os.environ, read_bot_config=False)
    except SettingsError as error:
        print(f"evalbot {command}: {error}", file=sys.stderr)
        return None
    client = redis_module.Redis.from_url(
        settings.redis_url,
        socket_timeout=store.REDIS_TIMEOUT_S * 5,
        socket_connect_timeout=store.REDIS_TIMEOUT_S,
    )
    return settings, client


def describe(parked: ParkedEvent) -> str:
    """`repo#num kind (delivery id)` of a parked event, or why it is not one."""
    from bot.cli import command_texts

    event = parked.event
    if event is None:
        return command_texts.PARKED_NOT_AN_EVENT
    what = f"{event.repo_id}#{event.pr_num} {event.kind}"
    if event.command:
        what += f" {event.command}"
    return f"{what}  (delivery {event.delivery_id})"
