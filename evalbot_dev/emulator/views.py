"""JSON shapes of the Hub's API answers, built from the emulator's records.

Field names and nesting follow what `huggingface_hub` 2.4 parses (hf_api.py, community.py) and
the extra fields the Hub is documented to send (docs/hub-api.md#http-endpoints). Dates always end in
`Z`.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any

from evalbot_dev.emulator import hub_texts
from evalbot_dev.emulator.git import Commit, tree_oid
from evalbot_dev.emulator.hubtime import hub_format
from evalbot_dev.emulator.lfs import stored_object
from evalbot_dev.emulator.model import Discussion, Event, Repo, Token, Webhook
from evalbot_dev.emulator.state import HubState

JSON = dict[str, Any]


def web_url(endpoint: str, repo: Repo) -> str:
    prefix = "" if repo.type == "model" else f"{repo.type}s/"
    return f"{endpoint}/{prefix}{repo.full_name}"


def api_url(endpoint: str, repo: Repo) -> str:
    return f"{endpoint}/api/{repo.type}s/{repo.full_name}"


def whoami(state: HubState, token: Token) -> JSON:
    user = state.account(token.user)
    orgs = [
        {
            "type": "org",
            "id": state.accounts[org].id,
            "name": org,
            "fullname": org,
            "roleInOrg": roles[token.user],
        }
        for org, roles in sorted(state.members.items())
        if token.user in roles and org in state.accounts
    ]
    return {
        "type": "user",
        "id": user.id,
        "name": user.name,
        "fullname": user.fullname,
        "email": user.email,
        "emailVerified": user.email is not None,
        "avatarUrl": f"/avatars/{user.name}.svg",
        "isPro": user.is_pro,
        "orgs": orgs,
        "auth": {
            "type": "access_token",
            "accessToken": {
                "displayName": token.display_name,
                "role": token.role,
                "createdAt": hub_format(_TOKENS_CREATED),
                **_fine_grained(state, token),
            },
        },
    }


def _fine_grained(state: HubState, token: Token) -> JSON:
    """The scoped permissions a fine-grained token reports (nothing for read/write tokens)."""
    if token.role != "fineGrained":
        return {}
    scope = {
        "entity": {"_id": state.account(token.user).id, "type": "user", "name": token.user},
        "permissions": sorted(token.permissions),
    }
    # `global`: permissions that hold everywhere (the Hub's own shape, huggingface.js
    # api-who-am-i.ts); the emulator grants none.
    return {"fineGrained": {"global": [], "scoped": [scope], "canReadGatedRepos": False}}


_TOKENS_CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def repo_info(state: HubState, repo: Repo, commit: Commit, *, blobs: bool) -> JSON:
    siblings = []
    for path, oid in sorted(commit.files.items()):
        sibling: JSON = {"rfilename": path}
        if blobs:
            sibling.update(size=len(repo.blobs[oid]), blobId=oid)
            stored = stored_object(repo, oid)
            if stored is not None:
                sibling.update(
                    size=stored.size,
                    lfs={
                        "size": stored.size,
                        "sha256": stored.oid,
                        "pointerSize": stored.pointer_size,
                    },
                )
        siblings.append(sibling)
    info: JSON = {
        "_id": repo.id,
        "id": repo.full_name,
        "author": repo.namespace,
        "sha": commit.sha,
        "createdAt": hub_format(repo.created_at),
        "lastModified": hub_format(commit.date),
        "private": repo.private,
        "gated": repo.gated,
        "disabled": False,
        "downloads": 0,
        "likes": 0,
        "tags": list(repo.tags),
        "siblings": siblings,
    }
    if repo.type == "model":
        info["modelId"] = repo.full_name
        info["library_name"] = None
    return info


def file_entry(repo: Repo, path: str, oid: str) -> JSON:
    """A tree/paths-info file; an LFS file has the object's size and an `lfs` member."""
    entry: JSON = {"type": "file", "oid": oid, "size": len(repo.blobs[oid]), "path": path}
    stored = stored_object(repo, oid)
    if stored is not None:
        entry.update(size=stored.size, lfs=stored.to_json())
    return entry


