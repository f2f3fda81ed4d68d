"""Listening sockets for the serving commands: bind a port, or take one a parent bound and passed
down as a file descriptor (`--fd`, docs/operating.md, "Running")."""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"


def listening_socket(port: int = 0, host: str = LOOPBACK) -> socket.socket:
    """A TCP socket bound to `host`:`port` (0: any free port) and listening.

    `SO_REUSEADDR` lets a server be started again on the port of one just stopped (its
    connections in TIME_WAIT); it never lets two sockets listen on one port. `IPPROTO_TCP`,
    explicitly: asyncio sets TCP_NODELAY on accepted connections only when the listening
    socket says TCP, and without it every response waits ~40 ms for an ACK. An IPv6 `host`
    (`::`, as uvicorn would take it for `--host ::`) gets an IPv6 socket."""
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


def inherited_socket(fd: int | None) -> socket.socket | None:
    """The socket inherited as file descriptor `fd`, if any. Its family, type and protocol are
    read from the descriptor (TCP: asyncio then sets TCP_NODELAY on the connections it
    accepts)."""
    return socket.socket(fileno=fd) if fd is not None else None
