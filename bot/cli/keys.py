"""`evalbot keys generate`: an Ed25519 key pair for an issuer, public half printed as a JWK;
`evalbot keys rotate`: one rotation step of `evalbot issuer`'s keyring (docs/issuer.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("keys", help="manage issuer signing keys")
    actions = parser.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    generate = actions.add_parser(
        "generate",
        help="create an Ed25519 key pair; print the public JWK",
        description=(
            "Write a new Ed25519 private key (PKCS#8 PEM, mode 0600) and print its public JWK, "
            "to register inline in issuers.yaml or publish in the issuer's JWKS."
        ),
    )
    generate.add_argument("--kid", required=True, help="key id, 1-128 of [A-Za-z0-9._-]")
    generate.add_argument("--out-private", required=True, type=Path, metavar="FILE")
    generate.add_argument("--force", action="store_true", help="overwrite an existing FILE")
    generate.set_defaults(run=run_generate)
    rotate = actions.add_parser(
        "rotate",
        help="rotate the issuer's keyring (creating it if absent); print its public JWKS",
        description=(
            "next becomes active, active becomes previous (still published, so tokens signed "
            "before the rotation verify), previous is retired (unpublished, private key "
            "deleted), and a new next key is drawn. The running issuer picks it up by itself."
        ),
    )
    rotate.add_argument("--keyring", required=True, type=Path, metavar="DIR")
    rotate.add_argument(
        "--keep-previous",
        type=int,
        default=1,
        metavar="N",
        help="keys kept published after they stop signing (default: %(default)s, minimum 1)",
    )
    rotate.set_defaults(run=run_rotate)


def run_rotate(args: argparse.Namespace) -> int:
    from bot.issuer.keyring import KeyringError, load_keyring, rotate

    try:
        state = rotate(args.keyring, keep_previous=args.keep_previous)
        published = load_keyring(args.keyring).jwks()
    except (KeyringError, OSError) as error:
        print(f"evalbot keys rotate: {error}", file=sys.stderr)
        return 2
    print(json.dumps({"keyring": state, "jwks": published}, indent=2))
    return 0


def run_generate(args: argparse.Namespace) -> int:
    from bot.tokens.signer import (
        check_kid,
        generate_private_key,
        private_key_pem,
        public_jwk,
    )

    try:
        kid = check_kid(args.kid)
    except ValueError as error:
        print(f"evalbot keys generate: {error}", file=sys.stderr)
        return 2
    path: Path = args.out_private
    key = generate_private_key()
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if args.force else os.O_EXCL)
    try:
        descriptor = os.open(path, flags, 0o600)
    except FileExistsError:
        print(f"evalbot keys generate: {path} exists (use --force to replace it)", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"evalbot keys generate: cannot write {path}: {error}", file=sys.stderr)
        return 2
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(private_key_pem(key))
    os.chmod(path, 0o600)  # also when --force replaced a file that had wider permissions
    print(json.dumps(public_jwk(key, kid), indent=2))
    return 0
