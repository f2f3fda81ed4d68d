"""`docker build`, instruction by instruction, on a fresh copy of the stand-in base.

RUN steps execute in the rootfs itself through the container shim (mount, UTS, IPC and PID
namespaces of their own, the host's network as `docker build` gives by default) with the ENV,
WORKDIR and USER in force so far. COPY reads the build context through `.dockerignore`, with
Docker's semantics: a directory source copies its contents, files land as root:root with their
mode. Each step prints its number, text and time like `docker build --progress=plain`.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deploy.imagecheck import dockerfile, dockerignore
from deploy.imagecheck.container import Container, ContainerSpec, resolve_user
from deploy.imagecheck.dockerfile import ImageConfig, Instruction, UnsupportedDockerfile
from deploy.imagecheck.rootfs import BASE_CMD, BASE_ENV

#: The only FROM the stand-in base replaces.
BASE_IMAGE = "python:3.11-slim"
BUILD_HOSTNAME = "buildkitsandbox"


class BuildError(RuntimeError):
    """A step failed; the message names it and carries its output's tail."""


@dataclass(frozen=True, slots=True)
class StepResult:
    number: int
    instruction: Instruction
    seconds: float


class BuildContext:
    """The files `docker build .` would send: the context directory minus `.dockerignore`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        ignore = root / ".dockerignore"
        self.patterns = dockerignore.parse(ignore.read_text() if ignore.exists() else "")

    def included(self, relative: str) -> bool:
        return not dockerignore.excluded(relative, self.patterns)

    def copy(self, source: str, destination: Path, into_directory: bool) -> int:
        """COPY one source to `destination` (a path in the rootfs); returns files copied."""
        relative = posixpath.normpath(source).lstrip("/")
        path = self.root / relative
        if relative != "." and (not path.exists() or not self.included(relative)):
            raise BuildError(f"COPY: {source} not found in the build context")
        if path.is_dir():
            return self._copy_tree(path, relative, destination)
        target = destination / path.name if into_directory else destination
        _copy_file(path, target)
        return 1

    def _copy_tree(self, directory: Path, relative: str, destination: Path) -> int:
        _make_dirs(destination)
        copied = 0
        for entry in sorted(directory.iterdir()):
            entry_relative = entry.name if relative == "." else f"{relative}/{entry.name}"
            if not self.included(entry_relative):
                continue
            target = destination / entry.name
            if entry.is_dir() and not entry.is_symlink():
                copied += self._copy_tree(entry, entry_relative, target)
                shutil.copystat(entry, target)
                _chown(target, 0, 0)
            else:
                _copy_file(entry, target)
                copied += 1
        return copied


def _make_dirs(path: Path) -> None:
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        directory.mkdir(mode=0o755)
        _chown(directory, 0, 0)


def _copy_file(source: Path, target: Path) -> None:
    _make_dirs(target.parent)
    if target.is_symlink() or target.is_file():
        target.unlink()
    if source.is_symlink():
        os.symlink(os.readlink(source), target)
        _chown(target, 0, 0)
        return
    shutil.copy2(source, target)
    _chown(target, 0, 0)


def _chown(path: Path, uid: int, gid: int) -> None:
    """Docker's ownership for what the build writes; only root can give it (the check runs
    as root; the unit tests of COPY's semantics may not)."""
    if os.geteuid() == 0:
        os.chown(path, uid, gid, follow_symlinks=False)


def inside(rootfs: Path, path: str) -> Path:
    return rootfs / path.lstrip("/")


def build(
    dockerfile_text: str,
    context: BuildContext,
    rootfs: Path,
    state_dir: Path,
    say: Callable[[str], None],
) -> tuple[ImageConfig, list[StepResult]]:
    """Apply every instruction to `rootfs` (a fresh copy of the base); the image's config."""
    instructions = dockerfile.parse(dockerfile_text)
    config = ImageConfig(env=dict(BASE_ENV), cmd=BASE_CMD)
    results = []
    total = len(instructions)
    for number, instruction in enumerate(instructions, start=1):
        say(f"#{number} [{number}/{total}] {_short(instruction)}")
        started = time.monotonic()
        _apply(instruction, config, context, rootfs, state_dir / f"step{number}", say)
        seconds = time.monotonic() - started
        say(f"#{number} DONE {seconds:.1f}s")
        results.append(StepResult(number, instruction, seconds))
    return config, results


