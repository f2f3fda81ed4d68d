"""The emulator's listening socket: bound before it serves, or inherited as `--fd N`.

The emulator plays the Hub, so it shares no code with the product it stands in for (a helper
shared with evalbot would hide evalbot's bugs behind the emulator's); these few lines are its
own, as the Hub's server is its own.
"""

from __future__ import annotations

import argparse
import socket


def listening_socket(port: int = 0, host: str = "127.0.0.1") -> socket.socket:
    """A TCP socket bound to `host`:`port` (0: any free port) and listening. `SO_REUSEADDR`
    lets a restart take the port of a server just stopped; `IPPROTO_TCP` lets asyncio set
    TCP_NODELAY on accepted connections (without it, each answer waits for an ACK)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    return sock


def add_fd_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fd",
        type=int,
        default=None,
        metavar="N",
        help="serve on the listening TCP socket inherited as file descriptor N "
        "(instead of binding --host and --port)",
    )


def inherited_socket(args: argparse.Namespace) -> socket.socket | None:
    """The socket `--fd` names, if any."""
    return socket.socket(fileno=args.fd) if args.fd is not None else None