def folder_entry(commit: Commit, path: str) -> JSON:
    prefix = path + "/"
    oid = tree_oid((p, o) for p, o in commit.files.items() if p.startswith(prefix))
    return {"type": "directory", "oid": oid, "size": 0, "path": path}


def last_commit(repo: Repo, commit: Commit, path: str) -> JSON:
    """The newest commit (following first parents) that changed `path` (for `expand=true`)."""
    current = commit
    prefix = path + "/"

    def state_of(snapshot: Commit) -> list[tuple[str, str]]:
        return sorted(
            (p, o) for p, o in snapshot.files.items() if p == path or p.startswith(prefix)
        )

    here = state_of(current)
    while current.parents:
        parent = repo.commits[current.parents[0]]
        if state_of(parent) != here:
            break
        current = parent
    return {"id": current.sha, "title": current.title, "date": hub_format(current.date)}


def tree(
    repo: Repo, commit: Commit, folder: str, *, recursive: bool, expand: bool
) -> list[JSON] | None:
    """Entries under `folder` ("" is the root); None when the folder does not exist."""
    prefix = folder.strip("/") + "/" if folder.strip("/") else ""
    files: list[JSON] = []
    folders: dict[str, None] = {}
    for path, oid in sorted(commit.files.items()):
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix) :]
        parts = rest.split("/")
        for depth in range(1, len(parts) if recursive else min(len(parts), 2)):
            folders.setdefault(prefix + "/".join(parts[:depth]), None)
        if recursive or len(parts) == 1:
            files.append(file_entry(repo, path, oid))
    if prefix and not files and not folders:
        return None
    entries = [folder_entry(commit, path) for path in folders] + files
    entries.sort(key=lambda entry: (entry["type"] != "directory", entry["path"]))
    if expand:
        for entry in entries:
            entry["lastCommit"] = last_commit(repo, commit, entry["path"])
    return entries


def paths_info(repo: Repo, commit: Commit, paths: list[str], *, expand: bool) -> list[JSON]:
    """Files and folders among `paths`; missing ones are silently left out, as the Hub does."""
    found: list[JSON] = []
    for raw in paths:
        path = raw.strip("/")
        entry: JSON | None = None
        if path in commit.files:
            entry = file_entry(repo, path, commit.files[path])
        elif any(p.startswith(path + "/") for p in commit.files):
            entry = folder_entry(commit, path)
        if entry is not None:
            if expand:
                entry["lastCommit"] = last_commit(repo, commit, path)
            found.append(entry)
    return found


def refs(repo: Repo, *, include_prs: bool) -> JSON:
    answer: JSON = {
        "branches": [
            {"name": n, "ref": f"refs/heads/{n}", "targetCommit": s}
            for n, s in sorted(repo.branches.items())
        ],
        "converts": [],
        "tags": [
            {"name": n, "ref": f"refs/tags/{n}", "targetCommit": s}
            for n, s in sorted(repo.tag_refs.items())
        ],
    }
    if include_prs:
        answer["pullRequests"] = [
            {"name": str(num), "ref": f"refs/pr/{num}", "targetCommit": sha}
            for num, sha in sorted(repo.pr_refs.items())
        ]
    return answer


def commit_item(commit: Commit) -> JSON:
    return {
        "id": commit.sha,
        "authors": [{"user": commit.author, "avatar": f"/avatars/{commit.author}.svg"}],
        "date": hub_format(commit.date),
        "title": commit.title,
        "message": commit.message,
        "parents": list(commit.parents),
    }


def history(repo: Repo, head: Commit) -> list[Commit]:
    """Commits reachable from `head` by first parents, newest first."""
    chain = [head]
    while chain[-1].parents:
        chain.append(repo.commits[chain[-1].parents[0]])
    return chain


