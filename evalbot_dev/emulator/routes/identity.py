"""Who is calling: whoami-v2, org members, the telemetry probe the 2.x client makes, and the
model-card metadata check it runs before uploading any `README.md`."""

from __future__ import annotations

import yaml
from starlette.responses import Response

from evalbot_dev.emulator import access, views
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.http import Ctx, json_response, route


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


@route("POST", "/api/validate-yaml", "identity.validate_yaml")
async def validate_yaml(ctx: Ctx) -> Response:
    """`HfApi.create_commit` posts every README.md here first (`{"content", "repoType"}`); the
    Hub answers 400 with `errors[].message` for metadata that is not a YAML mapping, else 200.
    Only the YAML itself is checked: the Hub's model-card schema is not emulated."""
    body = await ctx.json_body()
    content = body.get("content")
    if not isinstance(content, str):
        raise HubError(400, "content must be a string")
    problem = _metadata_problem(content)
    if problem is not None:
        return json_response({"errors": [{"message": problem}], "warnings": []}, status=400)
    return json_response({"errors": [], "warnings": []})


def _metadata_problem(card: str) -> str | None:
    lines = card.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None  # no metadata block: nothing to validate
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        return "metadata block is not closed by a '---' line"
    try:
        metadata = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        return f"metadata is not valid YAML: {exc}"
    if metadata is not None and not isinstance(metadata, dict):
        return "metadata must be a YAML mapping"
    return None


ROUTES = [whoami, agent_harnesses, org_members, validate_yaml]
