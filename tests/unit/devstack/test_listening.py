"""`ServerAddress`: the port is the stack's from the moment it is picked, until the server
(a child that inherits the socket) exits; no one else can bind it in between."""

from __future__ import annotations

import errno
import socket
import subprocess
import sys

import pytest

from evalbot_dev.devstack.listening import ServerAddress, listening_socket
from evalbot_dev.devstack.waiting import port_open


def test_the_port_is_listening_from_the_start_and_nobody_else_can_bind_it() -> None:
    address = ServerAddress()
    try:
        assert address.port > 0
        assert address.url == f"http://127.0.0.1:{address.port}"
        assert port_open(address.port)  # a client's connection waits in the backlog
        with pytest.raises(OSError, match="in use") as taken:
            listening_socket(address.port)  # even with SO_REUSEADDR, as uvicorn binds
        assert taken.value.errno == errno.EADDRINUSE
    finally:
        address.close()
    assert not port_open(address.port)


def test_a_child_inherits_the_socket_and_serves_on_it_alone() -> None:
    address = ServerAddress()
    listen, pass_fds = address.spawn_arguments()
    assert listen == ["--fd", str(pass_fds[0])]
    serve_one = (
        "import socket, sys; s = socket.socket(fileno=int(sys.argv[2]));"
        " c, _ = s.accept(); c.sendall(b'served by the child'); c.close()"
    )
    child = subprocess.Popen([sys.executable, "-c", serve_one, *listen], pass_fds=pass_fds)
    address.close()  # the parent's copy: the child's keeps the port
    try:
        with socket.create_connection(("127.0.0.1", address.port), timeout=30) as client:
            assert client.recv(100) == b"served by the child"
        assert child.wait(timeout=30) == 0
    finally:
        child.kill()
        child.wait(timeout=30)
    assert not port_open(address.port)  # the child exited: nothing listens any more


def test_a_restart_listens_on_the_same_port_again() -> None:
    address = ServerAddress()
    port = address.port
    address.close()
    listen, _ = address.spawn_arguments()  # binds the same port again
    try:
        assert address.port == port
        assert port_open(port)
        assert listen[0] == "--fd"
    finally:
        address.close()