def user_brief(state: HubState, name: str) -> JSON:
    account = state.accounts.get(name)
    return {
        "_id": account.id if account else "000000000000000000000000",
        "name": name,
        "fullname": account.fullname if account else name,
        "avatarUrl": f"/avatars/{name}.svg",
        "type": account.kind if account else "user",
        "isPro": account.is_pro if account else False,
        "isHf": False,
        "isHfAdmin": False,
        "isMod": False,
    }


def event_author(state: HubState, repo: Repo, name: str) -> JSON:
    """An event author with the `isOwner` / `isOrgMember` flags the Hub adds on timelines."""
    author = user_brief(state, name)
    author["isOwner"] = name == repo.namespace
    author["isOrgMember"] = name in state.members.get(repo.namespace, {})
    return author


def event(state: HubState, repo: Repo, item: Event) -> JSON:
    data: JSON
    if item.type == "comment":
        raw = item.data["raw"]
        data = {
            "edited": item.data["edited"],
            "hidden": item.data["hidden"],
            "numEdits": len(item.data["history"]) - 1,
            "editors": sorted({entry["author"] for entry in item.data["history"]}),
            "reactions": [],
            "isReport": False,
            "latest": {
                "raw": "" if item.data["hidden"] else raw,
                "html": ""
                if item.data["hidden"]
                else hub_texts.DEFAULT_COMMENT_HTML.format(escaped=html.escape(raw)),
                "updatedAt": hub_format(item.data["updatedAt"]),
                "author": {
                    "_id": user_brief(state, item.data["editor"])["_id"],
                    "name": item.data["editor"],
                },
            },
            "history": [
                {
                    "raw": entry["raw"],
                    "updatedAt": hub_format(entry["updatedAt"]),
                    "author": {"name": entry["author"]},
                }
                for entry in item.data["history"]
            ],
        }
        if item.data["hidden"]:
            data["hiddenBy"] = item.data["hiddenBy"]
    else:
        data = dict(item.data)
    return {
        "id": item.id,
        "type": item.type,
        "createdAt": hub_format(item.created_at),
        "author": event_author(state, repo, item.author),
        "data": data,
    }


def discussion_summary(state: HubState, repo: Repo, discussion: Discussion) -> JSON:
    return {
        "num": discussion.num,
        "title": discussion.title,
        "status": discussion.status,
        "isPullRequest": discussion.is_pull_request,
        "createdAt": hub_format(discussion.created_at),
        "pinned": discussion.pinned,
        "numComments": sum(1 for e in discussion.events if e.type == "comment"),
        "author": user_brief(state, discussion.author),
        "repo": {"name": repo.full_name, "type": repo.type},
    }


def discussion_details(
    state: HubState, repo: Repo, discussion: Discussion, endpoint: str, diff: str | None
) -> JSON:
    details = discussion_summary(state, repo, discussion)
    details.update(
        _id=discussion.id,
        collection="discussions",
        locked=discussion.locked,
        events=[event(state, repo, item) for item in discussion.events],
    )
    owner = state.accounts.get(repo.namespace)
    if owner is not None and owner.kind == "org":
        details["org"] = {
            "name": owner.name,
            "fullname": owner.fullname,
            "type": "org",
            "avatarUrl": f"/avatars/{owner.name}.svg",
        }
    if discussion.is_pull_request:
        details["changes"] = pr_changes(discussion)
        details["filesWithConflicts"] = state.conflicts(repo, discussion)
        details["diffUrl"] = f"{api_url(endpoint, repo)}/discussions/{discussion.num}/files.diff"
        if diff is not None:
            details["diff"] = diff
    return details


def pr_changes(discussion: Discussion) -> JSON:
    """A PR's `changes` object, the same in the API's details and in webhook payloads: its base
    ref, and the merge commit once merged."""
    changes: JSON = {"base": discussion.base_ref}
    if discussion.merge_commit:
        changes["mergeCommitId"] = discussion.merge_commit
    return changes


def webhook(item: Webhook) -> JSON:
    return {
        "id": item.id,
        "url": item.url,
        "watched": [dict(entry) for entry in item.watched],
        "domains": list(item.domains),
        "secret": item.secret,
        "disabled": item.disabled,
        "job": None,
    }
