"""`evalbot serve`: the webhook receiver under uvicorn, settings from the environment."""

from __future__ import annotations

import argparse
import os
import sys

from bot.cli.serving import add_listen_arguments, serve


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the webhook receiver (POST /webhooks/hub, /healthz, /readyz, /metrics)",
        description="Run the Hub webhook receiver under uvicorn. Settings come from the "
        "environment (docs/operating.md).",
    )
    add_listen_arguments(parser, port=8000)
    parser.add_argument(
        "--web-upstream",
        default=None,
        metavar="URL",
        help="forward every path the receiver does not serve to the local `evalbot web` at "
        "this http://127.0.0.1:PORT URL (one public port, as on a Space; the Space "
        "supervisor passes it)",
    )
    parser.set_defaults(run=run, needs_server=True)


def run(args: argparse.Namespace) -> int:
    from bot.cli.serving import guarded
    from bot.httpguards import BODY_TIMEOUT_S
    from bot.logs import configure_logging
    from bot.queue.enqueuer import RECHECK_INTERVAL_S, RedisEnqueuer
    from bot.queue.publishing import QUEUE
    from bot.receiver.app import create_app
    from bot.settings import Settings, SettingsError
    from bot.store import REDIS_TIMEOUT_S
    from bot.store.worker_counters import RedisWorkerStats
    from bot.web.forward import PageForwarder, checked_upstream

    try:
        # With the bot config: the receiver uses none of it, but a deployment whose workers
        # cannot start must not accept events either (docs/operating.md, "Start-up checks").
        settings = Settings.from_env(os.environ)
        upstream = checked_upstream(args.web_upstream)
    except SettingsError as error:
        print(f"evalbot serve: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, non_blocking=True)
    enqueuer = RedisEnqueuer(
        settings.redis_url,
        queue=QUEUE,
        timeout_s=REDIS_TIMEOUT_S,
        recheck_interval_s=RECHECK_INTERVAL_S,
    )
    # A scrape waits on Redis briefly: Prometheus keeps its own timeout for the whole scrape.
    worker_stats = RedisWorkerStats(
        settings.redis_url, queue=QUEUE, timeout_s=min(0.5, REDIS_TIMEOUT_S)
    )
    pages = (
        PageForwarder(
            upstream,
            body_timeout_s=BODY_TIMEOUT_S,
            bot_name=settings.bot_name,
            hub_url=settings.hf_endpoint,
        )
        if upstream is not None
        else None
    )
    app = create_app(settings, enqueuer, worker_stats=worker_stats, pages=pages)
    # No access log (bot.cli.serving): the receiver logs one structured line per delivery
    # itself, and an access log would record a `?secret=` some sender put in the URL; the
    # forwarded pages are logged by their own process, by route.
    serve(
        guarded(app, settings, styled=pages is not None),
        args,
        header_timeout_s=BODY_TIMEOUT_S,
    )
    return 0
