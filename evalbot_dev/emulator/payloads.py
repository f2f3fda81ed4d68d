"""Webhook payloads, version 3, in the shapes the Hub sends (docs/hub-api.md#webhook-payload).

Built when the change happens (under the state lock), so a delayed or retried delivery carries
what was true at that moment, as the Hub's do. URLs point at the emulator's own endpoint.
"""

from __future__ import annotations

from typing import Any

from evalbot_dev.emulator.model import Discussion, Event, Repo, Webhook
from evalbot_dev.emulator.state import HubState, Trigger
from evalbot_dev.emulator.views import api_url, pr_changes, web_url

JSON = dict[str, Any]


def repo_part(state: HubState, trigger: Trigger, endpoint: str) -> JSON:
    repo = trigger.repo
    part: JSON = {
        "type": repo.type,
        "name": repo.full_name,
        "id": repo.id,
        "private": repo.private,
        "url": {"web": web_url(endpoint, repo), "api": api_url(endpoint, repo)},
        "owner": {"id": state.ensure_namespace(repo.namespace).id},
    }
    if trigger.scope.startswith("repo"):
        # `headSha` (main's sha) only comes with repo scopes.
        part["headSha"] = repo.main_sha
    if repo.type == "space":
        part["subdomain"] = repo.full_name.replace("/", "-").lower()
    return part


def discussion_part(state: HubState, repo: Repo, discussion: Discussion, endpoint: str) -> JSON:
    part: JSON = {
        "id": discussion.id,
        "num": discussion.num,
        "title": discussion.title,
        "status": discussion.status,
        "isPullRequest": discussion.is_pull_request,
        "author": {"id": state.accounts[discussion.author].id},
        "url": {
            "web": f"{web_url(endpoint, repo)}/discussions/{discussion.num}",
            "api": f"{api_url(endpoint, repo)}/discussions/{discussion.num}",
        },
        "pinned": discussion.pinned,
    }
    if discussion.is_pull_request:
        part["changes"] = pr_changes(discussion)
    return part


def comment_part(
    state: HubState, repo: Repo, discussion: Discussion, comment: Event, endpoint: str
) -> JSON:
    hidden = bool(comment.data["hidden"])
    part: JSON = {
        "id": comment.id,
        "author": {"id": state.accounts[comment.author].id},
        "hidden": hidden,
        "url": {"web": f"{web_url(endpoint, repo)}/discussions/{discussion.num}#{comment.id}"},
    }
    if not hidden:
        part["content"] = comment.data["raw"]
    return part


def build(state: HubState, trigger: Trigger, webhook: Webhook, endpoint: str) -> JSON:
    payload: JSON = {
        "event": {"action": trigger.action, "scope": trigger.scope},
        "repo": repo_part(state, trigger, endpoint),
    }
    if trigger.discussion is not None:
        payload["discussion"] = discussion_part(state, trigger.repo, trigger.discussion, endpoint)
        if trigger.comment is not None:
            payload["comment"] = comment_part(
                state, trigger.repo, trigger.discussion, trigger.comment, endpoint
            )
    if trigger.scope == "repo.content":
        payload["updatedRefs"] = [
            {"ref": ref, "oldSha": old, "newSha": new} for ref, old, new in trigger.updated_refs
        ]
    payload["webhook"] = {"id": webhook.id, "version": 3}
    return payload
