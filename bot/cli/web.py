"""`evalbot web`: the bot's pages for people (docs/web.md), under uvicorn, beside the receiver.

A process of its own rather than routes in the receiver: the playground validates files of up
to 1 MiB and reads benchmarks from the Hub, work that would hold the receiver's event loop and
its CPU while webhooks wait for their 202 (docs/web.md, "Why a process of its own").
"""

from __future__ import annotations

import argparse
import os
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "web",
        help="serve the web pages: landing, validation playground, PR history, status",
        description="Serve the bot's web pages under uvicorn. Settings come from the "
        "environment, as for `evalbot serve` (docs/web.md).",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=8001, help="port (default: %(default)s)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn
    import yaml

    from bot.cli.collections_store import StoreError
    from bot.logs import configure_logging
    from bot.web.app import create_web_app
    from bot.web.config import WebConfig
    from bot.web.context import build_context

    try:
        config = WebConfig.from_env(os.environ)
        context = build_context(config, docs_url=os.environ.get("EVALBOT_WEB_DOCS_URL"))
    except (StoreError, yaml.YAMLError, OSError, ValueError) as error:  # settings, config files
        print(f"evalbot web: {error}", file=sys.stderr)
        return 2
    configure_logging(config.settings.log_level)
    uvicorn.run(
        create_web_app(context),
        host=args.host,
        port=args.port,
        log_config=None,
        access_log=False,  # a query string may carry what a user typed; nothing is logged
        server_header=False,
        lifespan="on",
    )
    return 0
