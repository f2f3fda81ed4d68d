"""Every message the Space's start-up prints, kept together."""

from __future__ import annotations

PREFIX = "evalbot-supervise"

NO_REDIS_BINARY = (
    "REDIS_URL is not set and no redis-server was found ({binary!r}); install redis-server "
    "or point REDIS_URL at a Redis"
)
INVALID_CONFIG = "{prefix}: invalid settings:\n  - {problems}"
