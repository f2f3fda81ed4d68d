"""`evalbot issuer`: the token issuer under uvicorn (docs/issuer.md); and
`evalbot issuer client-secret`, which prints a new OAuth client secret and the hash to configure.
"""

from __future__ import annotations

import argparse
import os
import sys

from bot.cli.serving import add_listen_arguments, serve


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "issuer",
        help="run the token issuer (POST /v1/tokens, /.well-known/jwks.json)",
        description="Run the verify-token issuer under uvicorn. Settings come from the "
        "environment; integrations from config/integrations.yaml (docs/issuer.md).",
    )
    add_listen_arguments(parser, port=8100)
    parser.add_argument(
        "action",
        nargs="?",
        choices=["serve", "client-secret"],
        default="serve",
        help="serve (default), or print a new client secret and its sha256 for the config",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.action == "client-secret":
        from bot.issuer.clientauth import new_client_secret

        secret, digest = new_client_secret()
        print(f"client_secret: {secret}\nclient_secret_sha256: {digest}")
        return 0

    from bot.issuer.settings import IssuerSettings, SettingsError
    from bot.issuer.wiring import StartupError, build
    from bot.logs import configure_logging

    try:
        settings = IssuerSettings.from_env(os.environ)
        running = build(settings)
    except (SettingsError, StartupError) as error:
        print(f"evalbot issuer: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, non_blocking=True)
    try:
        # no access log: the audit log records every decision, without credentials
        serve(running.app, args, lifespan="auto")
    finally:
        running.audit.close()
    return 0
