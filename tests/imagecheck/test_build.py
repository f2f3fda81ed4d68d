"""The build's instructions that need no RUN: COPY's semantics over a real context directory,
and the image config that ENV, WORKDIR, USER, EXPOSE, HEALTHCHECK, ENTRYPOINT and CMD leave."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deploy.imagecheck import build
from deploy.imagecheck.dockerfile import ImageConfig, UnsupportedDockerfile

PASSWD = "root:x:0:0:root:/root:/bin/sh\nevalbot:x:1000:1000::/home/evalbot:/bin/sh\n"


@pytest.fixture
def context(tmp_path: Path) -> Path:
    root = tmp_path / "context"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "a.py").write_text("a")
    (root / "pkg" / "sub" / "b.py").write_text("b")
    (root / "pkg" / "__pycache__" / "a.pyc").write_text("compiled")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "secret.env").write_text("TOKEN=x")
    (root / ".dockerignore").write_text("**/__pycache__\n*.env\n")
    return root


@pytest.fixture
def rootfs(tmp_path: Path) -> Path:
    root = tmp_path / "rootfs"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "passwd").write_text(PASSWD)
    (root / "etc" / "group").write_text("root:x:0:\nevalbot:x:1000:\n")
    return root


def run_build(text: str, context: Path, rootfs: Path, tmp_path: Path) -> ImageConfig:
    lines: list[str] = []
    config, steps = build.build(
        text, build.BuildContext(context), rootfs, tmp_path / "state", lines.append
    )
    assert sum(" DONE " in line for line in lines) == len(steps)  # one timed line per step
    return config


def test_copy_semantics(context: Path, rootfs: Path, tmp_path: Path) -> None:
    text = (
        "FROM python:3.11-slim\n"
        "WORKDIR /app\n"
        "COPY pkg ./pkg\n"  # a directory: its contents, filtered by .dockerignore
        "COPY run.sh /usr/local/bin/entry\n"  # a file to a new name, mode kept
        "COPY run.sh pkg/a.py /opt/\n"  # several sources: into the directory
    )
    run_build(text, context, rootfs, tmp_path)
    assert (rootfs / "app/pkg/a.py").read_text() == "a"
    assert (rootfs / "app/pkg/sub/b.py").read_text() == "b"
    assert not (rootfs / "app/pkg/__pycache__").exists()
    assert (rootfs / "usr/local/bin/entry").stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in (rootfs / "opt").iterdir()) == ["a.py", "run.sh"]
    if os.geteuid() == 0:
        assert (rootfs / "app/pkg/a.py").stat().st_uid == 0


def test_an_excluded_or_missing_source_is_not_found(
    context: Path, rootfs: Path, tmp_path: Path
) -> None:
    for source in ("secret.env", "nothing.txt"):
        with pytest.raises(build.BuildError, match=f"{source} not found"):
            run_build(f"FROM python:3.11-slim\nCOPY {source} /x\n", context, rootfs, tmp_path)


def test_the_config_the_instructions_leave(context: Path, rootfs: Path, tmp_path: Path) -> None:
    text = (
        "FROM python:3.11-slim\n"
        "ENV A=1 \\\n    B=2\n"
        "WORKDIR /app\n"
        "WORKDIR sub\n"
        "USER evalbot\n"
        "EXPOSE 7860\n"
        'HEALTHCHECK --timeout=5s CMD ["true"]\n'
        'ENTRYPOINT ["tini", "--"]\n'
    )
    config = run_build(text, context, rootfs, tmp_path)
    assert config.env["A"] == "1"
    assert config.env["B"] == "2"
    assert config.env["LANG"] == "C.UTF-8"  # the base image's
    assert config.workdir == "/app/sub"
    assert (rootfs / "app/sub").is_dir()
    assert config.user == "evalbot"
    assert config.exposed == ["7860"]
    assert config.healthcheck is not None
    assert config.healthcheck.timeout_s == 5.0
    assert config.entrypoint == ("tini", "--")
    assert config.cmd == ()  # ENTRYPOINT resets the CMD inherited from the base image
    with_cmd = run_build(text + 'CMD ["evalbot"]\n', context, rootfs, tmp_path)
    assert with_cmd.cmd == ("evalbot",)


def test_another_base_image_or_an_unknown_user_stops_the_build(
    context: Path, rootfs: Path, tmp_path: Path
) -> None:
    with pytest.raises(UnsupportedDockerfile, match=r"only python:3\.11-slim"):
        run_build("FROM python:3.12-slim\n", context, rootfs, tmp_path)
    with pytest.raises(ValueError, match="nobody"):
        run_build("FROM python:3.11-slim\nUSER nobody\n", context, rootfs, tmp_path)
