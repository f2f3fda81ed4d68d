"""Open the submission's PR, or update the one this account already has open for it, found by the
hidden marker in its description (docs/frameworks.md, "3. What `evalbot submit` does")."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from huggingface_hub import CommitOperationAdd

from bot.hub.client import DEFAULT_MAX_FILE_BYTES, HfHubClient
from bot.hub.errors import HubError, HubPermanentError
from bot.submit.errors import SubmitError, hub_failure


@dataclass(frozen=True)
class PullRequest:
    num: int
    url: str
    updated: bool  # True when an open PR of ours was updated rather than a new one opened


def read_main_file(api: Any, repo_id: str, path: str) -> str | None:
    """The file on the repo's main branch, or None when the Hub says main has no such file
    (404 `EntryNotFound`, its only answer that means "absent": docs/hub.md#errors).

    Anything else is a `SubmitError`, for the PR would replace main's file with only the new
    entries: `HubUnreachable` when the Hub did not answer (offline, a connection error, a
    timeout, a 5xx), else a missing repo or branch, a refusal, a file over the bot's size cap
    or not UTF-8. One GET through the Hub seam, no cache: a copy an earlier run left in
    huggingface_hub's cache (which `hf_hub_download` falls back on when the Hub is
    unreachable) may be older than main."""
    doing = f"cannot read {path} on {repo_id} main"
    try:
        content = HfHubClient(api).read_file(repo_id, path, "main")
    except HubError as error:
        if isinstance(error, HubPermanentError) and error.entry_not_found:
            return None
        failure = hub_failure(error, api.endpoint, doing) or SubmitError(f"{doing}: {error}")
        raise failure from error
    if len(content) > DEFAULT_MAX_FILE_BYTES:
        raise SubmitError(
            f"{doing}: it is over {DEFAULT_MAX_FILE_BYTES} bytes, the bot's cap for a results "
            "file; split it on main first"
        )
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SubmitError(f"{doing}: it is not UTF-8 ({error})") from error


#: At most this many of our own open PRs on one repo are read to find the submission's.
MAX_OWN_PRS = 100
_MARKER_START = "<!-- evalbot-submit: "


def submission_key(
    model_repo: str, results: Iterable[tuple[str, str, str]], custom: str | None
) -> str:
    """What identifies a submission's PR: `custom` (`--pr-key`), else the set of results it
    adds, as (benchmark, task id, notes), on `model_repo`. A hash: the marker stays short."""
    what: dict[str, Any] = {"model": model_repo.lower()}
    if custom is not None:
        what["key"] = custom
    else:
        what["results"] = sorted({(b.lower(), t, n) for b, t, n in results})
    canonical = json.dumps(what, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def marker(key: str) -> str:
    """The hidden line in a PR's description that finds it again (rendered as nothing)."""
    return f"{_MARKER_START}{key} -->"


@dataclass(frozen=True)
class _Found:
    num: int
    comment_id: str | None  # the description's comment, to stamp a legacy PR with the marker
    description: str


def _own_open_pr(api: Any, repo_id: str, key: str, legacy_title: str | None) -> _Found | None:
    me = api.whoami()["name"]
    wanted = marker(key)
    legacy: _Found | None = None
    for count, discussion in enumerate(
        api.get_repo_discussions(
            repo_id=repo_id, author=me, discussion_type="pull_request", discussion_status="open"
        )
    ):
        if count >= MAX_OWN_PRS:
            break
        details = api.get_discussion_details(repo_id=repo_id, discussion_num=discussion.num)
        first = next((e for e in details.events if e.type == "comment"), None)
        text = str(getattr(first, "content", "") or "")
        comment_id = str(first.id) if first is not None else None
        if wanted in text:
            return _Found(int(discussion.num), comment_id, text)
        if (
            legacy is None
            and legacy_title is not None
            and discussion.title == legacy_title
            and _MARKER_START not in text
        ):
            legacy = _Found(int(discussion.num), comment_id, text)
    return legacy


def open_or_update(
    api: Any,
    repo_id: str,
    files: Mapping[str, str],
    *,
    title: str,
    description: str,
    key: str,
    legacy_title: str | None = None,
) -> PullRequest:
    """Commit `files` to this submission's open PR (found by `key`, or an old PR titled
    `legacy_title` without a marker), or open one whose description carries the marker."""
    operations = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=text.encode("utf-8"))
        for path, text in files.items()
    ]
    described = f"{description}\n\n{marker(key)}"
    try:
        existing = _own_open_pr(api, repo_id, key, legacy_title)
        if existing is not None:
            api.create_commit(
                repo_id=repo_id,
                operations=operations,
                commit_message=f"{title} (re-run)",
                revision=f"refs/pr/{existing.num}",
            )
            if existing.comment_id is not None and existing.description != described:
                # A legacy PR gets its marker; an updated one the description of what it holds.
                api.edit_discussion_comment(
                    repo_id=repo_id,
                    discussion_num=existing.num,
                    comment_id=existing.comment_id,
                    new_content=described,
                )
            url = f"{api.endpoint.rstrip('/')}/{repo_id}/discussions/{existing.num}"
            return PullRequest(num=existing.num, url=url, updated=True)
        info = api.create_commit(
            repo_id=repo_id,
            operations=operations,
            commit_message=title,
            commit_description=described,
            create_pr=True,
        )
    except Exception as error:
        failure = hub_failure(
            error,
            api.endpoint,
            f"cannot open the pull request on {repo_id}",
            then="if it was opened, a re-run of the job updates it",
        )
        if failure is None:
            raise
        raise failure from error
    return PullRequest(num=int(info.pr_num), url=str(info.pr_url), updated=False)
