"""`bot.supervise.runner`'s sockets: a port in use or a bad inherited descriptor is named."""

from __future__ import annotations

import socket

import pytest

from bot.sockets import listening_socket
from bot.supervise.plan import Listener
from bot.supervise.runner import ListenError, inherited_listener, open_listener


def test_a_port_in_use_names_the_address_and_the_setting() -> None:
    with listening_socket() as taken:
        port = int(taken.getsockname()[1])
        with pytest.raises(ListenError) as caught:
            open_listener(Listener("127.0.0.1", port, "PORT"))
    message = str(caught.value)
    assert f"cannot listen on 127.0.0.1:{port} (PORT)" in message
    assert "set PORT to another one" in message


def test_port_0_binds_any_free_port() -> None:
    with open_listener(Listener("127.0.0.1", 0, None)) as sock:
        assert sock.getsockname()[1] > 0


def test_an_inherited_descriptor_must_be_a_listening_tcp_socket() -> None:
    with listening_socket() as parent:
        inherited = inherited_listener(parent.fileno())
        assert inherited.getsockname() == parent.getsockname()
        inherited.detach()  # `parent` closes the descriptor
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as unbound:
        with pytest.raises(
            ListenError, match=r"EVALBOT_LISTEN_FD=\d+ is not a listening TCP socket"
        ):
            inherited_listener(unbound.fileno())
        assert unbound.fileno() >= 0  # left open for its owner


def test_an_ipv6_host_gets_an_ipv6_socket() -> None:
    # `EVALBOT_HOST=::` worked when uvicorn bound the port; it must still, now the supervisor does.
    with open_listener(Listener("::1", 0, "EVALBOT_HOST")) as sock:
        assert sock.family == socket.AF_INET6


def test_the_internal_port_failing_names_no_setting_to_change() -> None:
    with pytest.raises(ListenError) as caught:
        open_listener(Listener("127.0.0.256", 0, None))  # not an address
    message = str(caught.value)
    assert "cannot listen on 127.0.0.256:0 (the web pages' loopback port)" in message
    assert "set " not in message
