"""The webhooks settings API, as `HfApi.create_webhook` and friends call it
(docs/hub-api.md#webhook-delivery).

Webhooks belong to the token's user; the list answers a bare JSON list, the others
`{"webhook": {...}}`.
"""

from __future__ import annotations

from starlette.responses import Response

from evalbot_dev.emulator import access, hub_texts, views
from evalbot_dev.emulator.errors import HubError
from evalbot_dev.emulator.http import Ctx, json_response, route
from evalbot_dev.emulator.model import Webhook

_BASE = "/api/settings/webhooks"
_DOMAINS = {"repo", "discussion"}


def _own(ctx: Ctx) -> Webhook:
    token = access.require_token(ctx.token)
    webhook = ctx.state.webhooks.get(ctx.params["webhook_id"])
    if webhook is None or webhook.owner != token.user:
        raise HubError(404, hub_texts.WEBHOOK_NOT_FOUND.format(webhook_id=ctx.params["webhook_id"]))
    return webhook


def _validated(body: dict[str, object]) -> tuple[str, list[dict[str, str]], list[str], str | None]:
    url, watched, domains, secret = (
        body.get("url"),
        body.get("watched"),
        body.get("domains"),
        body.get("secret"),
    )
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail="url must be an http(s) URL"))
    if not isinstance(watched, list) or not all(
        isinstance(i, dict) and "type" in i and "name" in i for i in watched
    ):
        raise HubError(
            400, hub_texts.BAD_REQUEST_BODY.format(detail="watched must be a list of {type, name}")
        )
    if not isinstance(domains, list) or not set(domains) <= _DOMAINS:
        raise HubError(
            400, hub_texts.BAD_REQUEST_BODY.format(detail="domains must be among repo, discussion")
        )
    if secret is not None and not isinstance(secret, str):
        raise HubError(400, hub_texts.BAD_REQUEST_BODY.format(detail="secret must be a string"))
    items = [{"type": str(i["type"]), "name": str(i["name"])} for i in watched]
    return url, items, [str(d) for d in domains], secret


@route("GET", _BASE, "webhooks.list")
async def list_webhooks(ctx: Ctx) -> Response:
    token = access.require_token(ctx.token)
    with ctx.state.locked() as state:
        return json_response(
            [views.webhook(w) for w in state.webhooks.values() if w.owner == token.user]
        )


@route("POST", _BASE, "webhooks.create")
async def create(ctx: Ctx) -> Response:
    token = access.require_token(ctx.token)
    url, watched, domains, secret = _validated(await ctx.json_body())
    webhook = ctx.state.add_webhook(token.user, url, watched, domains, secret)
    return json_response({"webhook": views.webhook(webhook)})


@route("GET", _BASE + "/{webhook_id}", "webhooks.get")
async def get(ctx: Ctx) -> Response:
    return json_response({"webhook": views.webhook(_own(ctx))})


@route("POST", _BASE + "/{webhook_id}", "webhooks.update")
async def update(ctx: Ctx) -> Response:
    webhook = _own(ctx)
    body = await ctx.json_body()
    url, watched, domains, secret = _validated({**views.webhook(webhook), **body})
    with ctx.state.locked():
        webhook.url, webhook.watched, webhook.domains, webhook.secret = (
            url,
            watched,
            domains,
            secret,
        )
    return json_response({"webhook": views.webhook(webhook)})


@route("POST", _BASE + "/{webhook_id}/enable", "webhooks.enable")
async def enable(ctx: Ctx) -> Response:
    webhook = _own(ctx)
    with ctx.state.locked():
        webhook.disabled = False
    return json_response({"webhook": views.webhook(webhook)})


@route("POST", _BASE + "/{webhook_id}/disable", "webhooks.disable")
async def disable(ctx: Ctx) -> Response:
    webhook = _own(ctx)
    with ctx.state.locked():
        webhook.disabled = True
    return json_response({"webhook": views.webhook(webhook)})


@route("DELETE", _BASE + "/{webhook_id}", "webhooks.delete")
async def delete(ctx: Ctx) -> Response:
    webhook = _own(ctx)
    with ctx.state.locked() as state:
        state.webhooks.pop(webhook.id, None)
    return json_response({})


ROUTES = [list_webhooks, create, enable, disable, get, update, delete]
