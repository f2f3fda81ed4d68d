"""Repos: create, info at a revision, tree, paths-info, refs, commits, preupload and commit."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.responses import Response

from evalbot_dev.emulator import access, hub_texts, views
from evalbot_dev.emulator.errors import ENTRY_NOT_FOUND, HubError
from evalbot_dev.emulator.http import Ctx, json_response, route
from evalbot_dev.emulator.model import REPO_TYPES, RepoType
from evalbot_dev.emulator.state import FileChange

_PAGE = 1000


def _flag(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes")


@route("POST", "/api/repos/create", "repos.create")
async def create(ctx: Ctx) -> Response:
    body = await ctx.json_body()
    repo_type = body.get("type") or "model"
    name = body.get("name")
    if repo_type not in REPO_TYPES or not isinstance(name, str) or not name:
        raise HubError(
            400, hub_texts.BAD_REQUEST_BODY.format(detail="name and a valid type are required")
        )
    typed: RepoType = repo_type
    private = body.get("visibility") == "private" or body.get("private") is True
    try:
        repo = ctx.state.create_repo(
            ctx.token, typed, body.get("organization"), name, private=private
        )
    except HubError as error:
        if error.status == 409:
            # The Hub names the existing repo; `create_repo(exist_ok=True)` reads this `url`.
            owner = body.get("organization") or (ctx.token.user if ctx.token else "")
            existing = ctx.state.get_repo(ctx.token, typed, f"{owner}/{name}")
            error.extra["url"] = views.web_url(ctx.endpoint, existing)
        raise
    return json_response(
        {"url": views.web_url(ctx.endpoint, repo), "name": repo.full_name, "id": repo.id}
    )


@route("GET", "/api/{type}", "repos.list")
async def list_repos(ctx: Ctx) -> Response:
    query = ctx.request.query_params
    filters = query.getlist("filter")
    author = query.get("author")
    search = (query.get("search") or "").lower()
    with ctx.state.locked() as state:
        found = [
            views.repo_info(state, repo, repo.commits[repo.branches["main"]], blobs=False)
            for repo in state.repos.values()
            if repo.type == ctx.params["type"]
            and access.can_read(state.members, ctx.token, repo)
            and all(tag in repo.tags for tag in filters)
            and (author is None or repo.namespace == author)
            and search in repo.full_name.lower()
        ]
    return json_response(found)


async def _info(ctx: Ctx, revision: str) -> Response:
    repo = ctx.repo()
    commit = ctx.state.resolve(repo, revision)
    with ctx.state.locked() as state:
        info = views.repo_info(
            state, repo, commit, blobs=_flag(ctx.request.query_params.get("blobs"))
        )
    expand = ctx.request.query_params.getlist("expand")
    if expand:
        # With `expand`, the Hub returns only the requested properties (plus the id).
        keep = set(expand) | {"id", "_id"}
        info = {key: value for key, value in info.items() if key in keep}
    return json_response(info)


@route("GET", "/api/{type}/{ns}/{name}", "repos.info")
async def info(ctx: Ctx) -> Response:
    return await _info(ctx, "main")


@route("GET", "/api/{type}/{ns}/{name}/revision/{rev}", "repos.info_at_revision")
async def info_at_revision(ctx: Ctx) -> Response:
    return await _info(ctx, ctx.params["rev"])


@route("GET", "/api/{type}/{ns}/{name}/tree/{rev}", "repos.tree")
async def tree_root(ctx: Ctx) -> Response:
    return await _tree(ctx, "")


@route("GET", "/api/{type}/{ns}/{name}/tree/{rev}/{path}", "repos.tree")
async def tree_path(ctx: Ctx) -> Response:
    return await _tree(ctx, ctx.params["path"])


async def _tree(ctx: Ctx, folder: str) -> Response:
    repo = ctx.repo()
    commit = ctx.state.resolve(repo, ctx.params["rev"])
    query = ctx.request.query_params
    with ctx.state.locked():
        entries = views.tree(
            repo,
            commit,
            folder,
            recursive=_flag(query.get("recursive")),
            expand=_flag(query.get("expand")),
        )
    if entries is None:
        raise HubError(
            404,
            hub_texts.FOLDER_NOT_FOUND.format(path=folder, revision=ctx.params["rev"]),
            ENTRY_NOT_FOUND,
        )
    return _paginated(ctx, entries)


def _paginated(ctx: Ctx, items: list[Any]) -> Response:
    """GitHub-style `Link: <...>; rel="next"` paging, which the client's `paginate` follows."""
    query = dict(ctx.request.query_params)
    cursor = int(query.pop("cursor", "0") or 0)
    page = items[cursor : cursor + _PAGE]
    headers: dict[str, str] = {}
    if cursor + _PAGE < len(items):
        next_query = urlencode({**query, "cursor": cursor + _PAGE})
        raw = ctx.request.scope["raw_path"].decode("latin-1")
        headers["Link"] = f'<{ctx.endpoint}{raw}?{next_query}>; rel="next"'
    return json_response(page, headers=headers)


