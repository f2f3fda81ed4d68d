"""Emulator fixtures, shared with the bot's end-to-end tests through `tests.support.emulator`."""

from tests.support.emulator import emulated_hub, hub_env, webhook_receiver

__all__ = ["emulated_hub", "hub_env", "webhook_receiver"]
