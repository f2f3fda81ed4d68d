"""The files a Space deployment uploads, read from docs/deploy.md's own snippet.

The snippet's `upload_folder` call (its `allow_patterns` and `ignore_patterns`, as literals) is
replayed with huggingface_hub's `filter_repo_objects`, the filter `upload_folder` applies, over
the checkout's tracked files (what a fresh clone holds), and each `upload_file` of the snippet
is added on top. The image check builds from exactly this set, so a file the `Dockerfile` needs
and the docs do not upload fails the build as it would on the Space.
"""

from __future__ import annotations

import ast
import posixpath
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# DEFAULT_IGNORE_PATTERNS: what upload_folder adds to every ignore_patterns (`.git`...). Both
# are huggingface_hub.utils' documented names, imported there without an explicit re-export.
from huggingface_hub.utils import (  # type: ignore[attr-defined]
    DEFAULT_IGNORE_PATTERNS,
    filter_repo_objects,
)

#: The doc whose snippet says what is uploaded, relative to the project.
DEPLOY_DOC = Path("docs") / "deploy.md"
_FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
GIT_TIMEOUT_S = 60
#: The mode every uploaded file has in the Space repository (a commit names no mode).
UPLOADED_MODE = 0o644


class UploadDocError(ValueError):
    """The deploy doc's snippet cannot be read as an upload (names the doc and line)."""


@dataclass(frozen=True, slots=True)
class DocumentedUpload:
    """One `upload_folder` call and the `upload_file` calls that follow it."""

    folder: str
    allow_patterns: tuple[str, ...] | None
    ignore_patterns: tuple[str, ...]
    path_in_repo: str
    #: (path in the repo, local path relative to the project), in the snippet's order.
    files: tuple[tuple[str, str], ...]


def documented_upload(doc: str, where: str = str(DEPLOY_DOC)) -> DocumentedUpload:
    """The upload the ```python block of `doc` that calls `upload_folder` makes."""
    blocks = [m for m in _FENCE.finditer(doc) if "upload_folder(" in m.group(1)]
    if len(blocks) != 1:
        raise UploadDocError(
            f"{where}: expected one ```python block calling upload_folder, found {len(blocks)}"
        )
    block = blocks[0]
    first_line = doc[: block.start(1)].count("\n") + 1
    try:
        tree = ast.parse(block.group(1))
    except SyntaxError as error:
        raise UploadDocError(
            f"{where}: line {first_line + (error.lineno or 1) - 1}: the snippet is not Python"
        ) from error
    folders: list[DocumentedUpload] = []
    files: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        line = first_line + node.lineno - 1
        arguments = _literal_keywords(node, f"{where}: line {line}")
        if node.func.attr == "upload_folder":
            folders.append(
                DocumentedUpload(
                    folder=_text(arguments, "folder_path", where, line),
                    allow_patterns=_patterns(arguments.get("allow_patterns")),
                    ignore_patterns=_patterns(arguments.get("ignore_patterns")) or (),
                    path_in_repo=str(arguments.get("path_in_repo") or ""),
                    files=(),
                )
            )
        elif node.func.attr == "upload_file":
            files.append(
                (
                    _text(arguments, "path_in_repo", where, line),
                    _text(arguments, "path_or_fileobj", where, line),
                )
            )
    if len(folders) != 1:
        raise UploadDocError(f"{where}: line {first_line}: expected one upload_folder call")
    folder = folders[0]
    return DocumentedUpload(
        folder.folder,
        folder.allow_patterns,
        folder.ignore_patterns,
        folder.path_in_repo,
        tuple(sorted(files, key=lambda item: item[0])),
    )


#: The arguments that decide which files land where: each must be a literal.
DECIDING = frozenset(
    {"folder_path", "allow_patterns", "ignore_patterns", "path_in_repo", "path_or_fileobj"}
)


def _literal_keywords(call: ast.Call, where: str) -> dict[str, object]:
    """The call's keyword arguments that decide the files, as literals (the repo id and the
    token, often names, are not read)."""
    found: dict[str, object] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise UploadDocError(f"{where}: `**` arguments cannot be read")
        if keyword.arg not in DECIDING:
            continue
        try:
            found[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            raise UploadDocError(
                f"{where}: `{keyword.arg}` must be a literal, so the files it uploads can be read"
            ) from None
    return found


def _text(arguments: Mapping[str, object], name: str, where: str, line: int) -> str:
    value = arguments.get(name)
    if not isinstance(value, str) or not value:
        raise UploadDocError(f"{where}: line {line}: `{name}` must be a string literal")
    return value


def _patterns(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise UploadDocError(f"{DEPLOY_DOC}: patterns must be a string or a list of strings")


def tracked_files(project: Path) -> list[str]:
    """The checkout's tracked files that exist in the working tree (what a clone holds, with
    this tree's edits), `/`-separated and relative to `project`."""
    listed = subprocess.run(  # noqa: S603 - a fixed command on our own checkout
        ["git", "-C", str(project), "ls-files", "-z"],  # noqa: S607 - git from PATH
        capture_output=True,
        check=True,
        timeout=GIT_TIMEOUT_S,
    ).stdout.decode()
    return sorted(name for name in listed.split("\0") if name and (project / name).is_file())


def upload_set(project: Path, upload: DocumentedUpload) -> dict[str, Path]:
    """Each path the Space repository ends up with, and the local file it comes from."""
    folder = (project / upload.folder).resolve()
    relative = posixpath.normpath(upload.folder)
    prefix = "" if relative == "." else f"{relative}/"
    inside = [name[len(prefix) :] for name in tracked_files(project) if name.startswith(prefix)]
    kept = filter_repo_objects(
        inside,
        allow_patterns=list(upload.allow_patterns) if upload.allow_patterns is not None else None,
        ignore_patterns=[*upload.ignore_patterns, *DEFAULT_IGNORE_PATTERNS],
    )
    repo_prefix = f"{upload.path_in_repo.strip('/')}/" if upload.path_in_repo else ""
    files = {repo_prefix + name: folder / name for name in kept}
    for path_in_repo, local in upload.files:
        files[path_in_repo.lstrip("/")] = project / local
    return files


def read_upload_set(project: Path) -> dict[str, Path]:
    """The upload set docs/deploy.md of `project` documents."""
    doc = project / DEPLOY_DOC
    return upload_set(project, documented_upload(doc.read_text(), str(doc)))


def lay_out(files: Mapping[str, Path], target: Path) -> None:
    """Copy the upload set into `target` (emptied first), as the Space repository holds it:
    every file mode 0644, since the Hub's commit API carries no file mode (an executable
    script arrives without its `x` bit)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for path_in_repo, source in sorted(files.items()):
        destination = target / path_in_repo
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
        destination.chmod(UPLOADED_MODE)
