"""Where collections come from: the read-only system scope shipped in the package, and a user's
folder (docs/collections.md, "Scopes")."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bot import packaged_defaults
from bot.collections.model import Scope

SYSTEM_DIR = packaged_defaults.collections_dir()


class StoreError(Exception):
    """A folder or file that cannot be read, or a clash of ids: a usage or I/O error (exit 2)."""


@dataclass(frozen=True, slots=True)
class StoredCollection:
    id: str
    scope: Scope
    path: Path

    def read(self) -> bytes:
        try:
            return self.path.read_bytes()
        except OSError as error:
            raise StoreError(f"{self.path}: {error.strerror}") from error


def user_dir(option: str | None) -> Path | None:
    """The user's folder `option` names, or None."""
    if option is None:
        return None
    folder = Path(option)
    if not folder.is_dir():
        raise StoreError(f"--collections {option}: not a folder")
    return folder


def _scan(folder: Path, scope: Scope) -> list[StoredCollection]:
    if not folder.is_dir():
        return []
    return [
        StoredCollection(path.stem, scope, path)
        for path in sorted(folder.iterdir())
        if path.is_file() and path.suffix in (".yaml", ".yml")
    ]


def all_collections(user_option: str | None) -> list[StoredCollection]:
    """System collections first, then the user's; a user id equal to a system id is an error."""
    return all_collections_in(SYSTEM_DIR, user_dir(user_option))


def all_collections_in(system: Path, user: Path | None) -> list[StoredCollection]:
    """The collections of a system folder and an optional user folder (ids may not clash)."""
    return _merged(_scan(system, Scope.SYSTEM), _scan(user, Scope.USER) if user else [])


def _merged(system: list[StoredCollection], user: list[StoredCollection]) -> list[StoredCollection]:
    taken = {stored.id for stored in system}
    for stored in user:
        if stored.id in taken:
            raise StoreError(
                f"{stored.path}: `{stored.id}` is a system collection, and system collections "
                "are read-only; copy it under another file name to change it"
            )
    return [*system, *user]


def where(user_option: str | None) -> str:
    """The folders a command read its collections from, for the line it prints about them."""
    user = user_dir(user_option)
    return f"system collections: {SYSTEM_DIR}" + (f"; user collections: {user}" if user else "")


def named(collection: str, user_option: str | None) -> StoredCollection:
    """What a command line's `--collection` names: the path of a collection file (told by a
    `/` or a `.yaml`/`.yml` suffix; its id is its file name), else an id (`find`). Only for a
    user's own command: a path reads any file the process can."""
    if "/" in collection or os.sep in collection or collection.endswith((".yaml", ".yml")):
        path = Path(collection)
        if not path.is_file():
            raise StoreError(
                f"--collection {collection}: no such file (give a collection id, or the path "
                "of a collection file)"
            )
        return StoredCollection(path.stem, Scope.USER, path)
    return find(collection, user_option)


def find(collection: str, user_option: str | None) -> StoredCollection:
    """The collection of id `collection`, in the system or the user scope."""
    stored = all_collections(user_option)
    for candidate in stored:
        if candidate.id == collection:
            return candidate
    known = ", ".join(candidate.id for candidate in stored) or "none"
    hint = "" if user_option else "; a collection of your own: `--collections DIR` names its folder"
    raise StoreError(
        f"no collection `{collection}` (known: {known}; {where(user_option)}){hint}, or give "
        "the file's path"
    )
