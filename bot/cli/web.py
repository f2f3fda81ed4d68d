"""`evalbot web`: the bot's pages for people under uvicorn, a process of its own beside the
receiver (docs/web.md, "Why a process of its own")."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from bot.cli.serving import add_listen_arguments, serve


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "web",
        help="serve the web pages: landing, validation playground, PR history, status",
        description="Serve the bot's web pages under uvicorn. Settings come from the "
        "environment, as for `evalbot serve` (docs/web.md).",
    )
    add_listen_arguments(parser, port=8001)
    parser.set_defaults(run=run, needs_server=True)


def run(args: argparse.Namespace) -> int:
    import yaml

    from bot.accesslog import RouteLog
    from bot.adapters.collections_store import StoreError
    from bot.cli.serving import guarded
    from bot.cli.sources import UsageError
    from bot.httpguards import BODY_TIMEOUT_S
    from bot.logs import configure_logging
    from bot.web.app import create_web_app
    from bot.web.config import WebConfig
    from bot.web.wiring import build_context

    try:
        config = WebConfig.from_env(os.environ)
        context = build_context(config)
    except (StoreError, UsageError, yaml.YAMLError, OSError, ValueError) as error:  # config
        print(f"evalbot web: {error}", file=sys.stderr)
        return 2
    configure_logging(config.settings.log_level)
    app = create_web_app(context)
    # No access log: a path or query carries what a visitor typed; one line per request names
    # the route instead (bot.accesslog).
    logged = RouteLog(app, app.routes, logging.getLogger("evalbot.web"))
    serve(
        guarded(logged, config.settings, styled=True),
        args,
        header_timeout_s=BODY_TIMEOUT_S,
    )
    return 0
