"""Files written into a folder a command was given, never through a symlink that leads out of
it; refused before anything is written (docs/convert.md, "Writing into a folder")."""

from __future__ import annotations

import os
from pathlib import Path

from bot.cli.sources import UsageError

OUTSIDE = (
    "{path}: a symlink leads out of {folder} (to {real}); evalbot writes only inside the"
    " folder it is given: nothing written. Remove the link, or give the real folder"
)
#: Open for writing, never through a symlink in the last part of the path.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def inside(folder: Path, path: Path) -> Path:
    """`path`'s real place, when it is inside `folder`'s (symlinks resolved; the path need not
    exist yet); `UsageError` otherwise."""
    real_folder = folder.resolve()
    real = path.resolve()
    if real != real_folder and not real.is_relative_to(real_folder):
        raise UsageError(OUTSIDE.format(path=path, folder=folder, real=real))
    return real


def check_inside(folder: Path, paths: list[Path]) -> None:
    """Refuse, before anything is written, when any of `paths` leads out of `folder`."""
    for path in paths:
        inside(folder, path)


def write_inside(folder: Path, path: Path, content: bytes) -> None:
    """Write `content` to `path` (its folders made as needed), refused when the path leads out
    of `folder`; OSError for the caller to name."""
    real = inside(folder, path)
    real.parent.mkdir(parents=True, exist_ok=True)
    inside(folder, path)  # a folder made above may have raced a link into place
    descriptor = os.open(real, _WRITE_FLAGS, 0o666)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(content)
