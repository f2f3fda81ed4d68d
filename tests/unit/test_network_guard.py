"""The suite's own guard: a test that reaches beyond loopback fails loudly."""

from __future__ import annotations

import socket

import pytest

from tests.conftest import NetworkBlocked


def test_non_loopback_connect_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client, pytest.raises(NetworkBlocked):
        client.connect(("192.0.2.1", 443))  # TEST-NET-1: never routed


def test_loopback_connect_is_allowed() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            client.connect(server.getsockname())


def test_cli_without_command_is_a_usage_error() -> None:
    from bot.cli import main

    assert main([]) == 2


def test_name_resolution_beyond_loopback_is_refused() -> None:
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("huggingface.co", 443)
    assert socket.getaddrinfo("localhost", 80)
