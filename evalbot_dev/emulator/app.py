"""The emulator assembled: state, faults, webhook dispatcher and the Starlette app serving them."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from evalbot_dev.emulator import admin, cdn, oauth
from evalbot_dev.emulator.delivery import DeliverySettings, Dispatcher
from evalbot_dev.emulator.faults import Faults
from evalbot_dev.emulator.http import HubRouter
from evalbot_dev.emulator.routes import all_routes
from evalbot_dev.emulator.state import HubState

_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]


class Emulator:
    """One emulated Hub. `endpoint` must be set (e.g. `http://127.0.0.1:PORT`) before serving,
    because payloads and URLs in answers are built from it.

    `app` serves the Hub; `asgi` serves the Hub and, on the port `cdn_port` names, the CDN
    origin LFS downloads are redirected to (one server, two listening sockets)."""

    def __init__(
        self, state: HubState | None = None, delivery: DeliverySettings | None = None
    ) -> None:
        self.state = state or HubState()
        self.endpoint = "http://127.0.0.1"
        self.faults = Faults()
        self.dispatcher = Dispatcher(self.state, lambda: self.endpoint, delivery)
        self.oauth = oauth.OAuthProvider()
        router = HubRouter(self.state, self.faults, all_routes(), lambda: self.endpoint)
        self.app = Starlette(
            routes=[
                *admin.routes(self),
                *oauth.routes(self),
                Route("/{anything:path}", router.handle, methods=_METHODS),
            ]
        )
        self.cdn_app = Starlette(routes=cdn.routes(self.state))
        self.cdn_port: int | None = None

    async def asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        server = scope.get("server")
        if self.cdn_port is not None and server is not None and server[1] == self.cdn_port:
            await self.cdn_app(scope, receive, send)
        else:
            await self.app(scope, receive, send)
