"""The benchmark policy read from the `policy:` section of `config/bot.yaml`, for the workers,
the web pages and the CLI: one reader, so all judge results files under the same rules and
name the same file and line when it is wrong."""

from __future__ import annotations

from pathlib import Path

from bot.configfiles import ConfigDocument, read_config
from bot.validation.validate import DEFAULT_POLICY, Policy, PolicyError, policy_from_mapping

POLICY_FIX = 'see docs/validate.md, "Benchmark policy"'


def load_policy(bot_config: Path) -> Policy:
    """The policy in `bot_config`'s `policy:` section; the default policy when the file does
    not exist or has no such section. Raises `ConfigError` naming the file and the line of
    the first problem."""
    if not bot_config.exists():
        return DEFAULT_POLICY
    return policy_of(read_config(bot_config, fix=POLICY_FIX))


def policy_of(document: ConfigDocument) -> Policy:
    """The `policy:` section of a read `config/bot.yaml`."""
    data = document.data if isinstance(document.data, dict) else {}
    try:
        return policy_from_mapping(data.get("policy"), section="policy.")
    except PolicyError as error:
        raise document.error_from(error, POLICY_FIX) from error
