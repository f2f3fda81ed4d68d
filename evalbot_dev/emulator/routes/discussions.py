"""Discussions and pull requests: list, details, create, comment, edit, hide, status, title, merge.

Response keys are the ones `huggingface_hub` reads: `num` on create, `newMessage`,
`updatedComment`, `newStatus`, `newTitle` (each a timeline event,
docs/hub-api.md#discussions-and-pull-requests).
"""

from __future__ import annotations

from starlette.responses import Response

from evalbot_dev.emulator import hub_texts, views
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.git import unified_diff
from evalbot_dev.emulator.http import Ctx, json_response, route

_PAGE = 50
_BASE = "/api/{type}/{ns}/{name}/discussions"


def _num(ctx: Ctx) -> int:
    try:
        num = int(ctx.params["num"])
    except ValueError as exc:
        raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail="discussion number")) from exc
    return num


def _text(body: dict[str, object], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail=f"{key} must be a string"))
    return value


@route("GET", _BASE, "discussions.list")
async def list_discussions(ctx: Ctx) -> Response:
    repo = ctx.repo()
    query = ctx.request.query_params
    kind, status, author = query.get("type", "all"), query.get("status", "all"), query.get("author")
    page = int(query.get("p", "0") or 0)
    with ctx.state.locked() as state:
        chosen = [
            d
            for d in sorted(repo.discussions.values(), key=lambda d: d.num, reverse=True)
            if (kind == "all" or (kind == "pull_request") == d.is_pull_request)
            and (status == "all" or (status == "open") == (d.status in ("open", "draft")))
            and (author is None or d.author == author)
        ]
        start = page * _PAGE
        items = [views.discussion_summary(state, repo, d) for d in chosen[start : start + _PAGE]]
    return json_response(
        {"discussions": items, "count": len(chosen), "start": start, "numClosedDiscussions": 0}
    )


@route("POST", _BASE, "discussions.create")
async def create(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    discussion = ctx.state.create_discussion(
        ctx.token,
        repo,
        _text(body, "title"),
        str(body.get("description") or ""),
        bool(body.get("pullRequest")),
    )
    return json_response({"num": discussion.num, "pullRequest": discussion.is_pull_request})


@route("GET", _BASE + "/{num}", "discussions.details")
async def details(ctx: Ctx) -> Response:
    repo = ctx.repo()
    with ctx.state.locked() as state:
        discussion = state.discussion(repo, _num(ctx))
        diff = None
        if discussion.is_pull_request and ctx.request.query_params.get("diff") == "1":
            head = repo.pr_refs.get(discussion.num) or discussion.merge_commit
            base = discussion.base_sha
            if head and base:
                diff = unified_diff(repo.commits[base].files, repo.commits[head].files, repo.blobs)
        answer = views.discussion_details(state, repo, discussion, ctx.endpoint, diff)
    return json_response(answer)


@route("POST", _BASE + "/{num}/comment", "discussions.comment")
async def comment(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    event = ctx.state.comment(ctx.token, repo, _num(ctx), _text(body, "comment"))
    with ctx.state.locked() as state:
        return json_response({"newMessage": views.event(state, repo, event)})


@route("POST", _BASE + "/{num}/comment/{comment_id}/edit", "discussions.edit_comment")
async def edit_comment(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    event = ctx.state.edit_comment(
        ctx.token, repo, _num(ctx), ctx.params["comment_id"], _text(body, "content")
    )
    with ctx.state.locked() as state:
        return json_response({"updatedComment": views.event(state, repo, event)})


@route("POST", _BASE + "/{num}/comment/{comment_id}/hide", "discussions.hide_comment")
async def hide_comment(ctx: Ctx) -> Response:
    repo = ctx.repo()
    event = ctx.state.hide_comment(ctx.token, repo, _num(ctx), ctx.params["comment_id"])
    with ctx.state.locked() as state:
        return json_response({"updatedComment": views.event(state, repo, event)})


@route("POST", _BASE + "/{num}/status", "discussions.status")
async def status(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    comment_text = body.get("comment")
    event = ctx.state.change_status(
        ctx.token,
        repo,
        _num(ctx),
        _text(body, "status"),
        comment_text if isinstance(comment_text, str) else None,
    )
    with ctx.state.locked() as state:
        return json_response({"newStatus": views.event(state, repo, event)})


@route("POST", _BASE + "/{num}/title", "discussions.title")
async def title(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    event = ctx.state.rename(ctx.token, repo, _num(ctx), _text(body, "title"))
    with ctx.state.locked() as state:
        return json_response({"newTitle": views.event(state, repo, event)})


@route("POST", _BASE + "/{num}/merge", "discussions.merge")
async def merge(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    comment_text = body.get("comment")
    merged = ctx.state.merge(
        ctx.token, repo, _num(ctx), comment_text if isinstance(comment_text, str) else None
    )
    return json_response({"mergeCommitId": merged.sha})


ROUTES = [
    list_discussions,
    create,
    details,
    comment,
    edit_comment,
    hide_comment,
    status,
    title,
    merge,
]