@route("POST", "/api/{type}/{ns}/{name}/paths-info/{rev}", "repos.paths_info")
async def paths_info(ctx: Ctx) -> Response:
    repo = ctx.repo()
    commit = ctx.state.resolve(repo, ctx.params["rev"])
    # The client posts `application/x-www-form-urlencoded` (`paths=a&paths=b&expand=false`).
    form = parse_qs((await ctx.request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    paths = form.get("paths", [])
    expand = _flag((form.get("expand") or [""])[0])
    with ctx.state.locked():
        found = views.paths_info(repo, commit, paths, expand=expand)
    return json_response(found)


@route("GET", "/api/{type}/{ns}/{name}/refs", "repos.refs")
async def refs(ctx: Ctx) -> Response:
    repo = ctx.repo()
    with ctx.state.locked():
        answer = views.refs(repo, include_prs=_flag(ctx.request.query_params.get("include_prs")))
    return json_response(answer)


@route("GET", "/api/{type}/{ns}/{name}/commits/{rev}", "repos.commits")
async def commits(ctx: Ctx) -> Response:
    repo = ctx.repo()
    head = ctx.state.resolve(repo, ctx.params["rev"])
    with ctx.state.locked():
        items = [views.commit_item(commit) for commit in views.history(repo, head)]
    return _paginated(ctx, items)


@route("GET", "/api/{type}/{ns}/{name}/auth-check", "repos.auth_check")
async def auth_check(ctx: Ctx) -> Response:
    ctx.repo()
    return json_response({})


@route("GET", "/api/{type}/{ns}/{name}/auth-check/write", "repos.auth_check")
async def auth_check_write(ctx: Ctx) -> Response:
    repo = ctx.repo()
    access.require_repo_write(ctx.state.members, ctx.token, repo, "repo.write")
    return json_response({})


@route("POST", "/api/{type}/{ns}/{name}/preupload/{rev}", "repos.preupload")
async def preupload(ctx: Ctx) -> Response:
    """Every file is a regular git blob here (no LFS, no xet); unchanged ones carry their oid."""
    repo = ctx.repo()
    body = await ctx.json_body()
    revision = ctx.params["rev"]
    commit = ctx.state.resolve(repo, revision)
    files = body.get("files")
    if not isinstance(files, list):
        raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail="files must be a list"))
    answer = []
    for item in files:
        path = item.get("path") if isinstance(item, dict) else None
        if not isinstance(path, str):
            raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail="each file needs a path"))
        answer.append(
            {
                "path": path,
                "uploadMode": "regular",
                "shouldIgnore": False,
                "oid": commit.files.get(path),
            }
        )
    return json_response({"files": answer, "commitOid": commit.sha})


@route("POST", "/api/{type}/{ns}/{name}/commit/{rev}", "repos.commit")
async def commit(ctx: Ctx) -> Response:
    repo = ctx.repo()
    header, changes = _parse_ndjson(await ctx.request.body())
    outcome = ctx.state.commit(
        ctx.token,
        repo,
        ctx.params["rev"],
        changes,
        summary=str(header.get("summary") or ""),
        description=str(header.get("description") or ""),
        parent_commit=header.get("parentCommit"),
        create_pr=_flag(ctx.request.query_params.get("create_pr")),
    )
    web = views.web_url(ctx.endpoint, repo)
    return json_response(
        {
            "success": True,
            "commitOid": outcome.commit.sha,
            "commitUrl": f"{web}/commit/{outcome.commit.sha}",
            "pullRequestUrl": f"{web}/discussions/{outcome.pr_num}" if outcome.pr_num else None,
            "hookOutput": "",
        }
    )


def _parse_ndjson(raw: bytes) -> tuple[dict[str, Any], list[FileChange]]:
    header: dict[str, Any] = {}
    changes: list[FileChange] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            key, value = item["key"], item["value"]
            if not isinstance(value, dict):
                raise TypeError("value must be an object")
            if key == "header":
                header = dict(value)
            elif key == "file":
                content = (
                    base64.b64decode(value["content"], validate=True)
                    if value.get("encoding") == "base64"
                    else str(value["content"]).encode()
                )
                changes.append(FileChange(str(value["path"]), content))
            elif key in ("deletedFile", "deletedFolder"):
                changes.append(FileChange(str(value["path"]), None, folder=key == "deletedFolder"))
            elif key == "lfsFile":
                raise HubError(400, hub_texts.LFS_NOT_SUPPORTED)
            else:
                raise HubError(
                    400,
                    hub_texts.BAD_REQUEST_BODY.format(detail=f"line {number}: unknown key {key!r}"),
                )
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise HubError(
                400, hub_texts.BAD_REQUEST_BODY.format(detail=f"line {number}: {exc}")
            ) from exc
    if not header.get("summary"):
        raise HubError(
            400, hub_texts.BAD_REQUEST_BODY.format(detail="the header line needs a summary")
        )
    return header, changes


@route("POST", "/api/{type}/{ns}/{name}/branch/{branch}", "repos.create_branch")
async def create_branch(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    start = str(body.get("startingPoint") or "main")
    ctx.state.create_ref(ctx.token, repo, "branch", ctx.params["branch"], start)
    return json_response({})


@route("POST", "/api/{type}/{ns}/{name}/tag/{rev}", "repos.create_tag")
async def create_tag(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = await ctx.json_body()
    tag = body.get("tag")
    if not isinstance(tag, str) or not tag:
        raise HubError(
            400, hub_texts.BAD_REQUEST_BODY.format(detail="tag must be a non-empty string")
        )
    ctx.state.create_ref(ctx.token, repo, "tag", tag, ctx.params["rev"])
    return json_response({})


ROUTES = [
    create_branch,
    create_tag,
    create,
    list_repos,
    info,
    info_at_revision,
    tree_root,
    tree_path,
    paths_info,
    refs,
    commits,
    auth_check,
    auth_check_write,
    preupload,
    commit,
]
