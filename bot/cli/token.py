"""`evalbot token claims` and `evalbot token sign`: the reference way to obtain a verify token
(docs/verification.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("token", help="build claims for and sign verify tokens")
    actions = parser.add_subparsers(dest="token_command", metavar="ACTION", required=True)

    claims = actions.add_parser(
        "claims",
        help="print the canonical content claims of one entry",
        description="Validate FILE and print the content claims a token on entry N must carry.",
    )
    claims.add_argument("file", type=Path, metavar="FILE", help="a .eval_results/*.yaml file")
    claims.add_argument("--index", type=int, default=0, metavar="N", help="0-based entry index")
    claims.add_argument("--model-repo", required=True, metavar="ID")
    claims.add_argument("--benchmarks", type=Path, metavar="DIR", help="DIR/<org>/<name>/eval.yaml")
    claims.add_argument(
        "--framework",
        metavar="NAME",
        help="framework name to vouch for when the entry states none (live entries)",
    )
    claims.set_defaults(run=run_claims)

    sign = actions.add_parser(
        "sign",
        help="sign content claims as an issuer",
        description=(
            "Add iss, sub, iat, exp and jti to the content claims in CLAIMS (JSON, '-' for "
            "stdin) and print the compact EdDSA token."
        ),
    )
    sign.add_argument("--key", required=True, type=Path, metavar="FILE", help="private key PEM")
    sign.add_argument("--issuer", required=True, metavar="ISS")
    sign.add_argument("--kid", required=True, metavar="K")
    sign.add_argument("--claims", required=True, metavar="CLAIMS", help="claims JSON file or -")
    sign.add_argument("--subject", default="evalbot-cli", metavar="SUB", help="caller identity")
    sign.add_argument("--audience", metavar="AUD")
    sign.add_argument("--lifetime", type=int, default=900, metavar="SECONDS")
    sign.add_argument("--issued-at", type=int, metavar="EPOCH", help="default: now")
    sign.add_argument("--jti", metavar="ID", help="default: random")
    sign.set_defaults(run=run_sign)


def _fail(command: str, message: str) -> int:
    print(f"evalbot token {command}: {message}", file=sys.stderr)
    return 2


def run_claims(args: argparse.Namespace) -> int:
    from bot.adapters.benchmarks_dir import DirectoryBenchmarkSource
    from bot.tokens.claims import ClaimsUnavailable, claims_for_entry
    from bot.validation.validate import validate_results_files

    if args.benchmarks is None:
        return _fail("claims", "--benchmarks DIR is required offline")
    try:
        content = args.file.read_bytes()
    except OSError as error:
        return _fail("claims", f"cannot read {args.file}: {error}")
    reports = validate_results_files(
        {str(args.file): content}, DirectoryBenchmarkSource(args.benchmarks)
    )
    try:
        claims = claims_for_entry(
            reports[0], args.index, model_repo=args.model_repo, framework=args.framework
        )
    except (ClaimsUnavailable, IndexError) as error:
        return _fail("claims", str(error))
    print(json.dumps(claims, indent=2, ensure_ascii=False))
    return 0


def run_sign(args: argparse.Namespace) -> int:
    from bot.strictjson import I_JSON
    from bot.tokens.signer import (
        load_private_key,
        sign,
        token_claims,
        validate_content,
    )

    try:
        raw = sys.stdin.buffer.read() if args.claims == "-" else Path(args.claims).read_bytes()
        key = load_private_key(args.key.read_bytes())
    except OSError as error:
        return _fail("sign", str(error))
    except ValueError as error:
        return _fail("sign", f"{args.key}: {error}")
    try:
        content: Any = I_JSON.read(raw)
        validate_content(content)
    except ValueError as error:
        return _fail("sign", f"claims: {error}")
    issued_at = args.issued_at if args.issued_at is not None else int(time.time())
    claims = token_claims(
        content,
        issuer=args.issuer,
        subject=args.subject,
        issued_at=issued_at,
        lifetime_s=args.lifetime,
        audience=args.audience,
        jti=args.jti,
    )
    try:
        print(sign(claims, key=key, kid=args.kid))
    except ValueError as error:
        return _fail("sign", str(error))
    return 0
