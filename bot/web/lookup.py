"""What a visitor typed into a "model repo" box: `owner/name`, a Hub URL, or a datastore as
`datasets/owner/name`."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from bot.validation.model import is_repo_id

#: First path segments that are Hub pages, not an owner (a model's URL has none before it).
_NOT_MODELS = frozenset({"datasets", "spaces", "docs", "organizations", "settings", "collections"})


#: How the history names a dataset repo (a datastore): as its Hub path does.
DATASETS = "datasets/"


@dataclass(frozen=True, slots=True)
class Wanted:
    repo_id: str  # `owner/name` for a model repo, `datasets/owner/name` for a datastore
    pr_num: int | None = None  # a pasted PR URL names one


def is_history_repo(value: str) -> bool:
    """A name the history keeps PRs under: a model repo id, or `datasets/` and a dataset's."""
    return is_repo_id(value.removeprefix(DATASETS))


def parse_wanted(typed: str) -> Wanted | None:
    """The model repo or datastore (and PR) `typed` names, or None when it names none."""
    value = typed.strip()
    path = urlsplit(value).path if "://" in value else value
    parts = [part for part in path.split("/") if part]
    prefix = ""
    if parts[:1] == ["models"]:
        parts = parts[1:]
    elif parts[:1] == ["datasets"]:
        parts, prefix = parts[1:], DATASETS
    if len(parts) < 2 or parts[0] in _NOT_MODELS:
        return None
    repo_id = f"{parts[0]}/{parts[1]}"
    if not is_repo_id(repo_id):
        return None
    pr_num = None
    if len(parts) >= 4 and parts[2] == "discussions" and parts[3].isdigit():
        pr_num = int(parts[3])
    return Wanted(prefix + repo_id, pr_num)