def _short(instruction: Instruction) -> str:
    text = str(instruction)
    return text if len(text) <= 110 else text[:107] + "..."


def _apply(  # noqa: PLR0917 - one step's whole state
    instruction: Instruction,
    config: ImageConfig,
    context: BuildContext,
    rootfs: Path,
    state_dir: Path,
    say: Callable[[str], None],
) -> None:
    keyword = instruction.keyword
    if keyword == "FROM":
        image = dockerfile.from_image(instruction)
        if image != BASE_IMAGE:
            raise UnsupportedDockerfile(f"FROM {image}: only {BASE_IMAGE} has a stand-in")
    elif keyword == "ENV":
        config.env.update(dockerfile.env_pairs(instruction))
    elif keyword == "RUN":
        _run(dockerfile.run_command(instruction), config, rootfs, state_dir, say)
    elif keyword == "WORKDIR":
        word = dockerfile.single_word(instruction)
        config.workdir = posixpath.normpath(posixpath.join(config.workdir, word))
        target = inside(rootfs, config.workdir)
        _make_dirs(target)
        if config.user:  # BuildKit creates the directory as the USER in force
            credentials = resolve_user(rootfs, config.user)
            _chown(target, credentials.uid, credentials.gid)
    elif keyword == "COPY":
        sources, destination = dockerfile.copy_arguments(instruction)
        absolute = posixpath.join(config.workdir, destination)
        into_directory = destination.endswith("/") or len(sources) > 1 or destination == "."
        target = inside(rootfs, posixpath.normpath(absolute))
        if target.is_dir() and not target.is_symlink():
            into_directory = True
        if into_directory:
            _make_dirs(target)
        copied = sum(context.copy(source, target, into_directory) for source in sources)
        say(f"#  {copied} file(s)")
    elif keyword == "USER":
        config.user = dockerfile.single_word(instruction)
        resolve_user(rootfs, config.user)  # fail now, as a run would, if it does not exist
    elif keyword == "EXPOSE":
        config.exposed.extend(dockerfile.expose_ports(instruction))
    elif keyword == "HEALTHCHECK":
        config.healthcheck = dockerfile.healthcheck(instruction)
    elif keyword == "ENTRYPOINT":
        config.entrypoint = dockerfile.exec_form(instruction)
        if not config.cmd_set_here:
            config.cmd = ()  # Docker: ENTRYPOINT resets a CMD inherited from the base image
    elif keyword == "CMD":
        config.cmd = dockerfile.exec_form(instruction)
        config.cmd_set_here = True
    else:  # parse() refuses these already; keep the check honest if SUPPORTED grows
        raise UnsupportedDockerfile(f"{keyword} has no implementation")


#: Where Debian (and so python:3.11-slim) keeps the CA bundle that pip and apt trust.
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


def _build_network_trust(rootfs: Path) -> list[tuple[Path, str, bool]]:
    """This machine reaches PyPI through a TLS-intercepting egress proxy whose CA only the
    host's bundle has. RUN steps see the host's bundle over the image's (read-only, like a
    build secret); the image itself keeps Debian's bundle. Without such a proxy the two
    bundles trust the same public CAs."""
    host = Path(CA_BUNDLE)
    if host.exists() and inside(rootfs, CA_BUNDLE).exists():
        return [(host, CA_BUNDLE, True)]
    return []


def _run(
    command: str, config: ImageConfig, rootfs: Path, state_dir: Path, say: Callable[[str], None]
) -> None:
    spec = ContainerSpec(
        name=state_dir.name,
        rootfs=rootfs,
        argv=["/bin/sh", "-c", command],
        env=config.env,
        user=config.user,
        cwd=config.workdir,
        hostname=BUILD_HOSTNAME,
        overlay=False,
        binds=_build_network_trust(rootfs),
    )
    container = Container(spec, state_dir)
    container.start()
    try:
        code = container.wait(timeout=1800)
    finally:
        container.kill()
    output = container.output()
    for line in output.splitlines()[-5:]:
        say(f"#  {line}")
    if code != 0:
        raise BuildError(f"RUN {command!r} exited {code}:\n" + "\n".join(output.splitlines()[-40:]))
