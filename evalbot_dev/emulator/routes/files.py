"""File downloads: HEAD/GET `resolve`, exactly as `hf_hub_download` needs them.

A regular file is served here with 200: `X-Repo-Commit`, an `ETag` (the git blob oid) and an
exact `Content-Length` that the GET then honours. An LFS file answers 302 to the CDN origin
(`evalbot_dev.emulator.cdn`) with `X-Repo-Commit`, `X-Linked-Etag` (the sha256) and `X-Linked-Size`,
the metadata the client reads off the redirect itself. Never xet headers
(docs/hub-api.md#downloads). A missing file is 404 `EntryNotFound` *with* `X-Repo-Commit`, so the
client caches the miss.
"""

from __future__ import annotations

from starlette.responses import Response

from evalbot_dev.emulator import access
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.http import Ctx, HubRoute, error_response, route


async def _resolve(ctx: Ctx) -> Response:
    repo = ctx.repo()
    access.check_file_access(ctx.state.members, ctx.token, repo)
    commit = ctx.state.resolve(repo, ctx.params["rev"])
    headers = {"X-Repo-Commit": commit.sha}
    try:
        oid, content = ctx.state.read_file(repo, commit, ctx.params["path"])
    except HubError as error:
        return error_response(error, headers)
    headers.update({"ETag": f'"{oid}"', "Cache-Control": "private, max-age=0"})
    stored = ctx.state.lfs_object(repo, oid)
    if stored is not None and ctx.state.cdn.endpoint is not None:
        headers.update(
            {
                "Location": ctx.state.cdn.url_for(repo, stored.oid),
                "X-Linked-Etag": f'"{stored.oid}"',
                "X-Linked-Size": str(stored.size),
            }
        )
        return Response(b"", status_code=302, headers=headers)
    if stored is not None:  # no CDN listening (an app served without `EmulatorServer`)
        found = ctx.state.lfs_content(repo, stored.oid)
        content = content if found is None else found
        headers["X-Linked-Etag"] = f'"{stored.oid}"'
    headers["Accept-Ranges"] = "bytes"
    return Response(content, headers=headers, media_type="application/octet-stream")


def _typed(repo_type: str) -> HubRoute:
    async def handler(ctx: Ctx) -> Response:
        ctx.params["type"] = repo_type
        return await _resolve(ctx)

    prefix = "" if repo_type == "model" else f"/{repo_type}s"
    return route(
        "GET", prefix + "/{ns}/{name}/resolve/{rev}/{path}", "files.resolve", bucket="resolvers"
    )(handler)


ROUTES = [_typed("dataset"), _typed("space"), _typed("model")]
