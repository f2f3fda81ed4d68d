"""A result's `source.url` that names a record of a trusted Every Eval Ever datastore, in the
forms EEE's converter writes (docs/comment.md#sources); anything else is a plain link."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

#: The datastore trusted when `config/bot.yaml` names none (`source_datastores`).
DEFAULT_DATASTORES = ("evaleval/EEE_datastore",)
#: Where records live in a datastore: the collection tree and its flat mirror.
RECORD_ROOTS = ("data/", "flat/objects/")


@dataclass(frozen=True, slots=True)
class RecordLink:
    """One record of one datastore at one revision, as a `source.url` names it."""

    url: str
    repo_id: str  # as the URL spells it; compared case-insensitively
    revision: str
    path: str


def record_link(url: object, hub_url: str, datastores: Collection[str]) -> RecordLink | None:
    """The record `url` names when it is one of a trusted datastore's; else None."""
    if not isinstance(url, str) or not datastores:
        return None
    hub = urlsplit(hub_url.rstrip("/"))
    try:
        parts = urlsplit(url)
    except ValueError:  # a bracketed host that is no IPv6 address
        return None
    if (parts.scheme.lower(), parts.netloc.lower()) != (hub.scheme.lower(), hub.netloc.lower()):
        return None
    prefix = hub.path.rstrip("/") + "/datasets/"
    if not parts.path.startswith(prefix):
        return None
    segments = parts.path[len(prefix) :].split("/")
    if len(segments) < 6 or segments[2] not in ("blob", "resolve"):
        return None
    owner, name, _, revision, *rest = (unquote(segment) for segment in segments)
    repo_id = f"{owner}/{name}"
    if repo_id.lower() not in {trusted.lower() for trusted in datastores}:
        return None
    path = "/".join(rest)
    if (
        not revision
        or any(part in ("", ".", "..") or "/" in part or "\\" in part for part in rest)
        or not path.startswith(RECORD_ROOTS)
        or not path.endswith(".json")
    ):
        return None
    return RecordLink(url=url, repo_id=repo_id, revision=revision, path=path)
