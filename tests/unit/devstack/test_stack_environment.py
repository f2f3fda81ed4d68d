"""What environment `LocalStack` gives its children: the receiver's own overrides stay its own."""

from __future__ import annotations

from pathlib import Path

from evalbot_dev.devstack.stack import LocalStack, StackOptions
from tests.support.emulator import TOKENS, standard_state


def test_receiver_env_applies_after_env_and_to_the_receiver_only(tmp_path: Path) -> None:
    options = StackOptions(
        bot_token=TOKENS["evalbot"],
        redis_url="redis://127.0.0.1:6399/0",
        env={"EVALBOT_HUB_TIMEOUT": "3", "EVALBOT_LOG_LEVEL": "INFO"},
        receiver_env={"REDIS_URL": "redis://127.0.0.1:7000/0", "EVALBOT_HUB_TIMEOUT": "9"},
    )
    stack = LocalStack(standard_state(), tmp_path, options)
    children = stack.environment()
    receiver = stack.receiver_environment()
    assert children["REDIS_URL"] == "redis://127.0.0.1:6399/0"
    assert children["EVALBOT_HUB_TIMEOUT"] == "3"
    assert receiver["REDIS_URL"] == "redis://127.0.0.1:7000/0"
    assert receiver["EVALBOT_HUB_TIMEOUT"] == "9"
    assert receiver["EVALBOT_LOG_LEVEL"] == "INFO"  # `env` still applies to the receiver
    assert receiver["EVALBOT_WEBHOOK_SECRET"] == children["EVALBOT_WEBHOOK_SECRET"] == stack.secret
