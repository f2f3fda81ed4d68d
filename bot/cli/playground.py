"""`evalbot playground`: the web pages' playground on loopback, reading none of the bot's
environment (docs/web.md, "On your computer")."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from typing import TYPE_CHECKING

from bot.cli import command_texts
from bot.cli.sources import add_offline_option

if TYPE_CHECKING:
    from starlette.responses import Response
    from starlette.types import ASGIApp

#: The names a loopback address goes by; any other `--host` is refused.
LOCAL_NAMES = ("localhost",)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "playground",
        help=command_texts.PLAYGROUND_HELP,
        description=command_texts.PLAYGROUND_DESCRIPTION,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="a loopback address to bind (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=8001, help="port (default: %(default)s)")
    parser.add_argument("--benchmarks", metavar="DIR", help=command_texts.BENCHMARKS_HELP)
    add_offline_option(parser)
    parser.set_defaults(run=run, fd=None, needs_server=True)


def is_loopback(host: str) -> bool:
    if host.lower() in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    if not is_loopback(args.host):
        print(command_texts.PLAYGROUND_NOT_LOOPBACK.format(host=args.host), file=sys.stderr)
        return 2
    from bot.cli.sources import UsageError
    from bot.logs import configure_logging

    try:
        app = _app(args)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    configure_logging("WARNING")
    from bot.cli.serving import serve
    from bot.httpguards import BODY_TIMEOUT_S

    host = f"[{args.host}]" if ":" in args.host else args.host
    print(command_texts.PLAYGROUND_READY.format(url=f"http://{host}:{args.port}/playground"))
    sys.stdout.flush()
    serve(app, args, lifespan="off", header_timeout_s=BODY_TIMEOUT_S)
    return 0


def _app(args: argparse.Namespace) -> ASGIApp:
    """The playground's app: the user's own configuration (policy, issuers, mapping table) and
    benchmarks (`--benchmarks DIR`, else `HF_ENDPOINT` through the Hugging Face cache, the
    cache alone with `--offline` or `HF_HUB_OFFLINE=1`) as `evalbot validate` reads them."""
    from huggingface_hub import constants
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from bot.adapters.jwks_http import HttpxJwksFetcher
    from bot.botconfig.document import ConfigError
    from bot.botconfig.files import working_bot_config
    from bot.cli.sources import UsageError, benchmark_source, mapping_table
    from bot.httpguards import BODY_TIMEOUT_S, SlowBodyGuard
    from bot.settings import SettingsError
    from bot.tokens.issuers import IssuerRegistry
    from bot.web.app import create_playground_app
    from bot.web.benchmarks import LocalBenchmarks
    from bot.web.errorpage import error_page
    from bot.web.guards import OperatorGate, session_key
    from bot.web.page_context import WebContext

    try:
        config = working_bot_config()
    except (SettingsError, ConfigError) as error:
        raise UsageError(f"evalbot playground: {error}") from error
    hub_url = constants.ENDPOINT.rstrip("/")
    try:
        # Anonymous, as the bot's pages read the Hub: a page served here shows only what
        # anyone may read, whatever token this computer holds.
        source = benchmark_source(args.benchmarks, offline=args.offline, anonymous=True)
    except UsageError as error:
        raise UsageError(str(error).replace("evalbot validate", "evalbot playground")) from error
    context = WebContext(
        redis=None,
        queue="",
        hub_url=hub_url,
        bot_name="evalbot",
        operators=OperatorGate(session_key()),  # no sign-in: no one is an operator
        benchmarks=LocalBenchmarks(source, hub_url=hub_url),
        registry=IssuerRegistry(config.issuers, fetcher=HttpxJwksFetcher()),
        policy=config.policy,
        mappings=mapping_table([], command="evalbot playground"),
    )
    app = create_playground_app(context)
    # A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) is refused.
    allowed = ["127.0.0.1", "localhost", "::1", "[::1]", args.host]
    trusted = TrustedHostMiddleware(app, allowed_hosts=allowed)

    def refuse(status: int) -> Response:
        return error_page(status, bot_name="evalbot", hub_url=hub_url)

    return SlowBodyGuard(trusted, timeout_s=BODY_TIMEOUT_S, refuse=refuse)
