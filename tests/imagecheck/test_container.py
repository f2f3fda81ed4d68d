"""How a container's user and environment are decided, from an image's passwd and group."""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy.imagecheck.container import DEFAULT_PATH, container_env, resolve_user

PASSWD = """\
root:x:0:0:root:/root:/bin/bash
redis:x:100:101::/var/lib/redis:/usr/sbin/nologin
evalbot:x:1000:1000::/home/evalbot:/usr/sbin/nologin
"""
GROUP = """\
root:x:0:
redis:x:101:
evalbot:x:1000:
audio:x:29:evalbot,redis
"""


@pytest.fixture
def rootfs(tmp_path: Path) -> Path:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/passwd").write_text(PASSWD)
    (tmp_path / "etc/group").write_text(GROUP)
    return tmp_path


def test_names_and_ids_resolve_with_supplementary_groups(rootfs: Path) -> None:
    evalbot = resolve_user(rootfs, "evalbot")
    assert (evalbot.uid, evalbot.gid, evalbot.groups, evalbot.home) == (
        1000,
        1000,
        (29, 1000),
        "/home/evalbot",
    )
    assert resolve_user(rootfs, "1000") == evalbot
    assert resolve_user(rootfs, "") == resolve_user(rootfs, "root")
    assert resolve_user(rootfs, "redis:root").gid == 0
    unknown = resolve_user(rootfs, "4242:4243")
    assert (unknown.uid, unknown.gid, unknown.home) == (4242, 4243, "/")
    with pytest.raises(ValueError, match="nobody"):
        resolve_user(rootfs, "nobody")


def test_the_environment_docker_gives_a_container() -> None:
    env = container_env({"PORT": "7860"}, "0123456789ab", "/home/evalbot")
    assert env == {
        "PATH": DEFAULT_PATH,
        "HOSTNAME": "0123456789ab",
        "PORT": "7860",
        "HOME": "/home/evalbot",
    }
    assert container_env({"HOME": "/x", "PATH": "/p"}, "h", "/home/e")["HOME"] == "/x"
    assert container_env({"PATH": "/p"}, "h", "")["PATH"] == "/p"


def test_listening_addresses_from_proc_net_tables() -> None:
    from deploy.imagecheck.scenarios import listening_addresses

    header = "  sl  local_address rem_address   st tx_queue rx_queue\n"
    tcp = header + (
        "   0: 00000000:1EB4 00000000:0000 0A 00000000:00000000\n"  # 0.0.0.0:7860 LISTEN
        "   1: 0100007F:18EB 00000000:0000 0A 00000000:00000000\n"  # 127.0.0.1:6379 LISTEN
        "   2: 0100007F:9C40 0100007F:18EB 01 00000000:00000000\n"  # established: ignored
    )
    tcp6 = header + "   0: 00000000000000000000000000000000:18EB 0000:0000 0A 0\n"
    assert listening_addresses({"tcp": tcp, "tcp6": tcp6}) == {
        7860: {"0.0.0.0"},
        6379: {"127.0.0.1", "::"},
    }
