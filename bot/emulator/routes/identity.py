"""Who is calling: whoami-v2, org members, and the telemetry probe the 2.x client makes."""

from __future__ import annotations

from starlette.responses import Response

from bot.emulator import access, views
from bot.emulator.errors import HubError
from bot.emulator.http import Ctx, json_response, route


@route("GET", "/api/whoami-v2", "identity.whoami")
async def whoami(ctx: Ctx) -> Response:
    token = access.require_token(ctx.token)
    with ctx.state.locked():
        return json_response(views.whoami(ctx.state, token))


@route("GET", "/api/agent-harnesses", "identity.agent_harnesses")
async def agent_harnesses(ctx: Ctx) -> Response:
    # huggingface_hub 2.x asks this once a day while building its user agent; `{}` is accepted.
    return json_response({})


@route("GET", "/api/organizations/{org}/members", "identity.org_members")
async def org_members(ctx: Ctx) -> Response:
    org = ctx.params["org"]
    with ctx.state.locked() as state:
        if org not in state.members:
            raise HubError(404, f"Organization {org} not found")
        members = [
            {**views.user_brief(state, user), "user": user} for user in sorted(state.members[org])
        ]
    return json_response(members)


ROUTES = [whoami, agent_harnesses, org_members]
