"""Open the submission's PR, or update the one this account already has open for it.

A submission's PR is found again by its exact title among the open PRs the token's own
account opened on the repo; a re-run then commits to `refs/pr/<num>` instead of opening a
second PR. Every call goes through `huggingface_hub` (`create_commit(create_pr=True)`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from huggingface_hub import CommitOperationAdd
from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

from bot.submit.errors import SubmitError


@dataclass(frozen=True)
class PullRequest:
    num: int
    url: str
    updated: bool  # True when an open PR of ours was updated rather than a new one opened


def read_main_file(api: Any, repo_id: str, path: str) -> str | None:
    """The file on the repo's main branch, or None when it has none; `SubmitError` when the
    repo cannot be read (missing, gated, the Hub failing) or the file is not UTF-8."""
    try:
        local = api.hf_hub_download(repo_id=repo_id, filename=path, revision="main")
        with open(local, encoding="utf-8") as handle:
            return handle.read()
    except EntryNotFoundError:
        return None
    except (HfHubHTTPError, OSError, UnicodeDecodeError) as error:
        raise SubmitError(f"cannot read {path} on {repo_id} main: {error}") from error


def _own_open_pr(api: Any, repo_id: str, title: str) -> int | None:
    me = api.whoami()["name"]
    for discussion in api.get_repo_discussions(
        repo_id=repo_id, author=me, discussion_type="pull_request", discussion_status="open"
    ):
        if discussion.title == title:
            return int(discussion.num)
    return None


def open_or_update(
    api: Any, repo_id: str, files: Mapping[str, str], *, title: str, description: str
) -> PullRequest:
    operations = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=text.encode("utf-8"))
        for path, text in files.items()
    ]
    try:
        existing = _own_open_pr(api, repo_id, title)
        if existing is not None:
            api.create_commit(
                repo_id=repo_id,
                operations=operations,
                commit_message=f"{title} (re-run)",
                revision=f"refs/pr/{existing}",
            )
            url = f"{api.endpoint.rstrip('/')}/{repo_id}/discussions/{existing}"
            return PullRequest(num=existing, url=url, updated=True)
        info = api.create_commit(
            repo_id=repo_id,
            operations=operations,
            commit_message=title,
            commit_description=description,
            create_pr=True,
        )
    except HfHubHTTPError as error:
        raise SubmitError(f"the Hub refused the pull request on {repo_id}: {error}") from error
    return PullRequest(num=int(info.pr_num), url=str(info.pr_url), updated=False)
