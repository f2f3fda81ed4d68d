"""Every Hub request of the process bounded in time, whatever the call: the library's client
replaced by one whose `send` applies `EVALBOT_HUB_TIMEOUT` (docs/hub.md, "Errors")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx2
from huggingface_hub import set_client_factory
from huggingface_hub.utils._http import default_client_factory

from bot.hub.budget import count_request
from bot.hub.errors import HubTransientError
from bot.settings import DEFAULT_HUB_TIMEOUT_S, hub_timeout_from_env

#: A connection that takes this long is not going to be made.
MAX_CONNECT_TIMEOUT_S = 10.0


class BoundedClient(httpx2.Client):
    """An `httpx2.Client` on which no request can wait for ever."""

    def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        # None (no limit) or more than ours: ours. A shorter one the library chose stays.
        ours = self.timeout.as_dict()
        asked = request.extensions.get("timeout") or {}
        request.extensions["timeout"] = {
            kind: limit if (limit := asked.get(kind)) is not None and limit <= bound else bound
            for kind, bound in ours.items()
        }
        count_request()  # the run's budget (`bot.hub.budget`) sees every request
        try:
            return super().send(request, **kwargs)
        except httpx2.TimeoutException as error:
            limits = request.extensions["timeout"]
            raise HubTransientError(
                f"the Hub did not answer {request.method} {request.url.path} in time"
                f" ({type(error).__name__}; read timeout {limits.get('read')} s,"
                " EVALBOT_HUB_TIMEOUT)"
            ) from error
        except (httpx2.NetworkError, httpx2.RemoteProtocolError) as error:
            raise HubTransientError(f"Hub unreachable: {type(error).__name__}: {error}") from error


def bounded_client(timeout_s: float) -> BoundedClient:
    """A client like the library's default one (same hooks, redirects followed), bounded."""
    library_default = default_client_factory()
    try:
        hooks = {kind: list(hooks) for kind, hooks in library_default.event_hooks.items()}
        follow_redirects = library_default.follow_redirects
    finally:
        library_default.close()
    return BoundedClient(
        event_hooks=hooks,
        follow_redirects=follow_redirects,
        timeout=httpx2.Timeout(timeout_s, connect=min(timeout_s, MAX_CONNECT_TIMEOUT_S)),
    )


def use_hub_timeout_from_env(environ: Mapping[str, str]) -> None:
    """`use_hub_timeout` with `EVALBOT_HUB_TIMEOUT` from `environ`: for the commands that talk
    to the Hub without the bot's other settings (`evalbot validate`, `evalbot gate`). Raises
    `SettingsError` for a malformed value."""
    use_hub_timeout(hub_timeout_from_env(environ))


def use_hub_timeout(timeout_s: float = DEFAULT_HUB_TIMEOUT_S) -> None:
    """Make every Hub request of this process bounded by `timeout_s` (module docstring).

    Set through the library's own client factory, so a client it rebuilds (it closes its
    session after a connection error) is bounded too.
    """
    set_client_factory(lambda: bounded_client(timeout_s))
