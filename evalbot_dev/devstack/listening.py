"""Listening sockets the dev stack opens for the servers it starts: ports without a race.

Picking a free port (bind to port 0, read it, close) and letting the server bind it later
leaves a window in which another process (a parallel test, an outgoing connection's ephemeral
port) takes it: "address already in use" at start, now and then. Here the port is bound and
listening before the server exists, and stays so: an in-process server (the Hub emulator)
serves on the socket itself, a child (`evalbot serve`, `issuer`, `web`, `emulator`) inherits it
(`--fd`, `bot/sockets.py`). Connections made before the server is ready wait in the
socket's backlog instead of being refused.

The parent closes its copy once the child has it (`spawn_arguments` then `close`), so a child
that exits leaves nothing listening: connections are refused, as with a stopped server.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field

from bot.sockets import LOOPBACK, listening_socket

__all__ = ["LOOPBACK", "ServerAddress", "listening_socket"]


@dataclass
class ServerAddress:
    """The address of a child server the stack starts, and the socket it will inherit.

    The port is bound on first use (`port`, `url` or `spawn_arguments`), so the URL is known
    before the child starts, and stays the same: `spawn_arguments` binds it again for a
    restart. `port=N` asks for that port instead of a free one."""

    host: str = LOOPBACK
    requested_port: int = 0
    _socket: socket.socket | None = field(default=None, init=False, repr=False)
    _port: int = field(default=0, init=False, repr=False)

    @property
    def port(self) -> int:
        if not self._port:
            self._open()
        return self._port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _open(self) -> socket.socket:
        """Bind and listen (again, for a restart, on the same port), unless still open."""
        if self._socket is None:
            self._socket = listening_socket(self._port or self.requested_port, self.host)
            self._port = int(self._socket.getsockname()[1])
        return self._socket

    def spawn_arguments(self) -> tuple[list[str], tuple[int, ...]]:
        """The server's command-line arguments (`--fd N`) and the `pass_fds` for `Popen`."""
        fd = self._open().fileno()
        return ["--fd", str(fd)], (fd,)

    def close(self) -> None:
        """Close this process's copy (the child keeps its own); the port stays this
        address's, for a restart."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None
