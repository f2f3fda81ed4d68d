"""How the bot's HTTP services listen: `evalbot serve`, `evalbot web` and `evalbot issuer`.

One place for what the three share: `--host` (loopback unless told) and `--port`, and how
uvicorn runs them. Our own logging handlers stay (`log_config=None`); uvicorn's access log is
off, because a URL's query string can carry what a sender or a user typed (a `?secret=` put
there by mistake, a playground's input) and each service logs its own structured line
instead; no `server` header names the software.
"""

from __future__ import annotations

import argparse
from typing import Any, Literal


def add_listen_arguments(parser: argparse.ArgumentParser, *, port: int) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=port, help="port (default: %(default)s)")


def serve(
    app: Any, args: argparse.Namespace, *, lifespan: Literal["auto", "on", "off"] = "on"
) -> None:
    """Run `app` under uvicorn on `args.host`:`args.port` until the process is told to stop."""
    import uvicorn

    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_config=None,
        access_log=False,
        server_header=False,
        lifespan=lifespan,
    )
