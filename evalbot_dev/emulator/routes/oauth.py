"""`POST /oauth/token`: the Trusted Publishers token exchange (evalbot_dev.emulator.publishers)."""

from __future__ import annotations

import asyncio
import logging

from starlette.responses import Response

from evalbot_dev.emulator import publishers, texts
from evalbot_dev.emulator.http import Ctx, json_response, route

logger = logging.getLogger(__name__)


@route("POST", "/oauth/token", "oauth.token")
async def token_exchange(ctx: Ctx) -> Response:
    body = await ctx.json_body()
    try:
        # The issuer's JWKS is fetched over HTTP: off the event loop.
        answer = await asyncio.to_thread(publishers.exchange, ctx.state, body, ctx.endpoint)
    except publishers.ExchangeRefused as refused:
        # The reason stays in the emulator's log; the caller learns nothing about which part
        # of a registration failed, as on the Hub.
        logger.info("token exchange refused: %s", refused)
        return json_response(
            {"error": "invalid_grant", "error_description": texts.EXCHANGE_REFUSED}, status=400
        )
    return json_response(answer)


ROUTES = [token_exchange]
