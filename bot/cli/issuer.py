"""`evalbot issuer` (the token issuer under uvicorn), `evalbot issuer client-secret` and
`evalbot issuer identity [FILE]` (docs/issuer.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

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
        choices=["serve", "client-secret", "identity"],
        default="serve",
        help="serve (default); client-secret: print a new client secret and its sha256 for "
        "the config; identity: print the rule, with its ids, for the job whose ID token (or "
        "claims as JSON) is in FILE or on stdin",
    )
    parser.add_argument("file", nargs="?", metavar="FILE", help="for identity: default stdin")
    parser.add_argument(
        "--provider", metavar="NAME", help="for identity: the providers[].name to write"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.action == "client-secret":
        from bot.issuer.clientauth import new_client_secret

        secret, digest = new_client_secret()
        print(f"client_secret: {secret}\nclient_secret_sha256: {digest}")
        return 0

    if args.action == "identity":
        return _identity(args.file, args.provider)
    if args.file is not None or args.provider is not None:
        print("evalbot issuer: FILE and --provider are for `identity` only", file=sys.stderr)
        return 2
    # client-secret and identity run on the user install; serving needs the server extra
    from bot.server_extra import server_refusal

    if (refusal := server_refusal("evalbot issuer")) is not None:
        print(refusal, file=sys.stderr)
        return 2

    from bot.httpguards import BODY_TIMEOUT_S
    from bot.issuer.configfile import ConfigError
    from bot.issuer.settings import IssuerSettings
    from bot.issuer.wiring import StartupError, build
    from bot.logs import configure_logging
    from bot.settings import SettingsError

    try:
        settings = IssuerSettings.from_env(os.environ)
        running = build(settings)
    except (SettingsError, ConfigError, StartupError) as error:
        print(f"evalbot issuer: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, non_blocking=True)
    try:
        # no access log: the audit log records every decision, without credentials; headers
        # trickled in are cut off as on the receiver's port (the app never hears of them)
        serve(running.app, args, lifespan="auto", header_timeout_s=BODY_TIMEOUT_S)
    finally:
        running.audit.close()
    return 0


def _identity(path: str | None, provider: str | None) -> int:
    from bot.issuer.rules import ClaimsUnreadable, identity_rule, read_claims

    source = path or "stdin"
    try:
        text = sys.stdin.read() if path in (None, "-") else Path(path).read_text("utf-8")
        print(identity_rule(read_claims(text), provider), end="")
    except OSError as error:
        print(f"evalbot issuer identity: {source}: {error.strerror}", file=sys.stderr)
        return 2
    except ClaimsUnreadable as error:
        print(f"evalbot issuer identity: {source}: {error}", file=sys.stderr)
        return 2
    return 0
