"""The environment a process started by the dev stack (or a test) inherits.

A child must see only the settings it is given: never the developer's own `HF_TOKEN`,
`REDIS_URL` or `EVALBOT_*` (which would point a test at a real Hub or another Redis), nor a
Space's `SPACE_*` (which switch the image's entrypoint to the supervisor). Everything else
(`PATH`, `HOME`, locale...) passes through.
"""

from __future__ import annotations

import os

#: The prefixes of the variables that configure the bot (docs/operating.md, docs/deploy.md).
BOT_PREFIXES = ("EVALBOT_", "HF_", "REDIS_", "SPACE_")


def inherited_environment() -> dict[str, str]:
    """This process's environment without any variable that configures the bot."""
    return {key: value for key, value in os.environ.items() if not key.startswith(BOT_PREFIXES)}
