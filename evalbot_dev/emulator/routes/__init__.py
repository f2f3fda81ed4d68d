"""Route tables of the emulated Hub API, one module per area, in matching order."""

from __future__ import annotations

from evalbot_dev.emulator.http import HubRoute
from evalbot_dev.emulator.routes import (
    discussions,
    files,
    identity,
    leaderboard,
    repos,
    webhooks,
)


def all_routes() -> list[HubRoute]:
    # Specific API routes first; the model `resolve` route (no prefix) must come last.
    return (
        identity.ROUTES
        + webhooks.ROUTES
        + discussions.ROUTES
        + leaderboard.ROUTES
        + repos.ROUTES
        + files.ROUTES
    )
