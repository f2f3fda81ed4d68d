"""How `serve`, `web` and `issuer` listen (`--host`/`--port`, or `--fd`) and run under uvicorn:
our logging, no access log, no `server` header (docs/operating.md, "Running")."""

from __future__ import annotations

import argparse
import socket
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from starlette.responses import Response
    from starlette.types import ASGIApp

    from bot.settings import Settings

from bot.sockets import LOOPBACK
from bot.sockets import inherited_socket as _inherited

__all__ = ["add_fd_argument", "add_listen_arguments", "inherited_socket", "serve"]


def add_listen_arguments(parser: argparse.ArgumentParser, *, port: int) -> None:
    parser.add_argument("--host", default=LOOPBACK, help="address to bind (default: %(default)s)")
    parser.add_argument("--port", type=int, default=port, help="port (default: %(default)s)")
    add_fd_argument(parser)


def add_fd_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fd",
        type=int,
        default=None,
        metavar="N",
        help="serve on the listening TCP socket inherited as file descriptor N "
        "(instead of binding --host and --port)",
    )


def inherited_socket(args: argparse.Namespace) -> socket.socket | None:
    """The socket `--fd` names, if any (`bot.sockets.inherited_socket`)."""
    return _inherited(args.fd)


def guarded(app: ASGIApp, settings: Settings, *, styled: bool) -> ASGIApp:
    """`app` behind the slow-body guard (`bot.httpguards`): bodies must arrive within
    `BODY_TIMEOUT_S`, and one address may send only a few at once. `styled`: the
    refusals are the pages' error page (a person reads them), else plain text."""
    from starlette.responses import PlainTextResponse

    from bot.httpguards import BODY_TIMEOUT_S, SlowBodyGuard
    from bot.web.errorpage import REFUSALS, error_page

    def refuse(status: int) -> Response:
        if styled:
            return error_page(status, bot_name=settings.bot_name, hub_url=settings.hf_endpoint)
        return PlainTextResponse(REFUSALS[status][0], status_code=status)

    return SlowBodyGuard(app, timeout_s=BODY_TIMEOUT_S, refuse=refuse)


def serve(
    app: Any,
    args: argparse.Namespace,
    *,
    lifespan: Literal["auto", "on", "off"] = "on",
    header_timeout_s: float | None = None,
) -> None:
    """Run `app` under uvicorn on `args.host`:`args.port`, or on the `--fd` socket, until the
    process is told to stop. Exits with uvicorn's status 3 when the app did not start.
    `header_timeout_s`: a connection whose request headers are not all in by then is closed
    (`bot.httpguards`)."""
    import uvicorn

    extra: dict[str, Any] = {}
    if header_timeout_s is not None:
        from bot.httpguards import header_deadline_protocol

        extra["http"] = header_deadline_protocol(header_timeout_s)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_config=None,
        access_log=False,
        server_header=False,
        lifespan=lifespan,
        **extra,
    )
    server = uvicorn.Server(config)
    sock = inherited_socket(args)
    server.run(sockets=[sock] if sock is not None else None)
    if not server.started:
        raise SystemExit(3)
