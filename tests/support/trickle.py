"""A client that sends its request headers a line at a time and never finishes them: the
slow-header attack every HTTP port of the bot must cut off (`bot.httpguards`)."""

from __future__ import annotations

import socket
import time


def trickle_headers(address: tuple[str, int], path: str, give_up_after_s: float) -> float | None:
    """Seconds until the server closed a connection whose headers trickle in (a header line
    now and then, never the blank line), or None when it was still open after
    `give_up_after_s`."""
    started = time.monotonic()
    with socket.create_connection(address, timeout=1) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {address[0]}\r\n".encode())
        while time.monotonic() - started < give_up_after_s:
            try:
                sock.sendall(b"X-Trickle: 1\r\n")
                if sock.recv(100) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                continue
            except OSError:
                return time.monotonic() - started
    return None
