"""`python -m evalbot_dev.emulator`: serve the local Hub emulator until interrupted.

A development tool, run from a checkout: the emulator is not part of the installed product."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType

from evalbot_dev.emulator.listen import add_fd_argument, inherited_socket
from evalbot_dev.emulator.seed import SAMPLE_STATE, StateFileError, load_benchmarks, load_state_file
from evalbot_dev.emulator.server import EmulatorServer


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evalbot_dev.emulator",
        description="Serve a local Hub emulator that huggingface_hub accepts via HF_ENDPOINT.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=7860, help="port to bind (default 7860)")
    add_fd_argument(parser)
    parser.add_argument(
        "--state",
        type=Path,
        default=None,
        help="YAML/JSON state file: users, orgs, tokens, seed repos (default: bundled samples)",
    )
    parser.add_argument(
        "--benchmarks",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also seed DIR/<org>/<name>/eval.yaml folders as benchmark datasets (repeatable)",
    )
    parser.add_argument("--log-level", default="info", help="uvicorn log level (default info)")
    return parser


def run(args: argparse.Namespace) -> int:
    try:
        loaded = load_state_file(args.state or SAMPLE_STATE)
        for folder in args.benchmarks:
            load_benchmarks(loaded.state, folder)
    except StateFileError as exc:
        print(f"emulator: {exc}", file=sys.stderr)
        return 2
    server = EmulatorServer(
        loaded.state,
        host=args.host,
        port=args.port,
        delivery=loaded.delivery,
        log_level=args.log_level,
        listen=inherited_socket(args),
    )
    for app in loaded.oauth_apps:
        server.emulator.oauth.add(app)
    # Before the server starts: a SIGTERM that arrives as soon as it answers must still end
    # in an orderly stop (exit 0), not in the default action.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.start()
    except OSError as exc:
        print(f"emulator: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        server.stop()
        return 0
    print(
        f"Hub emulator serving at {server.url} (HF_ENDPOINT={server.url}); Ctrl-C to stop\n"
        f"LFS downloads are redirected to its CDN origin at {server.cdn_url}",
        flush=True,
    )
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
