"""Git LFS as the Hub stores it: the git tree holds a small pointer blob, the bytes live apart.

A file tracked by LFS is committed as a pointer (git-lfs spec v1: `version`, `oid sha256:<hex>`,
`size <n>`), so the git diff of a PR shows the pointer's lines, not the file's. The Hub reports
the object in tree and paths-info entries (`lfs: {oid, size, pointerSize}`,
docs/hub-api.md#files-and-trees) and its resolve URL answers 302 to a CDN origin with
`X-Linked-Etag` (the sha256) and `X-Linked-Size` (docs/hub-api.md#downloads). The emulator keeps the
objects per repo, keyed by sha256.

CDN URLs are signed, as the Hub's are: the bytes can only be fetched through a resolve that
passed the repo's access checks, and a URL expires.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from evalbot_dev.emulator.model import Repo

SPEC_VERSION = "https://git-lfs.github.com/spec/v1"
_POINTER = re.compile(
    rb"version " + re.escape(SPEC_VERSION.encode()) + rb"\noid sha256:([0-9a-f]{64})\nsize (\d+)\n"
)
#: How long a signed CDN URL stays valid (seconds).
CDN_URL_TTL_S = 3600


@dataclass(frozen=True, slots=True)
class LfsObject:
    """What a pointer names: the object's sha256 and size, and the pointer blob's own size."""

    oid: str
    size: int
    pointer_size: int

    def to_json(self) -> dict[str, object]:
        """The `lfs` member of a tree or paths-info file entry."""
        return {"oid": self.oid, "size": self.size, "pointerSize": self.pointer_size}


def pointer_for(content: bytes) -> tuple[LfsObject, bytes]:
    """The LFS pointer blob git stores in place of `content`, and the object it names."""
    oid = hashlib.sha256(content).hexdigest()
    pointer = f"version {SPEC_VERSION}\noid sha256:{oid}\nsize {len(content)}\n".encode()
    return LfsObject(oid, len(content), len(pointer)), pointer


def parse_pointer(blob: bytes) -> LfsObject | None:
    """The object a pointer blob names; None for any blob that is not exactly a pointer."""
    match = _POINTER.fullmatch(blob)
    if match is None:
        return None
    return LfsObject(match[1].decode(), int(match[2]), len(blob))


def stored_object(repo: Repo, blob_oid: str) -> LfsObject | None:
    """The LFS object a blob of `repo` points at; None for a regular blob, or a pointer whose
    object the repo does not hold (served as the plain blob it is). Call under the state lock."""
    found = parse_pointer(repo.blobs[blob_oid])
    return found if found is not None and found.oid in repo.lfs_objects else None


def cdn_signature(secret: bytes, path: str, expires: int) -> str:
    return hmac.new(secret, f"{path}\n{expires}".encode(), hashlib.sha256).hexdigest()


def signature_ok(secret: bytes, path: str, expires: int, signature: str, now: float) -> bool:
    return expires >= now and hmac.compare_digest(cdn_signature(secret, path, expires), signature)
